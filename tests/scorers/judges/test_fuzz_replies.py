"""Fuzz: 2,000 judge replies damaged the ways judges damage them are each read as a
judgement inside the judge's scale or refused as unreadable: never another exception, never
a hang, never a score outside the scale.

Every reply starts as a well-formed reply of one of the judge kinds (a 0-10 score, a
pass/fail label, a rubric with three metrics, a pairwise choice, a custom schema), as JSON
or in prose, and is then damaged: a field of another type, a key dropped, very deep
nesting, NaN or a huge number, a reply cut short or with stray bytes. A refused reply is
what the judge records as an unreadable reply (after its re-asks), never a score.
"""

from __future__ import annotations

import json
import math

from assay.scorers.judges.formats import LabelFormat, NumberFormat, ReplyFormat, SchemaFormat
from assay.scorers.judges.judgement import Judgement, ReplyParseError
from assay.scorers.judges.pairwise import ChoiceFormat
from assay.scorers.judges.rubric import DEFAULT_METRICS, DEFAULT_PASS_RULE, RubricFormat
from tests.fuzzing import Mutator, Tally, dump_json, run_input

INPUTS = 2_000
RUBRIC = {m.name: {"reasoning": "Matches the reference.", "score": 4} for m in DEFAULT_METRICS}
SCHEMA = {"type": "object", "required": ["quality", "ok"],
          "properties": {"quality": {"type": "number", "minimum": 0, "maximum": 5},
                         "ok": {"type": "boolean"}}}
KINDS: list[tuple[str, ReplyFormat, object, str]] = [
    ("score", NumberFormat(0, 10, 7), {"score": 8, "reason": "Correct."}, "Score: 8/10"),
    ("label", LabelFormat(["pass", "fail"], ["pass"]), {"verdict": "pass", "reason": "ok"},
     "**PASS** - it is right."),
    ("rubric", RubricFormat(DEFAULT_METRICS, DEFAULT_PASS_RULE),
     {**RUBRIC, "unverified_claims": ["a claim"]}, json.dumps(RUBRIC)),
    ("pairwise", ChoiceFormat(allow_tie=True), {"winner": "A", "reason": "More complete."},
     "Answer B is better.\n\nB"),
    ("schema", SchemaFormat(SCHEMA, value_field="quality", passed_field="ok", threshold=None,
                            scale=(0, 5)), {"quality": 4, "ok": True}, '{"quality": 4, "ok": true}'),
]


def _sound(fmt: ReplyFormat, judgement: Judgement) -> str | None:
    """What is wrong with a judgement read from a reply (None for a sound one)."""
    if not isinstance(judgement.passed, bool):
        return f"passed is {judgement.passed!r}"
    if judgement.value is not None:
        low, high = fmt.scale
        if not isinstance(judgement.value, float) or math.isnan(judgement.value) or not (
                low <= judgement.value <= high):
            return f"value {judgement.value!r} outside {fmt.scale}"
    if not isinstance(judgement.reason, str):
        return f"reason is {type(judgement.reason).__name__}"
    return None


def test_two_thousand_damaged_judge_replies_are_judgements_in_scale_or_unreadable() -> None:
    mutator = Mutator(seed=23)
    tally = Tally(INPUTS, accepted="judgement", refused="unreadable")
    for index in range(INPUTS):
        kind, fmt, data, prose = mutator.random.choice(KINDS)
        roll = mutator.random.random()
        if roll < 0.5:
            reply = dump_json(mutator.mutate(data, mutator.random.randint(1, 2)))
        elif roll < 0.8:
            reply = mutator.damage((prose if roll < 0.65 else dump_json(data)).encode()
                                   ).decode("utf-8", errors="replace")
        else:
            reply = f"Here is my verdict:\n```json\n{dump_json(mutator.mutate(data))}\n```"
        ended = run_input(ReplyParseError, fmt.parse, reply, seconds=5)
        if tally.record(f"input {index} ({kind})", ended) and \
                (wrong := _sound(fmt, ended.result)) is not None:
            tally.fail(f"input {index} ({kind})", f"{wrong} from {reply[:80]!r}")
    tally.check({"judgement": 200, "unreadable": 200}, shown=25)
