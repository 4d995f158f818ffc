"""A calibration: people's labels and the judge's verdicts joined, measured, held to the bar.

The judge passes when its raw agreement with people is at least
`min_agreement` (0.85 unless set: a judge should agree with people at
least that often before its verdicts stand in for theirs) and, when
`min_kappa` is set, its kappa at least that. Both are read from the point
estimates, as gates are; the intervals beside them say how much the
labelled sample can tell.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from assay.analysis.judge_agreement import JudgeAgreement, judge_agreement, rated_items
from assay.analysis.pairwise_agreement import PairwiseAgreement, pairwise_agreement
from assay.calibration.labels import HumanLabels
from assay.calibration.values import UnreadableValue, as_pass
from assay.calibration.verdicts import JudgeVerdicts
from assay.config.calibration import CalibrationSpec, JudgeIdentity
from assay.errors import RunFailed, UserError
from assay.shown_numbers import bound_percent, fixed_beside, percent_beside
from assay.wording import plural


@dataclass
class Calibration:
    """The judge against people: every measure, the bar, and whether it passed."""

    kind: str
    identity: JudgeIdentity
    source: str
    labels_path: str
    measures: JudgeAgreement | PairwiseAgreement
    min_agreement: float | None
    min_kappa: float | None
    scorer: str | None = None
    experiment: str | None = None
    labels_hash: str | None = None
    only_labelled: list[str] = field(default_factory=list)
    """Labelled items the judge gave no verdict on (not in the run or file)."""
    only_judged: list[str] = field(default_factory=list)
    """Items the judge gave a verdict on (a stored run's trials too) that no label names."""
    unlabelled: list[str] = field(default_factory=list)
    """Items of the labels file whose label is empty: neither labelled nor measured."""
    judge_errors: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def n(self) -> int:
        return self.measures.n

    @property
    def agreement(self) -> float:
        return self.measures.agreement

    @property
    def kappa(self) -> float | None:
        return self.measures.kappa.value

    @property
    def shortfalls(self) -> list[str]:
        """Why the judge is below the bar (empty when it passed)."""
        out = []
        if self.min_agreement is not None and self.agreement < self.min_agreement:
            out.append(f"agreement {percent_beside(self.agreement, self.min_agreement)} is "
                       f"below the bar of {bound_percent(self.min_agreement)}")
        if self.min_kappa is not None:
            if self.kappa is None:
                out.append(f"kappa is undefined ({self.measures.kappa.note}), so it cannot "
                           f"reach {self.min_kappa:g}")
            elif self.kappa < self.min_kappa:
                out.append(f"kappa {fixed_beside(self.kappa, self.min_kappa)} is below the bar "
                           f"of {self.min_kappa:g}")
        return out

    @property
    def left_out(self) -> dict[str, int]:
        """How many items were not measured, by why: as many as the lists below name."""
        return {"no_verdict": len(self.only_labelled), "judge_error": len(self.judge_errors),
                "empty_label": len(self.unlabelled), "no_label": len(self.only_judged)}

    @property
    def passed(self) -> bool:
        return not self.shortfalls

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "scorer": self.scorer, "experiment": self.experiment,
            "judge": self.identity.model_dump(), "source": self.source,
            "labels": {"path": self.labels_path, "sha256": self.labels_hash},
            "n": self.n, "agreement": self.agreement, "kappa": self.kappa,
            "bar": {"min_agreement": self.min_agreement, "min_kappa": self.min_kappa},
            "passed": self.passed, "shortfalls": self.shortfalls,
            "measures": self.measures.to_dict(),
            "left_out": self.left_out,
            "only_labelled": self.only_labelled, "only_judged": self.only_judged,
            "unlabelled": self.unlabelled,
            "judge_errors": self.judge_errors, "notes": self.notes,
        }


