"""What the store keeps, read back as typed values: a run, a trial, a score row.

The store hands these out and everything after it (review, analysis,
reports, the Python API) takes them in. They are plain data with no
database behind them, so a report can render them without loading the
store's ORM layer.

- `RunRecord`: one run's row: what ran, on what, when, how it ended.
- `TrialRecord`: one stored trial whole: the case as asked, the `Output`,
  and each scorer's `Score`. What `results.json`, `report.md`,
  `report.html` and JUnit list.
- `ScoreRow`: one scorer's value on one trial, flat, without reasons or
  details: what the summary and the paired comparisons aggregate.
- `TrialRow`: one trial's figures without its texts (error, latency,
  tokens, cost, tool use): what the summary's cost table adds up.
- `ExportRecord`: where a run was exported to in another format
  (`assay export`), so its `results.json` can link to the files.
- `TrialPreview`: one trial with its texts cut short and its scores flat:
  a cell of the viewer's cases side by side.
- `CachedReply`: one LLM reply in the response cache, as the store keeps it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from assay.output import Output, Usage
from assay.score import Score
from assay.trial import TrialKey

TRIAL_KINDS = ("eval", "rejudge")
"""The kinds of run that store trials and scores: an eval run, and a rejudge of one (its
answers, judged again). A `traces` run stores its analysis in its summary alone."""

RUN_KINDS = (*TRIAL_KINDS, "traces")
"""Every kind of run: those with trials, and an analysis of session logs."""
_LABELLED = re.compile(r"(?s)(.+) \((" + "|".join(RUN_KINDS) + r")\)")


def experiment_label(experiment: str, kind: str) -> str:
    """An experiment as `assay runs` and `assay history` print it: `m` for its eval runs,
    `m (rejudge)` for its rejudges, whose figures are a judge's, not the target's."""
    return experiment if kind == "eval" else f"{experiment} ({kind})"


def labelled_experiment(label: str) -> tuple[str, str] | None:
    """The experiment and kind a label of `experiment_label` names (`m (rejudge)`), or None
    for a bare name: what those commands print is accepted back as an argument."""
    match = _LABELLED.fullmatch(label)
    return (match.group(1), match.group(2)) if match else None


JudgeIdentity = tuple[str | None, str | None]
"""(judge model, prompt hash) as a judged score records them in its details."""


@dataclass(frozen=True, slots=True)
class RunRecord:
    """A run's row: what ran, on which data, when, and how it ended."""

    id: str
    experiment: str
    kind: str
    """`eval` for a run of a config; `rejudge` for its stored answers judged again;
    `traces` for an analysis of session logs."""
    status: str
    """`running`, `completed`, `interrupted`, `aborted` or `failed` (`finished` for traces)."""
    started_at: str
    finished_at: str | None = None
    config: dict[str, Any] | None = None
    """The config as written (`${VAR}` kept as references, literal secrets masked)."""
    config_hash: str | None = None
    config_path: str | None = None
    dataset_path: str | None = None
    dataset_hash: str | None = None
    git_commit: str | None = None
    assay_version: str | None = None
    total_trials: int | None = None
    summary: dict[str, Any] | None = None
    error: str | None = None
    options: dict[str, Any] | None = None
    """What the command line changed for this run (sample, epochs, conditions); resume reuses it."""
    report_dir: str | None = None
    """The folder its report files were written to (`results.json`, `report.md`, ...)."""
    review: dict[str, Any] | None = None
    """What its review concluded once, for every later rendering: gate results, warnings,
    usage, the baseline condition (see `assay.review.recorded`)."""
    pack_hashes: dict[str, str] | None = None
    """The content hash of each knowledge pack its conditions read, by pack name, as it
    started: a resume over edited documents is refused. None for a run stored before."""

    @property
    def seed(self) -> int:
        """The run's configured seed (`run.seed`, 0 when unset), so its intervals reproduce."""
        settings = (self.config or {}).get("run") if isinstance(self.config, dict) else None
        seed = settings.get("seed", 0) if isinstance(settings, dict) else 0
        return seed if isinstance(seed, int) and not isinstance(seed, bool) else 0

    @property
    def epochs(self) -> int | None:
        """How many epochs the run has: `--epochs` if given, else `run.epochs` (1 when unset);
        None when that is not known (no stored config, or a `${VAR}` left in it)."""
        chosen = (self.options or {}).get("epochs")
        if chosen is None and isinstance(self.config, dict):
            settings = self.config.get("run")
            chosen = settings.get("epochs", 1) if isinstance(settings, dict) else 1
        if isinstance(chosen, int) and not isinstance(chosen, bool) and chosen >= 1:
            return chosen
        return None

    @property
    def resume_command(self) -> str:
        """The command that continues this run when it did not finish: `assay rejudge
        --resume ID` for a rejudge (`assay run --resume` refuses one: it would call the
        target), `assay run CONFIG --resume ID` for an eval run."""
        if self.kind == "rejudge":
            return f"assay rejudge --resume {self.id}"
        return f"assay run {self.config_path or 'CONFIG'} --resume {self.id}"

    @property
    def description(self) -> str | None:
        value = (self.config or {}).get("description") if isinstance(self.config, dict) else None
        return value if isinstance(value, str) else None

    def header(self) -> dict[str, Any]:
        """The run as the head of `results.json` shows it."""
        return {
            "id": self.id, "experiment": self.experiment, "status": self.status,
            "started_at": self.started_at, "finished_at": self.finished_at,
            "config_hash": self.config_hash, "config_path": self.config_path,
            "dataset_path": self.dataset_path, "dataset_hash": self.dataset_hash,
            "git_commit": self.git_commit, "assay_version": self.assay_version,
            "total_trials": self.total_trials, "config": self.config,
        }


