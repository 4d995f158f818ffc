"""Pairwise requests: which of two answers shown is better, by position.

The shape a pairwise judge's request must have for the fake to play it:

- the message shows two answers headed by position (see `judge_prompt`):
  "Answer A" / "Answer B", "Response 1" / "Response 2", "First answer" /
  "Second answer", "[The Start of Assistant A's Answer]" ... "[The End of
  ...]", or tags `<answer_a>...</answer_a>`; a "Question" and a "Reference
  answer" part are read when present;
- the reply has a choice field, as a JSON Schema `enum` (structured output)
  or as `"A | B | tie"` in the JSON example that ends the instructions,
  whose options name the positions: `A`/`B`, `1`/`2`, `first`/`second`,
  `answer_a`/`response_b`..., with an optional tie option (`tie`, `equal`,
  `both`, `neither`, `draw`, `same`, or `C` beside `A` and `B`). Any other
  fields (a reason, a confidence) are filled in too.

For example, with the schema
`{"reason": string, "winner": enum ["A", "B", "tie"]}`:

    Question:
    How often does the compactor run?

    Reference answer:
    Every 15 minutes.

    Answer A:
    From time to time.

    Answer B:
    Every 15 minutes, by default.

gets `{"reason": "The second answer is better: ...", "winner": "B"}`.

On merit the judge prefers the answer of higher quality (against the
reference when there is one, else the question), says tie when they are
equal and a tie option exists, and otherwise draws between them. A planted
position bias (`biases.JudgeBiases.first_position_rate`) overrides merit
for a share of verdicts.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Literal

from assay.testing.assessment import assess
from assay.testing.judge_prompt import PromptParts

Position = Literal["first", "second", "tie"]

_OWNER = r"(?:(?:answer|response|output|assistant|model|candidate|option)[\s_-]*)?"
_FIRST = re.compile(rf"^{_OWNER}(?:a|1|one|first)$")
_SECOND = re.compile(rf"^{_OWNER}(?:b|2|two|second)$")
_TIES = frozenset({"tie", "equal", "equally good", "both", "neither", "draw", "same", "none"})


def position_of(option: str, options: list[str]) -> Position | None:
    """The position a choice names, or None when it names none."""
    text = option.strip().lower()
    if _FIRST.match(text):
        return "first"
    if _SECOND.match(text):
        return "second"
    if text in _TIES or (text == "c" and {"a", "b"} <= {o.strip().lower() for o in options}):
        return "tie"
    return None


def is_positional(options: list[str]) -> bool:
    """Whether `options` name both positions (so the choice is a pairwise verdict)."""
    named = {position_of(option, options) for option in options}
    return {"first", "second"} <= named


def option_for(position: Position, options: list[str]) -> str:
    """The option that names `position` (a tie falls back to the first when none exists)."""
    for option in options:
        if position_of(option, options) == position:
            return option
    return option_for("first", options)


@dataclass(frozen=True)
class Preference:
    """Which position the judge prefers, and why."""

    position: Position
    reason: str


def merit_preference(parts: PromptParts, draws: random.Random, *,
                     tie_allowed: bool) -> Preference:
    """The better of the two answers on their merits."""
    assert parts.pair is not None
    first, second = (assess(parts, answer) for answer in parts.pair)
    reason = (f"first answer: {first.reason}; second answer: {second.reason}")
    if first.quality > second.quality:
        return Preference("first", "the first answer is better: " + reason)
    if second.quality > first.quality:
        return Preference("second", "the second answer is better: " + reason)
    if tie_allowed:
        return Preference("tie", "the two answers are equally good: " + reason)
    position: Position = "first" if draws.random() < 0.5 else "second"
    return Preference(position, f"the two answers are equally good, the {position} is "
                                f"chosen: {reason}")
