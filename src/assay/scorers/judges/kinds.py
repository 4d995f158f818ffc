"""The LLM judges: `judge_score` (0-10), `rubric` (multi-metric), `traits` (1-3), `judge` (custom).

The asking, re-asking, repeating and recording live in `judge_base`; the
judgement shapes in `judge_formats` and `judge_rubric`; the built-in prompts
in `judge_prompts`. This module only says what each kind asks and when a
case cannot be judged by it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, model_validator

from assay.case import Case
from assay.config.config_model import ConfigModel
from assay.registry import scorer
from assay.scorers.judges.base import JudgeParams, JudgeScorer
from assay.scorers.judges.formats import LabelFormat, NumberFormat, ReplyFormat, SchemaFormat
from assay.scorers.judges.judgement import JudgeConfigError
from assay.scorers.judges.prompts import (
    CUSTOM_SYSTEM,
    RUBRIC_PROMPT,
    SCORE_PROMPT,
    SCORE_SYSTEM,
    TRAITS_PROMPT,
    TRAITS_SYSTEM,
)
from assay.scorers.judges.rubric import (
    DEFAULT_METRICS,
    DEFAULT_PASS_RULE,
    PassRule,
    RubricFormat,
    RubricMetric,
)

__all__ = ["CustomJudge", "JudgeScore", "RubricJudge", "TraitsJudge"]


def _needs_expected(case: Case, kind: str) -> str | None:
    if case.expected is None or (isinstance(case.expected, str) and not case.expected.strip()):
        return f"case {case.id} has no `expected` answer for the {kind} judge to compare with"
    return None


@scorer("judge_score")
class JudgeScore(JudgeScorer):
    """0-10 against the case's `expected` answer; passes at `threshold` (7) or above.

    The share of passes is the accuracy and the mean value the average score.
    """

    class Params(JudgeParams):
        threshold: float = Field(default=7, ge=0, le=10)
        """A judgement at or above this passes."""

    params: Params
    default_system = SCORE_SYSTEM
    default_prompt = SCORE_PROMPT

    def build_format(self) -> ReplyFormat:
        return NumberFormat(0, 10, self.params.threshold)

    def reference_problem(self, case: Case) -> str | None:
        return _needs_expected(case, "judge_score")


@scorer("rubric")
class RubricJudge(JudgeScorer):
    """A score per metric against `expected`, with reasoning and unverified claims.

    The value is the mean of the metric scores; `details.metrics` holds each.
    Without `metrics:` the rubric is factual adherence and safety,
    completeness, and helpfulness and clarity, each 1-5, passing when every
    metric is at least 4.
    """

    class Params(JudgeParams):
        metrics: list[RubricMetric] | None = None
        """Custom metrics (name, title, description, levels); the default three when omitted."""

        pass_if: PassRule | None = None
        """When a judgement passes: `{all_at_least: 4}`, `{mean_at_least: 4}`, `{min: {metric: 4}}`
        (every condition given must hold). Default `{all_at_least: 4}` for the default rubric;
        required with custom metrics."""

        @model_validator(mode="after")
        def _rubric_works(self) -> RubricJudge.Params:
            rubric_format(self)
            return self

    params: Params
    default_prompt = RUBRIC_PROMPT

    def build_format(self) -> ReplyFormat:
        return rubric_format(self.params)

    def instructions(self) -> str:
        assert isinstance(self.reply_format, RubricFormat)
        return self.params.system or self.reply_format.system_prompt()

    def reference_problem(self, case: Case) -> str | None:
        return _needs_expected(case, "rubric")


def rubric_format(params: RubricJudge.Params) -> RubricFormat:
    if params.metrics is None:
        return RubricFormat(DEFAULT_METRICS, params.pass_if or DEFAULT_PASS_RULE)
    if params.pass_if is None:
        raise JudgeConfigError("a rubric with custom metrics needs `pass_if:` "
                               "(e.g. {all_at_least: 4} or {mean_at_least: 3.5})")
    return RubricFormat(params.metrics, params.pass_if)


@scorer("traits")
class TraitsJudge(JudgeScorer):
    """1-3 on how well the response shows the case's `expected_traits`; passes at 2 or above."""

    class Params(JudgeParams):
        threshold: float = Field(default=2, ge=1, le=3)
        """A judgement at or above this passes."""

    params: Params
    default_system = TRAITS_SYSTEM
    default_prompt = TRAITS_PROMPT

    def build_format(self) -> ReplyFormat:
        return NumberFormat(1, 3, self.params.threshold)

    def reference_problem(self, case: Case) -> str | None:
        if not case.expected_traits:
            return f"case {case.id} has no expected_traits for the traits judge to check"
        return None


class _OutputSpec(ConfigModel):
    model_config = ConfigDict(populate_by_name=True)


class NumberOutput(_OutputSpec):
    """A number in [min, max]; passes at `threshold` or above."""

    type: Literal["number"]
    """The judge replies with a number."""
    min: float
    """The lowest number the judge may give."""
    max: float
    """The highest number the judge may give."""
    threshold: float
    """A judgement at or above this passes."""
    integer: bool = False
    """Ask for a whole number."""

    def build(self) -> ReplyFormat:
        return NumberFormat(self.min, self.max, self.threshold, integer=self.integer)


class LabelOutput(_OutputSpec):
    """One label of `labels`; passes when it is one of `pass`."""

    type: Literal["label"]
    """The judge replies with one of `labels`."""
    labels: list[str]
    """The labels the judge chooses from."""
    passing: list[str] = Field(alias="pass")
    """The labels that count as a pass."""

    def build(self) -> ReplyFormat:
        return LabelFormat(self.labels, self.passing)


class JsonOutput(_OutputSpec):
    """A JSON object valid against `schema`; its judgement read from named fields."""

    type: Literal["json"]
    """The judge replies with a JSON object."""
    json_schema: dict[str, Any] = Field(alias="schema")
    """The JSON Schema the reply must satisfy (also sent as the structured output format)."""
    value_field: str | None = None
    """A number field that becomes the score's value."""
    passed_field: str | None = None
    """A boolean field that decides pass/fail."""
    threshold: float | None = None
    """Without `passed_field`: the value at or above which the judgement passes."""
    scale: tuple[float, float] | None = None
    """The value's range; read from the field's minimum/maximum when omitted."""

    def build(self) -> ReplyFormat:
        return SchemaFormat(self.json_schema, value_field=self.value_field,
                            passed_field=self.passed_field, threshold=self.threshold,
                            scale=self.scale)


OutputSpec = Annotated[NumberOutput | LabelOutput | JsonOutput, Field(discriminator="type")]


@scorer("judge")
class CustomJudge(JudgeScorer):
    """Your prompt template, and an output spec: a number in a range, a label, or JSON."""

    class Params(JudgeParams):
        prompt: str
        """The message to the judge: a sandboxed template over the case's fields and
        `output` (the answer under test)."""

        output: OutputSpec
        """What the judge answers: `{type: number, min, max, threshold}`,
        `{type: label, labels, pass}` or `{type: json, schema, value_field | passed_field}`."""

        @model_validator(mode="after")
        def _output_works(self) -> CustomJudge.Params:
            self.output.build().reduction(self.reduce)
            return self

    params: Params
    default_system = CUSTOM_SYSTEM

    def build_format(self) -> ReplyFormat:
        return self.params.output.build()
