"""The fake judge: answers any judge request of assay's with a plausible, readable verdict.

A request is a judge request when it asks for structured output (a JSON
Schema, or a JSON example closing its instructions; see `reply_shape`).
The judge reads the message's parts (`judge_prompt`), forms an opinion of
the answer (`assessment`: how much of the reference it says, which traits
it shows) and writes it in the shape asked for:

- a number (`judge_score` 0-10, `traits` 1-3, a custom `judge` number): the
  quality placed on the scale, with a one-sentence reason;
- a rubric: each metric's score and reasoning, and the answer's sentences
  the reference does not support as `unverified_claims`;
- a label (a custom `judge` label, `vs_recorded`): the passing, partial or
  failing label that fits the quality, read from the labels' words
  (`labels.polarity`), or by their order (best first) when the words say
  nothing; of a comparison's labels (`better` / `same` / `worse`) an answer
  that says what the reference says is `same`, since the fake cannot tell
  when saying more is better;
- a pairwise choice (see `pairwise`): the better answer, or a tie;
- any other schema: a valid instance, its numbers on their ranges, its
  pass flags and choices from the quality.

Without planted biases the verdict is a pure function of the request. With
`JudgeBiases` it has a known position preference, agreement with true
labels and score noise (see `biases`).

    judge = FakeJudge(JudgeBiases(label_agreement=0.8, labels={"Which planet": "pass"}))
    async with FakeLLM(judge=judge) as llm: ...
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from assay.testing.assessment import Assessment, assess, metric_quality, unverified_claims
from assay.testing.biases import JudgeBiases
from assay.testing.judge_prompt import PromptParts, read_parts
from assay.testing.labels import is_equal, polarity
from assay.testing.pairwise import (
    Preference,
    is_positional,
    merit_preference,
    option_for,
    position_of,
)
from assay.testing.reply_shape import ReplyShape, asked_schema, classify
from assay.testing.schema_instance import instance
from assay.testing.script import FakeRequest, Reply
from assay.testing.similarity import on_scale

_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")

PASS_QUALITY = 0.65
"""The quality from which a verdict reads as a pass (7 of 10; a passing label)."""
PARTIAL_QUALITY = 0.35
"""The quality from which a verdict reads as partly right, where a partial label exists."""


class FakeJudge:
    """Plays an LLM judge: pass it to `FakeLLM(judge=...)`, or call it on a `FakeRequest`."""

    def __init__(self, biases: JudgeBiases | None = None) -> None:
        self.biases = biases or JudgeBiases()

    def recognises(self, request: FakeRequest) -> bool:
        """Whether `request` asks for a structured verdict (a schema or a JSON example)."""
        return asked_schema(request) is not None

    def __call__(self, request: FakeRequest) -> Reply:
        schema = asked_schema(request)
        if schema is None:
            raise ValueError("not a judge request: it asks for no structured reply")
        key = "\x1e".join([request.system, *(m["content"] for m in request.messages),
                           json.dumps(schema, sort_keys=True)])
        return Reply(json=self.verdict(request.last_user, schema, key=key))

    def verdict(self, message: str, schema: dict[str, Any], *, key: str | None = None) -> Any:
        """The verdict object for a judge `message` asking for `schema`."""
        shape = classify(schema)
        draws = self.biases.draws(message if key is None else key)
        values = _Verdict(read_parts(message), shape, self.biases,
                          self.biases.true_label(message), draws)
        if shape.kind == "rubric":
            return values.rubric()
        return instance(schema, values)


class _Verdict:
    """One verdict's values: the opinion, the true label if any, and this request's draws.

    Implements `schema_instance.FieldValues`.
    """

    def __init__(self, parts: PromptParts, shape: ReplyShape, biases: JudgeBiases,
                 truth: Any, draws: random.Random) -> None:
        self.parts = parts
        self.shape = shape
        self.biases = biases
        self.draws = draws
        self.opinion: Assessment = assess(parts)
        self.truth = truth
        self.agree = truth is None or biases.agrees(draws)
        self.preference = self._preference(shape.schema)

    # -- the FieldValues protocol ----------------------------------------------------------

    def number(self, name: str, low: float, high: float, integer: bool,
               quality: float | None = None) -> float:
        true_number = _as_number(self.truth)
        if true_number is not None:
            return self._labelled_number(true_number, low, high, integer)
        if self._true_pass() is not None:
            return on_scale(self._labelled_quality(), low, high, integer=integer)
        quality = self._field_quality(name) if quality is None else quality
        score = self.biases.noisy(on_scale(quality, low, high, integer=integer), self.draws)
        return on_scale((score - low) / (high - low), low, high, integer=integer)

    def boolean(self, name: str) -> bool:
        return self._field_quality(name) >= PASS_QUALITY

    def choice(self, name: str, options: list[Any]) -> Any:
        texts = [str(option) for option in options]
        if self.preference is not None and is_positional(texts):
            return options[texts.index(option_for(self.preference.position, texts))]
        true_option = self._true_option(texts)
        if true_option is not None:
            if not self.agree:
                true_option = self.draws.choice([t for t in texts if t != true_option])
            return options[texts.index(true_option)]
        quality = self._labelled_quality() if self._true_pass() is not None else \
            self.opinion.quality
        return options[texts.index(_label_for(quality, texts))]

    def text(self, name: str) -> str:
        if self.preference is not None:
            return _sentence(self.preference.reason)
        if self.truth is not None:
            relation = "agrees with" if self.agree else "departs from"
            return f"Planted verdict: it {relation} the true label ({self.truth})."
        return _sentence(self.opinion.reason)

    def texts(self, name: str) -> list[str] | None:
        return unverified_claims(self.opinion) if "claim" in name.lower() else None

    # -- the rubric -------------------------------------------------------------------------

    def rubric(self) -> dict[str, Any]:
        """Each metric's score and reasoning, and the unverified claims."""
        low, high = self.shape.scale
        out: dict[str, Any] = {}
        for metric in self.shape.metrics:
            quality, reasoning = metric_quality(metric, self.opinion)
            score = self.number(metric, low, high, self.shape.integer, quality=quality)
            out[metric] = {"reasoning": _sentence(reasoning) if self.truth is None
                           else self.text(metric),
                           "score": int(score) if self.shape.integer else score}
        out["unverified_claims"] = unverified_claims(self.opinion)
        return out

    # -- helpers -----------------------------------------------------------------------------

    def _preference(self, schema: dict[str, Any]) -> Preference | None:
        if self.parts.pair is None:
            return None
        choices = next((options for options in _enums(schema) if is_positional(options)), None)
        if choices is None:
            return None
        override = self.biases.positional_override(self.draws)
        if override is not None:
            return Preference(override, f"the {override} answer is preferred for its position "
                                        "(a planted position bias)")
        tie = any(position_of(option, choices) == "tie" for option in choices)
        return merit_preference(self.parts, self.draws, tie_allowed=tie)

    def _field_quality(self, name: str) -> float:
        quality = self._labelled_quality() if self._true_pass() is not None else \
            self.opinion.quality
        return 1.0 - quality if polarity(name.replace("_", " ")) == 0.0 else quality

    def _true_pass(self) -> float | None:
        """The true label read as pass (1), partial (0.5) or fail (0); None when it is none."""
        if self.truth is None or _as_number(self.truth) is not None:
            return None
        return polarity(self.truth)

    def _labelled_quality(self) -> float:
        truth = self._true_pass()
        assert truth is not None
        if self.agree:
            return truth
        if truth == 0.5:
            return self.draws.choice([0.0, 1.0])
        return 1.0 - truth

    def _labelled_number(self, value: float, low: float, high: float, integer: bool) -> float:
        value = min(high, max(low, value))
        if self.agree:
            return value
        if integer:
            others = [float(point) for point in range(int(low), int(high) + 1)
                      if point != value]
            return self.draws.choice(others) if others else value
        return self.draws.uniform(low, high)

    def _true_option(self, options: list[str]) -> str | None:
        if self.truth is None:
            return None
        lowered = [option.lower() for option in options]
        if str(self.truth).lower() in lowered:
            return options[lowered.index(str(self.truth).lower())]
        truth = self._true_pass()
        if truth is None:
            return None
        rated = [(option, polarity(option)) for option in options]
        known = [(option, value) for option, value in rated if value is not None]
        if not known:
            return None
        return min(known, key=lambda item: abs(item[1] - truth))[0]


