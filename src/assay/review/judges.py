"""The judges of a reviewed run: calibrated or not, and what they said beyond the score.

For every judged scorer: its judge (model, prompt hash) and the passing
calibration that vouches for it, or "uncalibrated judge". Then the judges'
findings (`analysis.judgements`): rubric metrics per condition with
intervals, unverified claims, unstable verdicts of repeated judges, and
pairwise wins, ties and losses, and where verdicts rest on several asks
(judge `repeats`, `assay rejudge`), the judge's self-consistency and the
agent/judge variance split.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from assay.analysis.judgements import JudgeFindings, JudgementReader
from assay.reports.formatting import percent
from assay.shown_numbers import count, fixed_beside

if TYPE_CHECKING:
    from assay.records import CalibrationRecord, JudgeIdentity, RunRecord, TrialRecord
    from assay.store import Store

UNCALIBRATED = "uncalibrated judge"


@dataclass(frozen=True, slots=True)
class JudgeStatus:
    """One judged scorer's judge, and the calibration that vouches for it (if any)."""

    scorer: str
    model: str | None
    prompt_hash: str | None
    calibration: CalibrationRecord | None

    @property
    def calibrated(self) -> bool:
        return self.calibration is not None

    def describe(self) -> str:
        judge = f"{self.model or 'unknown model'}, prompt {self.prompt_hash or 'unknown'}"
        if self.calibration is None:
            return f"{self.scorer}: {UNCALIBRATED} ({judge}): no passing calibration"
        c = self.calibration
        kappa = "" if c.kappa is None else f", kappa {fixed_beside(c.kappa, c.min_kappa)}"
        return (f"{self.scorer}: calibrated ({judge}): "
                f"agreement {percent(c.agreement or 0)}{kappa} "
                f"over {count(c.n)} labelled items ({c.id}, {c.created_at[:10]})")

    def to_dict(self) -> dict[str, Any]:
        return {"scorer": self.scorer, "judge_model": self.model,
                "prompt_hash": self.prompt_hash, "calibrated": self.calibrated,
                "calibration": None if self.calibration is None else {
                    "id": self.calibration.id, "created_at": self.calibration.created_at,
                    "n": self.calibration.n, "agreement": self.calibration.agreement,
                    "kappa": self.calibration.kappa}}


@dataclass
class JudgeReview:
    """The judges of a run: their calibration and their findings."""

    statuses: list[JudgeStatus] = field(default_factory=list)
    findings: JudgeFindings = field(default_factory=JudgeFindings)
    rejudge_of: str | None = None
    """For a run made by `assay rejudge`: the run whose outputs it judged again."""

    @property
    def uncalibrated(self) -> list[JudgeStatus]:
        return [s for s in self.statuses if not s.calibrated]

    def __bool__(self) -> bool:
        return bool(self.statuses or self.findings)

    def to_dict(self) -> dict[str, Any]:
        return {"judges": [s.to_dict() for s in self.statuses], "rejudge_of": self.rejudge_of,
                **self.findings.to_dict()}


class JudgedScores:
    """A run's judged scores, gathered from its trials as one pass reads them: what
    `Store.judge_identities` and `Store.iter_scores(judged=True)` would read again.

    A judged score is one whose details name its judge (`judge_model`)."""

    def __init__(self, epochs: int | None) -> None:
        self.identities: dict[str, set[JudgeIdentity]] = {}
        self.reader = JudgementReader(epochs)

    def add(self, trial: TrialRecord) -> None:
        """The trial's judged scores (trials come in key order)."""
        for name, score in trial.scores.items():
            details = score.details
            if details and "judge_model" in details:
                self.identities.setdefault(name, set()).add(
                    (details.get("judge_model"), details.get("prompt_hash")))
                self.reader.add((trial.case_id, trial.condition, trial.epoch), name, score)


def review_judges(store: Store, run: RunRecord, conditions: list[str],
                  judged: JudgedScores | None = None) -> JudgeReview:
    """The judges of a stored run, from its judged scores: `judged` when the pass that read
    its trials gathered them, else read from the store."""
    if judged is None:
        judged = read_judged(store, run)
    identities = judged.identities
    statuses = [JudgeStatus(scorer, model, prompt_hash,
                            store.calibrations.passing(model, prompt_hash))
                for scorer, found in sorted(identities.items())
                for model, prompt_hash in sorted(found, key=str)]
    options = run.options or {}
    asks = options.get("asks") if isinstance(options.get("asks"), dict) else None
    baselines = pair_baselines(run.config, conditions)
    findings = judged.reader.findings(pair_baselines=baselines, conditions=conditions,
                                      asks=asks)
    rejudge_of = options.get("rejudge_of")
    return JudgeReview(statuses, findings, str(rejudge_of) if rejudge_of else None)


def review_stored_judges(store: Store, run: RunRecord, conditions: list[str]
                         ) -> tuple[JudgeReview, dict[str, set[JudgeIdentity]]]:
    """The judges of a stored run, and their identities for the diff with another run's
    (`Store.judge_identities`), from one read of its judged scores; the scores themselves
    are not kept past it."""
    judged = read_judged(store, run)
    return review_judges(store, run, conditions, judged), judged.identities


def read_judged(store: Store, run: RunRecord) -> JudgedScores:
    """The run's judged scores read from the store in one pass, each score's details decoded
    once for its judge and its findings alike (`Store.judge_identities` and
    `read_judgements` each decoded them again)."""
    judged = JudgedScores(run.epochs)
    for key, name, score in store.iter_scores(run.id, judged=True):
        details = score.details
        judged.identities.setdefault(name, set()).add(
            (details.get("judge_model"), details.get("prompt_hash")))
        judged.reader.add(key, name, score)
    return judged


def pair_baselines(config: Any, conditions: list[str]) -> dict[str, str]:
    """The scorers of a stored config that pair conditions, and each one's baseline."""
    if not isinstance(config, dict) or not conditions:
        return {}
    out = {}
    for entry in config.get("scorers") or []:
        if isinstance(entry, dict) and entry.get("type") == "pairwise" and \
                entry.get("against", "conditions") == "conditions":
            out[str(entry.get("name") or "pairwise")] = str(entry.get("baseline")
                                                            or conditions[0])
    return out
