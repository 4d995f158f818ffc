"""The judge's side of a calibration: its verdicts, from a file, a stored run, or a Score.

Whatever the source, the verdicts end as one value per item in the kind the
labels are (True/False, a score, a label) or, for a preference, the two
choices of the two presentation orders (`OrderedVerdicts`). The judge's
identity (model, prompt hash, rubric version) travels with them, so the
calibration can be stored for that judge.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.analysis.pairwise_verdicts import OrderedVerdicts
from assay.calibration.labels import READERS, HumanLabels, item_key
from assay.calibration.values import UnreadableValue, as_choice, swap
from assay.config.calibration import JudgeIdentity, VerdictsFile
from assay.datasets.mapped import read_mapped
from assay.errors import ProblemList, UserError
from assay.score import Score
from assay.wording import plural

if TYPE_CHECKING:
    from assay.records import RunRecord
    from assay.store import Store


@dataclass
class JudgeVerdicts:
    """The judge's verdict per item, and where they came from."""

    identity: JudgeIdentity
    source: str
    values: dict[str, Any] = field(default_factory=dict)
    """item id -> verdict (for every kind but preference)."""
    ordered: dict[str, OrderedVerdicts] = field(default_factory=dict)
    """item id -> both orders' choices (preference)."""
    errors: dict[str, str] = field(default_factory=dict)
    """Items the judge could not give a verdict on, and why."""
    other_kind: set[str] = field(default_factory=set)
    """Items of `errors` the judge did judge, but not in the kind the labels are (a pass/fail
    verdict against labels read as scores): a mismatch of the inputs, not a failed judge."""
    notes: list[str] = field(default_factory=list)
    unlabelled_trials: list[str] = field(default_factory=list)
    """Trials of a stored run, in the conditions calibrated, that no label names: judged,
    but with nothing to compare with, so left out (and said so)."""

    @property
    def ids(self) -> set[str]:
        return set(self.values) | set(self.ordered)


def verdicts_from_file(spec: VerdictsFile, base_dir: Path, kind: str,
                       identity: JudgeIdentity | None) -> JudgeVerdicts:
    """Verdicts another tool recorded; both orders of a pair when `a_first`/`b_first` are
    mapped."""
    path = Path(spec.path) if Path(spec.path).is_absolute() else base_dir / spec.path
    pairwise = kind == "preference"
    required = ("id", "a_first", "b_first") if pairwise else ("id", "verdict")
    records = read_mapped(path, spec.fields, required=required,
                          names=("judge_model", "prompt_hash", "condition", "epoch"),
                          format=spec.format,
                          what="verdicts")
    problems = ProblemList()
    found = JudgeVerdicts(identity or JudgeIdentity(), f"file {path}")
    reader = as_choice if pairwise else READERS[kind]
    for record in records:
        item_id = item_key(str(record.get("id")), record.get("condition"), record.get("epoch"))
        values = {}
        for name in required[1:]:
            try:
                values[name] = reader(record.get(name))
            except UnreadableValue as exc:
                problems.add(f"{exc} (read as {kind.replace('_', '/')})", file=str(path),
                             line=record.line, field=spec.fields.get(name, name))
        if len(values) < len(required) - 1:
            continue
        if pairwise:
            b_first = swap(values["b_first"]) if spec.order_labels == "position" \
                else values["b_first"]
            found.ordered[item_id] = OrderedVerdicts(item_id, values["a_first"], b_first)
        else:
            found.values[item_id] = values["verdict"]
        if identity is None and record.get("judge_model") is not None:
            found.identity = JudgeIdentity(model=str(record.get("judge_model")),
                                           prompt_hash=_text(record.get("prompt_hash")))
    problems.raise_if_any(f"invalid verdicts file {path}")
    return found