def _label_for(quality: float, options: list[str]) -> str:
    """The label that fits `quality`: by the labels' words, else by their order (best first)."""
    rated = [(option, polarity(option)) for option in options]
    known = [(option, value) for option, value in rated if value is not None]
    if not known:
        index = round((1.0 - quality) * (len(options) - 1))
        return options[index]
    partial = any(value == 0.5 for _, value in known)
    if quality >= PASS_QUALITY:
        wanted = 1.0
    elif partial and quality >= PARTIAL_QUALITY:
        wanted = 0.5
    else:
        wanted = 0.0
    return min(known, key=lambda item: (abs(item[1] - wanted), not is_equal(item[0])))[0]


def _enums(schema: Any) -> list[list[str]]:
    """Every `enum` in a schema, as text."""
    found: list[list[str]] = []
    if isinstance(schema, dict):
        if isinstance(schema.get("enum"), list):
            found.append([str(option) for option in schema["enum"]])
        for value in schema.values():
            found.extend(_enums(value))
    elif isinstance(schema, list):
        for value in schema:
            found.extend(_enums(value))
    return found


def _as_number(value: Any) -> float | None:
    """A true label read as a score: a number, or text that is one (never a bool)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    text = str(value).strip()
    return float(text) if _NUMBER.fullmatch(text) else None


def _sentence(text: str) -> str:
    text = text.strip()
    return (text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")) if text else ""
