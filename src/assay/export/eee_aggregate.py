"""One condition of a run as an Every Eval Ever aggregate document.

Each scorer gives its pass rate (when it gives verdicts) and its mean (unless
every value is its verdict, 1 or 0, so the mean is the pass rate: a graded
scorer with a threshold, a 0-10 judge or token F1, gives both), with the
confidence interval and sample count assay reported: both
are over cases (each case's epochs are averaged first), so `num_samples`
counts cases and the trials are counted apart in the result's details. Pass
rates leave errored trials out, as assay's score tables do; the errors are
counted in the result's details, with the pass rate that counts them as not
passed (`pass_rate_with_errors`, over `cases_with_errors`): the rate assay's
gates read, and the one a reader gets from the instance records, where an
errored trial is a record with `error` set and `is_correct` false (the
format requires a number and a boolean there, so its `score` is 0).

A scorer with no value under a condition (every trial errored: the target
failed, or the judge's replies could not be read) has no result, since the
format's score is a number and assay never makes an error a 0; it is named
in the aggregate's `source_metadata.additional_details.scorers_without_result`
with its errored trials, so the file does not read as an evaluation that
never had that scorer (or, with every scorer so, as one with nothing wrong).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from assay.export.eee_identity import ModelIdentity
from assay.export.eee_schema import SCHEMA_VERSION
from assay.wording import plural

if TYPE_CHECKING:
    from assay.analysis.interval import Interval
    from assay.analysis.summary import ScoreStats
    from assay.records import JudgeIdentity, RunRecord

PASS_RATE = "pass_rate"
MEAN = "mean"


@dataclass(frozen=True)
class Evaluation:
    """What one aggregate file is about: a run's condition, its model, and where it is filed."""

    run: RunRecord
    condition: str
    identity: ModelIdentity
    evaluation_id: str
    source_data: dict[str, Any]


def metrics_of(stats: ScoreStats) -> list[str]:
    """The results a scorer gives under a condition: its pass rate and/or its mean."""
    metrics = []
    if stats.judged and stats.pass_rate is not None:
        metrics.append(PASS_RATE)
    if stats.mean is not None and not (PASS_RATE in metrics and stats.mean_is_pass_rate):
        metrics.append(MEAN)
    return metrics


def without_result(stats: ScoreStats) -> str:
    """Why a scorer has no result under a condition, as the terminal's table shows it: no
    value, and its errored trials ("judge_score: no value, 12 errored trials")."""
    return f"{stats.scorer}: no value, {plural(stats.errors, 'errored trial')}"


def result_id(scorer: str, metric: str) -> str:
    """The key that joins an instance record to its aggregate result."""
    return f"{scorer}:{metric}"


def aggregate_document(evaluation: Evaluation, scores: list[ScoreStats],
                       judges: dict[str, set[JudgeIdentity]], *, organization: str,
                       relationship: str, retrieved: datetime,
                       samples: dict[str, Any] | None) -> dict[str, Any]:
    """The aggregate file of one condition; `samples` is its `detailed_evaluation_results`."""
    run = evaluation.run
    finished = _unix(run.finished_at or run.started_at)
    results = [_result(evaluation, stats, metric, judges.get(stats.scorer, set()), finished)
               for stats in scores for metric in metrics_of(stats)]
    details = {"assay_run_id": run.id, "experiment": run.experiment,
               "condition": evaluation.condition}
    details.update({key: str(value) for key, value in (("config_hash", run.config_hash),
                                                        ("git_commit", run.git_commit),
                                                        ("dataset_hash", run.dataset_hash))
                    if value})
    without = [without_result(stats) for stats in scores
               if stats.errors and not metrics_of(stats)]  # none: not a scorer of it (pairwise)
    if without:
        details["scorers_without_result"] = "; ".join(without)
    document: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "evaluation_id": evaluation.evaluation_id,
        "evaluation_timestamp": finished,
        "retrieved_timestamp": str(int(retrieved.timestamp())),
        "source_metadata": {"source_name": "assay", "source_type": "evaluation_run",
                            "source_organization_name": organization,
                            "evaluator_relationship": relationship,
                            "additional_details": details},
        "eval_library": {"name": "assay", "version": run.assay_version or "unknown"},
        "model_info": {"name": evaluation.identity.id, "id": evaluation.identity.id,
                       "developer": evaluation.identity.developer,
                       "additional_details": {"deployment_type": "unknown",
                                              "model_availability": "unknown",
                                              "assay_target_type":
                                                  evaluation.identity.target_type}},
        "evaluation_results": results,
    }
    if samples is not None:
        document["detailed_evaluation_results"] = samples
    return document


def _result(evaluation: Evaluation, stats: ScoreStats, metric: str,
            judges: set[JudgeIdentity], finished: str) -> dict[str, Any]:
    low, high = stats.scale
    config: dict[str, Any] = {
        "metric_id": f"assay.{stats.scorer}.{metric}",
        "metric_kind": metric,
        "lower_is_better": False,
        "score_type": "continuous",
    }
    details = {"condition": evaluation.condition, "errors": str(stats.errors)}
    models = sorted({model for model, _ in judges if model})
    hashes = sorted({digest for _, digest in judges if digest})
    if models:
        details["judge_model"] = ", ".join(models)
    if hashes:
        details["judge_prompt_hash"] = ", ".join(hashes)
    if metric == PASS_RATE:
        config.update(metric_name=f"{stats.scorer} pass rate", metric_unit="proportion",
                      min_score=0, max_score=1,
                      evaluation_description=f"share of cases {stats.scorer} passed (per case "
                                             "first over epochs); errored trials left out "
                                             "(details.pass_rate_with_errors counts them as "
                                             "not passed)")
        assert stats.pass_rate is not None
        score = stats.pass_rate
        uncertainty = _uncertainty(stats.pass_rate_ci, None, stats.judged_cases)
        counts = {"cases": str(stats.judged_cases), "trials_passed": str(stats.passed),
                  "trials_judged": str(stats.judged)}
        if stats.errors and stats.pass_rate_with_errors is not None:
            counts.update(pass_rate_with_errors=repr(stats.pass_rate_with_errors),
                          cases_with_errors=str(stats.pass_rate_with_errors_n))
    else:
        config.update(metric_name=f"{stats.scorer} mean", metric_unit="points",
                      min_score=low, max_score=high,
                      evaluation_description=f"mean {stats.scorer} value on its {low:g}..{high:g}"
                                             " scale (per case first over epochs)")
        assert stats.mean is not None
        score = stats.mean
        uncertainty = _uncertainty(stats.mean_ci, stats.stderr, stats.n)
        counts = {"scored": str(stats.n)}
    config["additional_details"] = details
    return {
        "evaluation_result_id": result_id(stats.scorer, metric),
        "evaluation_name": stats.scorer,
        "source_data": evaluation.source_data,
        "evaluation_timestamp": finished,
        "metric_config": config,
        "score_details": {"score": score, "details": counts, "uncertainty": uncertainty},
    }


def _uncertainty(interval: Interval | None, stderr: float | None, n: int) -> dict[str, Any]:
    out: dict[str, Any] = {"num_samples": n}
    if interval is not None:
        out["confidence_interval"] = {"lower": interval.low, "upper": interval.high,
                                      "confidence_level": interval.confidence,
                                      "method": interval.method or "unknown"}
    if stderr is not None:
        out["standard_error"] = {"value": stderr, "method": "analytic"}
    return out


def _unix(iso: str) -> str:
    """An ISO-8601 time as Unix epoch seconds, the format's timestamps."""
    return str(int(datetime.fromisoformat(iso).timestamp()))
