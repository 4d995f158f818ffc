"""The `calibration:` section: people's labels, where the judge's verdicts come from, the bar.

It sits in an eval config (then `assay calibrate assay.yaml` judges the
labelled items with the config's judge scorer now, or reads a stored run's
verdicts with `--run`), or alone in a file of its own with `verdicts:`
recorded by another tool. Files are read like datasets: JSONL, a JSON
array, YAML or CSV, with `fields:` naming where each value sits (a key, or
a dotted path such as `annotation.label` or `games.1.winner`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from assay.config.config_model import ConfigModel

DEFAULT_MIN_AGREEMENT = 0.85
"""Agreement with people a judge needs before its verdicts stand in for theirs."""

CalibrationKind = Literal["auto", "pass_fail", "score", "label", "preference"]


class LabelsFile(ConfigModel):
    """People's judgements of items."""

    path: str
    """The file, relative to the file that names it: JSONL, a JSON array, YAML or CSV."""

    format: Literal["auto", "jsonl", "json", "yaml", "csv"] = "auto"
    """File format; `auto` decides by extension."""

    fields: dict[str, str] = Field(default_factory=dict)
    """Where each value sits, e.g. `{id: item_id, label: annotation.verdict}`. Names: `id`
    (the case id), `label` (the judgement: pass/fail, a score, a label, or a preference
    `a`/`b`/`tie`; a list of values for several raters), `rater` (one row per rater), and to
    judge the items now, `input`, `expected`, `output` (or `output_a` and `output_b` for a
    preference), `expected_traits`, `reference`; `condition` and `epoch` pick the trial of
    a stored run."""


class VerdictsFile(ConfigModel):
    """A judge's verdicts recorded elsewhere (another tool, another run)."""

    path: str
    """The file, relative to the file that names it."""

    format: Literal["auto", "jsonl", "json", "yaml", "csv"] = "auto"
    """File format; `auto` decides by extension."""

    fields: dict[str, str] = Field(default_factory=dict)
    """Where each value sits. Names: `id`, and `verdict` (one verdict per item) or `a_first`
    and `b_first` (a pairwise verdict in each presentation order); optionally `judge_model`
    and `prompt_hash`."""

    order_labels: Literal["answer", "position"] = "answer"
    """How the verdict given with B shown first names its choice: `answer` (A is always the
    answer A, as MT-bench's `g2_winner` after mapping) or `position` (A is whatever was
    shown first, so in that order A means the answer B)."""


class JudgeIdentity(ConfigModel):
    """The judge a recorded calibration is stored for."""

    model: str | None = None
    """The judge model, `provider/model`."""
    prompt_hash: str | None = None
    """The hash of its prompt (as assay records it in each verdict's details)."""
    rubric_version: str | None = None
    """The version of its rubric or pass rule."""


class CalibrationSpec(ConfigModel):
    """A calibration of a judge against people's labels."""

    labels: LabelsFile
    """The people's labels."""

    verdicts: VerdictsFile | None = None
    """Verdicts recorded elsewhere; without them the judge's verdicts come from a stored run
    (`--run`) or from judging the labelled items now with the config's judge scorer."""

    scorer: str | None = None
    """The config's judge scorer to calibrate (by name); the only judged scorer when omitted."""

    kind: CalibrationKind = "auto"
    """What the labels are: pass/fail, a score on an ordinal scale, a label, or a pairwise
    preference. `auto` reads it from the values."""

    scale: tuple[int, int] | None = None
    """A score's scale (lowest, highest), for the weighted kappa; read from the values when
    omitted."""

    metric: str | None = None
    """Calibrate one metric of a rubric judge (its score), not its overall verdict."""

    pass_labels: list[str] = Field(default_factory=list)
    """For labels: the ones that count as a pass, so the judge's leniency can be read."""

    judge: JudgeIdentity | None = None
    """With `verdicts:`, the judge they came from, so the calibration gates that judge."""

    min_agreement: float | None = Field(default=DEFAULT_MIN_AGREEMENT, ge=0, le=1)
    """The bar: raw agreement with people at least this (0.85 by default). `null`: no bar."""

    min_kappa: float | None = Field(default=None, ge=-1, le=1)
    """The bar: Cohen's kappa (weighted for scores) at least this."""

    @model_validator(mode="after")
    def _metric_is_a_score(self) -> CalibrationSpec:
        if self.metric is not None and self.kind not in ("auto", "score"):
            raise ValueError("metric: a rubric metric is a score; use kind: score")
        return self