def calibrate(labels: HumanLabels, verdicts: JudgeVerdicts, spec: CalibrationSpec
              ) -> Calibration:
    """Join the judge's verdicts to people's labels by item id and measure the agreement."""
    human = labels.values()
    notes = list(verdicts.notes)
    if verdicts.errors and not verdicts.ids:
        first, error = next(iter(verdicts.errors.items()))
        if set(verdicts.errors) <= verdicts.other_kind:  # the judge answered every item
            raise UserError(_other_kind(labels, f"{first}: {error}"))
        raise RunFailed(f"the judge gave no readable verdict: "
                        f"{plural(len(verdicts.errors), 'judge error')} (first: {first}: {error})")
    split: list[str] = []
    if labels.kind == "preference":
        if labels.raters > 1:
            human, split = _majority_preferences(human)
            if split:
                notes.append(f"left out, the raters' preferences evenly split: "
                             f"{plural(len(split), 'item')} ({', '.join(split[:5])})")
        truth = {item_id: values[0] for item_id, values in human.items() if values}
        try:
            measures: JudgeAgreement | PairwiseAgreement = pairwise_agreement(
                truth, list(verdicts.ordered.values()))
        except ValueError as exc:
            raise UserError(_no_overlap(str(exc), labels, verdicts)) from None
        judged = verdicts.ordered
    else:
        judged_values = dict(verdicts.values)
        categories: list[Any] | None = [False, True] if labels.kind == "pass_fail" else None
        if labels.kind == "score":
            judged_values, categories, rounded = _on_scale(human, judged_values, spec.scale)
            if rounded:
                notes.append(f"rounded to the nearest point: {plural(rounded, 'judge score')} "
                             "not in whole points (a mean of repeats or metrics)")
        items, _, _ = rated_items(human, judged_values)
        try:
            measures = judge_agreement(items, labels.kind,  # type: ignore[arg-type]
                                       categories=categories, passing=spec.pass_labels)
        except ValueError as exc:
            raise UserError(_no_overlap(str(exc), labels, verdicts)) from None
        judged = judged_values
    return Calibration(
        kind=labels.kind, identity=verdicts.identity, source=verdicts.source,
        labels_path=str(labels.path), measures=measures, min_agreement=spec.min_agreement,
        min_kappa=spec.min_kappa,
        only_labelled=[i for i in human if i not in judged and i not in verdicts.errors],
        only_judged=[i for i in judged if i not in human and i not in split
                     and i not in labels.unlabelled] + verdicts.unlabelled_trials,
        unlabelled=list(labels.unlabelled),
        judge_errors={i: e for i, e in verdicts.errors.items() if i in human},
        notes=notes)


def _on_scale(human: dict[str, list[Any]], judged: dict[str, Any],
              scale: tuple[int, int] | None) -> tuple[dict[str, Any], list[Any], int]:
    """Judge scores on whole points of the scale; the scale's points in order."""
    rounded = 0
    out: dict[str, Any] = {}
    for item_id, value in judged.items():
        number = float(value)
        if not number.is_integer():
            rounded += 1
            number = float(math.floor(number + 0.5))
        out[item_id] = number
    seen = [float(v) for values in human.values() for v in values] + list(out.values())
    low, high = scale if scale is not None else (min(seen), max(seen))
    outside = sorted({v for v in seen if not low <= v <= high})
    if outside:
        raise UserError(f"scores outside the scale {low:g}..{high:g}: "
                        f"{', '.join(f'{v:g}' for v in outside[:5])}; give the calibration "
                        "the right `scale:` (people and judge must score on one scale)")
    if any(not float(v).is_integer() for values in human.values() for v in values):
        raise UserError("people's scores must be whole points of the scale for kappa")
    return out, [float(p) for p in range(int(low), int(high) + 1)], rounded


def _majority_preferences(human: dict[str, list[Any]]) -> tuple[dict[str, list[Any]],
                                                                 list[str]]:
    from collections import Counter

    out: dict[str, list[Any]] = {}
    split: list[str] = []
    for item_id, values in human.items():
        counts = Counter(values).most_common()
        if len(counts) > 1 and counts[0][1] == counts[1][1]:
            split.append(item_id)
        else:
            out[item_id] = [counts[0][0]]
    return out, split


KIND_NAMES = {"pass_fail": "pass/fail", "score": "scores", "label": "labels",
              "preference": "preferences"}


def _other_kind(labels: HumanLabels, example: str) -> str:
    """Why no verdict could be compared: the labels are of a kind the judge does not give."""
    seen = sorted({repr(v) for values in labels.values().values() for v in values})
    shown = ", ".join(seen[:6]) + (", ..." if len(seen) > 6 else "")
    message = (f"the labels in {labels.path} read as {KIND_NAMES.get(labels.kind, labels.kind)} "
               f"(values {shown}), and no verdict of the judge does (first: {example}); give "
               "labels of the kind the judge gives, e.g. only pass and fail for a pass/fail judge")
    odd = _neither_pass_nor_fail(labels)
    if odd:
        message += ("; neither pass nor fail: " + "; ".join(odd[:5])
                    + (f" (and {len(odd) - 5} more)" if len(odd) > 5 else ""))
    return message


def _neither_pass_nor_fail(labels: HumanLabels) -> list[str]:
    """Where labels otherwise pass/fail say something else ('unsure'), each at its line: the
    few values that made the whole file read as free-text labels."""
    if labels.kind != "label":
        return []
    readable, odd = 0, []
    for item in labels.items.values():
        for value, line in zip(item.values, item.value_lines, strict=False):
            try:
                as_pass(value)
                readable += 1
            except UnreadableValue:
                odd.append(f"{labels.path}:{line} [{labels.label_field}] {value!r}")
    return odd if readable > len(odd) else []


def _no_overlap(problem: str, labels: HumanLabels, verdicts: JudgeVerdicts) -> str:
    labelled, judged = list(labels.items)[:3], sorted(verdicts.ids)[:3]
    message = (f"{problem}: {len(labels.items)} labelled items (e.g. {', '.join(labelled)}), "
               f"{len(verdicts.ids)} judged (e.g. {', '.join(judged) or 'none'})")
    if verdicts.errors:
        first = next(iter(verdicts.errors.items()))
        message += (f"; {plural(len(verdicts.errors), 'judge error')} "
                    f"(first: {first[0]}: {first[1]})")
    return message