@dataclass(slots=True)
class TrialRecord:
    """A stored trial: the case as it was asked, what the target produced, each score."""

    case_id: str
    condition: str
    epoch: int
    input: Any
    """Text, or a list of chat messages."""
    expected: Any
    output: Output
    """The answer, tool calls, transcript and metadata; its `error`, `latency_ms` and
    `usage` come from the trial's own columns."""
    tags: list[str] = field(default_factory=list)
    difficulty: str | None = None
    scores: dict[str, Score] = field(default_factory=dict)

    @property
    def key(self) -> TrialKey:
        return (self.case_id, self.condition, self.epoch)

    @property
    def error(self) -> str | None:
        """The target's error: the trial was not scored."""
        return self.output.error

    @property
    def latency_ms(self) -> float | None:
        return self.output.latency_ms

    @property
    def usage(self) -> Usage:
        return self.output.usage

    def to_dict(self) -> dict[str, Any]:
        """The trial as `results.json` lists it."""
        usage = self.output.usage
        return {
            "case_id": self.case_id,
            "condition": self.condition,
            "epoch": self.epoch,
            "input": self.input,
            "expected": self.expected,
            "tags": list(self.tags),
            "difficulty": self.difficulty,
            "output": self.output.to_dict(),
            "error": self.output.error,
            "latency_ms": self.output.latency_ms,
            "usage": {"input_tokens": usage.input_tokens or None,
                      "output_tokens": usage.output_tokens or None,
                      "cost_usd": usage.cost_usd, "cache_hits": usage.cache_hits or None},
            "scores": {name: score_dict(score) for name, score in self.scores.items()},
        }


def score_dict(score: Score) -> dict[str, Any]:
    """A stored score as `results.json` shows it."""
    return {"value": score.value, "scale": list(score.scale), "passed": score.passed,
            "reason": score.reason or None, "details": score.details, "error": score.error}