def verdicts_from_run(store: Store, run: RunRecord, scorer: str, labels: HumanLabels, *,
                      condition: str | None, metric: str | None) -> JudgeVerdicts:
    """The verdicts a stored run's `scorer` gave on the labelled cases, joined by case id
    (and by the label's condition and epoch, or `condition`, epoch 0)."""
    scores: dict[tuple[str, str, int], Score] = {
        key: score for key, _name, score in store.iter_scores(run.id, scorer)}
    if not scores:
        names = sorted({name for _key, name, _s in store.iter_scores(run.id, judged=True)})
        raise UserError(f"run {run.id} has no score of scorer '{scorer}'"
                        + (f" (judged scorers: {', '.join(names)})" if names else ""))
    conditions = sorted({key[1] for key in scores})
    if condition is not None and condition not in conditions:
        raise UserError(f"run {run.id} has no condition '{condition}' scored by '{scorer}' "
                        f"(conditions: {', '.join(conditions)})")
    if condition is None and len(conditions) > 1 and any(
            item.condition is None for item in labels.items.values()):
        raise UserError(f"run {run.id} scored '{scorer}' under {len(conditions)} conditions "
                        f"({', '.join(conditions)}): say which with --condition, or give each "
                        "label a condition field")
    chosen = condition or conditions[0]
    found = JudgeVerdicts(JudgeIdentity(), f"run {run.id}")
    identities: set[tuple[Any, Any, Any]] = set()
    labelled: set[tuple[str, str, int]] = set()
    for item in labels.items.values():
        key = (item.case_id, item.condition or chosen, item.epoch)
        labelled.add(key)
        score = scores.get(key)
        if score is None:
            continue
        identities.add(_identity_of(score))
        read_score(found, item.id, score, labels.kind, metric)
    epochless = {(item.case_id, item.condition or chosen) for item in labels.items.values()
                 if item.fields.get("epoch") in (None, "")}
    other_epochs = [key for key in scores if key[2] != 0 and key[:2] in epochless]
    if other_epochs:
        epochs = len({epoch for _case, _condition, epoch in scores})
        found.notes.append(
            f"the run answered each case {epochs} times (`epochs: {epochs}`); a label "
            "without an `epoch` is joined to its case's first answer (epoch 0), so each "
            "labelled case counts once, and the judge's verdicts on the other answers "
            f"({plural(len(other_epochs), 'trial')}) are left out (a label's `epoch`, 0 to "
            f"{epochs - 1}, names the answer it judged)")
    found.unlabelled_trials = _unlabelled_trials(scores, labelled | set(other_epochs), labels,
                                                 chosen, several=len(conditions) > 1)
    if len(identities) > 1:
        found.notes.append(f"the verdicts come from {len(identities)} different judges "
                           "(model, prompt or rubric); stored under the first")
    if identities:
        model, prompt_hash, version = min(identities, key=str)
        found.identity = JudgeIdentity(model=model, prompt_hash=prompt_hash,
                                       rubric_version=version)
    return found


def _unlabelled_trials(scores: dict[tuple[str, str, int], Score],
                       labelled: set[tuple[str, str, int]], labels: HumanLabels, chosen: str,
                       *, several: bool) -> list[str]:
    """The run's trials, in the conditions the labels are joined to, that no label names
    (an item the file leaves with an empty label is said so already, not again here)."""
    calibrated = {condition for _case, condition, _epoch in labelled}
    empty = set(labels.unlabelled)
    out = []
    for case_id, condition, epoch in scores:
        if condition not in calibrated or (case_id, condition, epoch) in labelled:
            continue
        if item_key(case_id, condition, epoch) in empty or (
                condition == chosen and item_key(case_id, None, epoch) in empty):
            continue
        out.append(item_key(case_id, condition if several else None, epoch))
    return out


def read_score(found: JudgeVerdicts, item_id: str, score: Score, kind: str,
               metric: str | None) -> None:
    """Put one Score's verdict in `found`, read as `kind` (an error, or a verdict of another
    kind, is recorded as the item's error)."""
    if score.error is not None:
        found.errors[item_id] = score.error
        return
    try:
        verdict = _verdict(score, kind, metric)
    except UnreadableValue as exc:
        found.errors[item_id] = str(exc)
        found.other_kind.add(item_id)
        return
    if isinstance(verdict, OrderedVerdicts):
        found.ordered[item_id] = OrderedVerdicts(item_id, verdict.a_first, verdict.b_first)
    else:
        found.values[item_id] = verdict


def _verdict(score: Score, kind: str, metric: str | None) -> Any:
    details = score.details or {}
    readers: dict[str, Callable[[], Any]] = {
        "pass_fail": lambda: _required(score, score.passed, "pass/fail verdict"),
        "score": lambda: _metric(details, metric) if metric else _required(score, score.value,
                                                                            "score"),
        "label": lambda: _required(score, details.get("label"), "label"),
        "preference": lambda: OrderedVerdicts(
            "", as_choice(_required(score, details.get("a_first"), "pairwise verdict")),
            as_choice(_required(score, details.get("b_first"), "pairwise verdict"))),
    }
    return readers[kind]()


def _metric(details: dict[str, Any], metric: str) -> float:
    metrics = details.get("metrics") or {}
    if metric not in metrics:
        known = ", ".join(sorted(metrics)) or "none"
        raise UnreadableValue(f"the verdict has no metric '{metric}' (metrics: {known})")
    return float(metrics[metric])


def _required(score: Score, value: Any, what: str) -> Any:
    if value is None:
        raise UnreadableValue(f"the judge's score has no {what} (it gives {_gives(score)})")
    return value


def _gives(score: Score) -> str:
    """What a judge's score does hold, to say why it cannot be read as another kind."""
    details = score.details or {}
    if details.get("a_first") is not None:
        return "a pairwise verdict"
    if details.get("label") is not None:
        return f"the label {details['label']!r}"
    if score.passed is not None:
        return "a pass/fail verdict" + (f" and the score {score.value:g}"
                                        if score.value is not None else "")
    return f"the score {score.value:g}" if score.value is not None else "no verdict"


def _identity_of(score: Score) -> tuple[Any, Any, Any]:
    details = score.details or {}
    return (details.get("judge_model"), details.get("prompt_hash"),
            details.get("rubric_version"))


def _text(value: Any) -> str | None:
    return None if value is None else str(value)
