"""Multi-metric rubrics: the default three metrics, custom rubrics, and the pass rule.

The default rubric grades an answer against a reference answer on factual
adherence and safety, completeness, and helpfulness and clarity, each 1-5.
Content beyond the reference is not marked down by itself: a statement the
judge cannot verify, but that does not contradict the reference, is listed
under `unverified_claims` for a person to review, and the scores rest on
the reference facts.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from pydantic import Field, model_validator

from assay.config.config_model import ConfigModel
from assay.scorers.judges.formats import ReplyFormat, _object
from assay.scorers.judges.judgement import (
    JudgeConfigError,
    Judgement,
    Reduction,
    ReplyParseError,
    reduce_numbers,
)
from assay.scorers.judges.parse import REASON_KEYS, SCORE_KEYS, as_number, extract_object, pick


class RubricMetric(ConfigModel):
    """One metric of a rubric: what it asks and what each score means."""

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    """Key of the metric in results, e.g. `completeness`."""
    title: str | None = None
    """Heading shown to the judge; defaults to the name."""
    description: str = ""
    """The question this metric answers, in a sentence or two."""
    levels: dict[int, str]
    """Score -> what an answer at that score looks like, for every score of the scale."""

    @model_validator(mode="after")
    def _contiguous_levels(self) -> RubricMetric:
        scores = sorted(self.levels)
        if len(scores) < 2 or scores != list(range(scores[0], scores[-1] + 1)):
            raise ValueError(f"metric {self.name!r}: levels must be consecutive whole scores "
                             f"(got {scores})")
        return self


class PassRule(ConfigModel):
    """When a rubric judgement passes. Every condition given must hold.

    `all_at_least`: every metric scores at least this; `mean_at_least`: the
    mean of the metrics is at least this; `min`: per-metric minimums.
    """

    all_at_least: float | None = None
    """Every metric must score at least this."""
    mean_at_least: float | None = None
    """The mean of the metric scores must be at least this."""
    min: dict[str, float] = Field(default_factory=dict)
    """Per-metric minimums, e.g. `{factual_adherence: 5}`."""

    @model_validator(mode="after")
    def _not_empty(self) -> PassRule:
        if self.all_at_least is None and self.mean_at_least is None and not self.min:
            raise ValueError("pass_if: give all_at_least, mean_at_least or min")
        return self

    def passes(self, metrics: dict[str, float]) -> bool:
        values = list(metrics.values())
        if self.all_at_least is not None and min(values) < self.all_at_least:
            return False
        if self.mean_at_least is not None and statistics.fmean(values) < self.mean_at_least:
            return False
        return all(metrics[name] >= floor for name, floor in self.min.items())


DEFAULT_METRICS: list[RubricMetric] = [
    RubricMetric(
        name="factual_adherence",
        title="Factual adherence and safety",
        description=(
            "Are the facts and any commands in the answer correct and safe when checked "
            "against the reference answer? Content beyond the reference is acceptable when it "
            "fits the question and neither contradicts the reference nor invents things (such "
            "as commands that do not exist). If you cannot tell whether extra content is "
            "correct but it does not contradict the reference, do not mark the answer down "
            "for it: list it as an unverified claim and score on the reference facts."),
        levels={
            1: "Contradicts the reference in a way that would do harm if followed (for "
               "example a destructive command, a wrong flag, or critical steps in the wrong "
               "order).",
            2: "Has major factual errors against the reference: not outright dangerous, but "
               "following it leads to failure or confusion. Extra content, if any, is mostly "
               "wrong.",
            3: "Gets the core of the reference right, but extra content or commands are "
               "noticeably wrong or confusing.",
            4: "Gets every core part of the reference right; extra content is safe or "
               "plausible, with at most small imprecisions that change nothing.",
            5: "Gets every core part of the reference right; all extra content is accurate, "
               "safe and consistent with the reference.",
        }),
    RubricMetric(
        name="completeness",
        title="Completeness",
        description=(
            "Does the answer contain the essential facts of the reference answer (commands, "
            "parameters, steps)? Judge only whether the reference information is present; "
            "extra content costs nothing as long as the core facts are all there."),
        levels={
            1: "Contains none of the facts, commands or concepts of the reference.",
            2: "Has one or two minor details of the reference but misses the main answer or "
               "the key command the question needs.",
            3: "Gives the main answer or command but misses critical parameters, flags or "
               "facts that the reference states.",
            4: "Gives the main answer and nearly all key facts of the reference; at most a "
               "minor, non-essential detail is missing.",
            5: "Contains every key fact, main command and essential detail of the reference. "
               "An answer that adds useful content beyond that is still a 5.",
        }),
    RubricMetric(
        name="helpfulness",
        title="Helpfulness and clarity",
        description=(
            "Is the answer clear, easy to take in and actionable? Is it well formatted (code "
            "blocks for commands, for instance), without burying the main answer in "
            "conversational prose?"),
        levels={
            1: "A wall of text, unformatted, or so full of filler or irrelevant material "
               "that the answer is hidden.",
            2: "The answer is there but buried deep in paragraphs of needless prose; "
               "formatting may be uneven.",
            3: "Helpful and correct, but with repetition or a little filler; better "
               "formatting would make it easier to scan.",
            4: "Direct and easy to scan; perhaps a short opening or closing sentence, but the "
               "core answer stands out.",
            5: "Shaped exactly to the question: formatting that makes it easy to scan, every "
               "sentence answers the question or gives context that matters, no filler.",
        }),
]

DEFAULT_PASS_RULE = PassRule(all_at_least=4)


class RubricFormat(ReplyFormat):
    """A score per metric with a reasoning each, plus a list of unverified claims.

    The judgement's value is the mean of the metric scores, on the metrics'
    common scale; `metrics` keeps each score.
    """

    def __init__(self, metrics: Sequence[RubricMetric], rule: PassRule) -> None:
        self.metrics = list(metrics)
        names = [metric.name for metric in self.metrics]
        if not names or len(set(names)) != len(names):
            raise JudgeConfigError("metrics: give at least one metric, each with its own name")
        scales = {(min(m.levels), max(m.levels)) for m in self.metrics}
        if len(scales) != 1:
            raise JudgeConfigError("metrics: every metric must use the same scores "
                                   f"(got {sorted(scales)})")
        unknown = sorted(set(rule.min) - set(names))
        if unknown:
            raise JudgeConfigError(f"pass_if.min: unknown metric {', '.join(unknown)} "
                                   f"(metrics: {', '.join(names)})")
        low, high = scales.pop()
        self.scale = (float(low), float(high))
        self.rule = rule

    def system_prompt(self) -> str:
        """The grading instructions: the rubric, metric by metric, with every level."""
        parts = [
            ("You grade an answer to a question against a reference answer, on the metrics "
            "below. Score each metric on its own, give a short reasoning for each score, and "
            "list every statement in the answer that you cannot verify against the reference "
            "under unverified_claims (an empty list when there are none). Content beyond the "
            "reference is not a fault by itself.")]
        for metric in self.metrics:
            lines = [f"## {metric.name}: {metric.title or metric.name}"]
            if metric.description:
                lines.append(metric.description)
            lines += [f"- {score}: {text}" for score, text in sorted(metric.levels.items())]
            parts.append("\n".join(lines))
        return "\n\n".join(parts)

    def response_schema(self) -> dict[str, Any]:
        low, high = (int(bound) for bound in self.scale)
        properties: dict[str, Any] = {
            metric.name: _object({"reasoning": {"type": "string"},
                                  "score": {"type": "integer", "minimum": low,
                                            "maximum": high}})
            for metric in self.metrics}
        properties["unverified_claims"] = {"type": "array", "items": {"type": "string"}}
        return _object(properties)

    def parse(self, text: str) -> Judgement:
        data = extract_object(text)
        if data is None:
            raise ReplyParseError("no JSON object found in the reply")
        scores: dict[str, float] = {}
        reasoning: dict[str, str] = {}
        for metric in self.metrics:
            scores[metric.name], reasoning[metric.name] = self._metric(data, metric.name)
        claims = pick(data, ("unverified_claims", "unverified"))
        if claims is None:
            claims = []
        if not isinstance(claims, list):
            raise ReplyParseError("unverified_claims is not a list")
        return self._judgement(scores, reasoning, [str(claim) for claim in claims])

    def _metric(self, data: dict[str, Any], name: str) -> tuple[float, str]:
        entry = pick(data, (name,))
        if entry is None:
            raise ReplyParseError(f"metric {name!r} is missing from the reply")
        reason = ""
        if isinstance(entry, dict):
            reason = str(pick(entry, REASON_KEYS) or "")
            entry = pick(entry, SCORE_KEYS)
        low, high = self.scale
        value = as_number(entry, high=high)
        if value is None or not low <= value <= high:
            raise ReplyParseError(f"metric {name!r} has no score between {low:g} and "
                                    f"{high:g}")
        return value, reason

    def reduce(self, judgements: Sequence[Judgement], how: Reduction) -> Judgement:
        scores: dict[str, float] = {}
        reasoning: dict[str, str] = {}
        for metric in self.metrics:
            values = [v.metrics[metric.name] for v in judgements]
            scores[metric.name] = reduce_numbers(values, how)
            nearest = min(judgements, key=lambda v: abs(v.metrics[metric.name]
                                                      - scores[metric.name]))
            reasoning[metric.name] = nearest.data["reasoning"][metric.name]
        claims = list(dict.fromkeys(c for v in judgements for c in v.data["unverified_claims"]))
        return self._judgement(scores, reasoning, claims)

    def _judgement(self, scores: dict[str, float], reasoning: dict[str, str],
                 claims: list[str]) -> Judgement:
        value = statistics.fmean(scores.values())
        low_metric = min(scores, key=lambda name: scores[name])
        reason = f"lowest: {low_metric} {scores[low_metric]:g} ({reasoning[low_metric]})"
        return Judgement(passed=self.rule.passes(scores), value=value, metrics=scores,
                       reason=reason,
                       data={"reasoning": reasoning, "unverified_claims": claims})