@dataclass(frozen=True, slots=True)
class ScoreRow:
    """One scorer's result on one trial, flat: what aggregates and paired tests read."""

    case_id: str
    condition: str
    epoch: int
    scorer: str
    value: float | None
    passed: bool | None
    error: str | None
    scale: tuple[float, float] = (0.0, 1.0)
    tags: tuple[str, ...] = ()
    difficulty: str | None = None
    input_tokens: int | None = None
    """Tokens and cost the scorer itself spent (an LLM judge)."""
    output_tokens: int | None = None
    cost_usd: float | None = None
    cache_hits: int = 0
    """The scorer's LLM calls answered from the response cache: an identical request that
    another trial (of another condition, say) or an earlier run paid for."""
    shared_cost_usd: float | None = None
    """What those cached calls cost when they were paid for (not spent again here)."""

    @property
    def failed(self) -> bool:
        """No value to count: the scorer erred or gave none."""
        return self.error is not None or self.value is None


@dataclass(frozen=True, slots=True)
class TrialRow:
    """One trial's figures without its texts: what the cost and behaviour table adds up."""

    case_id: str
    condition: str
    epoch: int
    error: str | None = None
    latency_ms: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    cache_hits: int | None = None
    tool_calls: int = 0
    """Tool calls, tool errors and turns of an agent target, every attempt of a retried trial
    counted (0 for other targets)."""
    tool_errors: int = 0
    turns: int = 0
    tags: tuple[str, ...] = ()
    difficulty: str | None = None
    """The case's tags and difficulty: a trial whose target failed has no score rows to
    carry them, yet is an error in its tags' and difficulty's rows of the summary."""


@dataclass(frozen=True, slots=True)
class ExportRecord:
    """A run written out in another format (`assay export RUN --format eee`)."""

    format: str
    location: str
    """The directory the files were written under."""
    files: list[str]
    """The files written, relative to `location`."""
    created_at: str

    def to_dict(self) -> dict[str, Any]:
        return {"format": self.format, "location": self.location, "files": list(self.files),
                "created_at": self.created_at}


@dataclass(frozen=True, slots=True)
class TrialPreview:
    """A trial as a row of cases side by side shows it: texts cut to a preview, scores flat.

    The previews are the start of the stored text; the `*_cut` flags say when there is
    more, so a reader knows what the trial's own page adds."""

    run_id: str
    case_id: str
    condition: str
    epoch: int
    input: str
    input_cut: bool
    """The input is longer than the preview (not: its text is shorter than its JSON)."""
    expected: str
    expected_cut: bool
    output: str
    output_cut: bool
    tags: tuple[str, ...] = ()
    error: str | None = None
    latency_ms: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cost_usd: float | None = None
    scores: dict[str, ScoreRow] = field(default_factory=dict)

    @property
    def key(self) -> TrialKey:
        return (self.case_id, self.condition, self.epoch)


@dataclass(frozen=True, slots=True)
class CalibrationRecord:
    """One stored calibration: a judge against people's labels, the bar, and the outcome."""

    id: str
    created_at: str
    kind: str
    """`pass_fail`, `score`, `label` or `preference`."""
    n: int
    passed: bool
    """Whether the judge cleared the bar (`min_agreement`, `min_kappa`)."""
    judge_model: str | None = None
    prompt_hash: str | None = None
    rubric_version: str | None = None
    experiment: str | None = None
    scorer: str | None = None
    agreement: float | None = None
    kappa: float | None = None
    min_agreement: float | None = None
    min_kappa: float | None = None
    labels_path: str | None = None
    labels_hash: str | None = None
    source: str | None = None
    """Where the judge's verdicts came from: `run <id>`, `judged now`, or a file."""
    result: dict[str, Any] | None = None

    @property
    def judge(self) -> JudgeIdentity:
        return (self.judge_model, self.prompt_hash)

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}


@dataclass(frozen=True, slots=True)
class CachedReply:
    """One LLM reply in the response cache: the response as JSON-ready data, and who gave it."""

    response: dict[str, Any]
    provider: str | None = None
    model: str | None = None
