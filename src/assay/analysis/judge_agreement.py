"""How far a judge agrees with people: the measures a calibration reports, from paired verdicts.

Each item has the people's judgement (one rater, or the consensus of
several) and the judge's. The reading depends on what was judged:

- pass/fail and labels: raw agreement (Wilson interval), Cohen's kappa,
  the confusion matrix, precision and recall per label;
- scores on an ordinal scale: exact agreement, the quadratic-weighted
  kappa (near misses count as near), and the confusion matrix of scores;
- leniency: how much more often the judge passes than people do, as a
  paired difference with the same test and interval as a pass-rate
  comparison (`pass_rate_delta`), or for scores the paired mean difference
  (`mean_delta`) of the judge's score and the people's mean score of the
  item (not their consensus, whose lower median would make a judge that
  scores like one more rater read as lenient);
- with several raters per item, Krippendorff's alpha among the people (how
  far they agree with each other: the ceiling a judge can be held to) and
  with the judge counted as one more rater.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, cast

import numpy as np

from assay.analysis.effect import Effect, measure
from assay.analysis.interval import Interval, wilson
from assay.analysis.kappa import Kappa, Weighting, cohen_kappa, confusion_table
from assay.analysis.krippendorff import Alpha, Level, krippendorff_alpha
from assay.analysis.mean_delta import Differences
from assay.analysis.pass_rate_delta import DiscordantPairs

Kind: TypeAlias = Literal["pass_fail", "label", "score"]
ALPHA = 0.05


@dataclass(frozen=True, slots=True)
class RatedItem:
    """One item: every person's judgement of it, and the judge's."""

    id: str
    human: tuple[Hashable, ...]
    """One value per rater (a single rater is a one-value tuple)."""
    judge: Hashable


@dataclass(frozen=True, slots=True)
class LabelScore:
    """Precision and recall of the judge for one label, people's verdicts as the truth."""

    label: str
    precision: float | None
    """Of the items the judge gave this label, the share people gave it too."""
    recall: float | None
    """Of the items people gave this label, the share the judge gave it too."""
    human: int
    judge: int

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "precision": self.precision, "recall": self.recall,
                "human": self.human, "judge": self.judge}


@dataclass(frozen=True, slots=True)
class Confusion:
    """Counts of (people's verdict, judge's verdict); rows are people, columns the judge."""

    categories: tuple[str, ...]
    counts: tuple[tuple[int, ...], ...]

    def to_dict(self) -> dict[str, Any]:
        return {"categories": list(self.categories), "rows": "human", "columns": "judge",
                "counts": [list(row) for row in self.counts]}


@dataclass(frozen=True)
class JudgeAgreement:
    """The judge against people over `n` items."""

    kind: Kind
    n: int
    agreement: float
    """Share of items where the judge gave exactly the people's verdict."""
    agreement_ci: Interval
    kappa: Kappa
    """Cohen's kappa; quadratic-weighted for scores."""
    confusion: Confusion
    labels: list[LabelScore]
    leniency: Effect | None
    """Judge minus people: the pass rate in points, or the mean score for scores."""
    human_pass_rate: float | None = None
    judge_pass_rate: float | None = None
    unweighted_kappa: Kappa | None = None
    """For scores, the plain kappa beside the weighted one (every miss a full miss)."""
    within_one: float | None = None
    """For scores: the share of items where the judge is at most one point off."""
    human_alpha: Alpha | None = None
    """Several raters: Krippendorff's alpha among the people."""
    alpha_with_judge: Alpha | None = None
    """Several raters: alpha with the judge as one more rater."""
    split: tuple[str, ...] = ()
    """Items left out: their raters were evenly split, so they have no consensus."""
    disagreements: tuple[str, ...] = ()
    """Items where the judge's verdict differs from the people's."""
    raters: int = 1
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind, "n": self.n, "agreement": self.agreement,
            "agreement_ci": self.agreement_ci.to_dict(), "kappa": self.kappa.to_dict(),
            "unweighted_kappa": self.unweighted_kappa.to_dict() if self.unweighted_kappa
            else None,
            "within_one": self.within_one,
            "confusion": self.confusion.to_dict(),
            "labels": [label.to_dict() for label in self.labels],
            "leniency": self.leniency.to_dict() if self.leniency else None,
            "human_pass_rate": self.human_pass_rate, "judge_pass_rate": self.judge_pass_rate,
            "human_alpha": self.human_alpha.to_dict() if self.human_alpha else None,
            "alpha_with_judge": self.alpha_with_judge.to_dict() if self.alpha_with_judge
            else None,
            "raters": self.raters, "split": list(self.split),
            "disagreements": list(self.disagreements),
        }


def judge_agreement(items: Sequence[RatedItem], kind: Kind, *,
                    categories: Sequence[Hashable] | None = None,
                    passing: Sequence[Hashable] = ()) -> JudgeAgreement:
    """Every measure of agreement between the judge and people over `items`.

    `categories` orders the values (a score's scale, lowest first; labels in
    the order to show); `passing` names the labels that count as a pass, so
    a label judge gets a leniency too (pass/fail items pass on True).
    """
    if not items:
        raise ValueError("no item has both a human and a judge verdict")
    categories = list(categories or _observed(items))
    consensus, split = _consensus(items, kind)
    kept = [(item, consensus[item.id]) for item in items if item.id in consensus]
    if not kept:
        raise ValueError("every item's raters are evenly split: no consensus to compare with")
    pairs = [(human, item.judge) for item, human in kept]
    n = len(pairs)
    agreed = sum(human == judge for human, judge in pairs)
    weighting: Weighting = "quadratic" if kind == "score" else "none"
    kappa = cohen_kappa(pairs, categories, weighting=weighting)
    table = confusion_table(pairs, categories)
    passes = (True,) if kind == "pass_fail" else tuple(passing)
    result = JudgeAgreement(
        kind=kind, n=n, agreement=agreed / n, agreement_ci=wilson(agreed, n), kappa=kappa,
        confusion=Confusion(tuple(_label(c) for c in categories),
                            tuple(tuple(int(v) for v in row) for row in table)),
        labels=_label_scores(table, categories),
        leniency=_leniency(pairs, kind, passes, categories,
                           [item.human for item, _ in kept]),
        human_pass_rate=_rate([h for h, _ in pairs], passes),
        judge_pass_rate=_rate([j for _, j in pairs], passes),
        unweighted_kappa=cohen_kappa(pairs, categories) if kind == "score" else None,
        within_one=_within_one(pairs, categories) if kind == "score" else None,
        split=tuple(split),
        disagreements=tuple(item.id for item, human in kept if human != item.judge),
        raters=max(len(item.human) for item in items),
    )
    if result.raters > 1:
        level: Level = "interval" if kind == "score" else "nominal"
        humans = [list(item.human) for item in items]
        with_judge = [[*item.human, item.judge] for item in items]
        alpha_categories = categories if kind != "score" else None
        return _with_alphas(result, krippendorff_alpha(humans, level=level,
                                                       categories=alpha_categories),
                            krippendorff_alpha(with_judge, level=level,
                                               categories=alpha_categories))
    return result


def _with_alphas(result: JudgeAgreement, human: Alpha, with_judge: Alpha) -> JudgeAgreement:
    from dataclasses import replace

    return replace(result, human_alpha=human, alpha_with_judge=with_judge)


def _observed(items: Sequence[RatedItem]) -> list[Hashable]:
    values = {v for item in items for v in (*item.human, item.judge)}
    return sorted(values, key=_order_key)


def _order_key(value: Hashable) -> tuple[int, Any]:
    if isinstance(value, bool):
        return (0, int(value))
    if isinstance(value, (int, float)):
        return (1, value)
    return (2, str(value))


def _consensus(items: Sequence[RatedItem], kind: Kind) -> tuple[dict[str, Hashable], list[str]]:
    """People's verdict per item: the one rater's, the most common (labels), or the median
    (scores, rounded half down to a value of the scale). An even split has none."""
    out: dict[str, Hashable] = {}
    split: list[str] = []
    for item in items:
        values = list(item.human)
        if len(values) == 1:
            out[item.id] = values[0]
            continue
        if kind == "score":
            ordered = sorted(values, key=_order_key)
            out[item.id] = ordered[(len(ordered) - 1) // 2]  # the lower median
            continue
        counts = Counter(values).most_common()
        if len(counts) > 1 and counts[0][1] == counts[1][1]:
            split.append(item.id)
            continue
        out[item.id] = counts[0][0]
    return out, split


def _label_scores(table: np.ndarray, categories: Sequence[Hashable]) -> list[LabelScore]:
    out = []
    for i, category in enumerate(categories):
        hit = float(table[i, i])
        human, judge = float(table[i].sum()), float(table[:, i].sum())
        out.append(LabelScore(_label(category), hit / judge if judge else None,
                              hit / human if human else None, int(human), int(judge)))
    return out


def _leniency(pairs: list[tuple[Hashable, Hashable]], kind: Kind, passes: tuple[Hashable, ...],
              categories: Sequence[Hashable],
              human: Sequence[tuple[Hashable, ...]]) -> Effect | None:
    """Judge minus people, paired over the items, at the 95% level: for scores, the judge's
    score minus the mean of the people's scores of the item."""
    if kind == "score":
        people = np.asarray([np.mean([float(v) for v in values])  # type: ignore[arg-type]
                             for values in human])
        judge = np.asarray([float(j) for _, j in pairs])  # type: ignore[arg-type]
        scale = [float(cast(float, category)) for category in categories]
        low, high = min(scale), max(scale)
        if high <= low:
            return None
        return measure("mean", Differences.of(judge - people, high - low), ALPHA)
    if not passes:
        return None
    judge_only = sum(j in passes and h not in passes for h, j in pairs)
    human_only = sum(h in passes and j not in passes for h, j in pairs)
    return measure("pass_rate", DiscordantPairs(len(pairs), judge_only, human_only), ALPHA)


def _rate(values: Sequence[Hashable], passes: tuple[Hashable, ...]) -> float | None:
    if not passes:
        return None
    return sum(v in passes for v in values) / len(values)


def _within_one(pairs: list[tuple[Hashable, Hashable]], categories: Sequence[Hashable]) -> float:
    rank = {c: i for i, c in enumerate(categories)}
    return sum(abs(rank[h] - rank[j]) <= 1 for h, j in pairs) / len(pairs)


def _label(value: Hashable) -> str:
    if isinstance(value, bool):
        return "pass" if value else "fail"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def rated_items(human: Mapping[str, Sequence[Hashable]], judge: Mapping[str, Hashable]
                ) -> tuple[list[RatedItem], list[str], list[str]]:
    """Items with both sides, joined by id; and the ids only people, or only the judge, rated."""
    items = [RatedItem(item_id, tuple(values), judge[item_id])
             for item_id, values in human.items() if item_id in judge and values]
    only_human = [item_id for item_id in human if item_id not in judge]
    only_judge = [item_id for item_id in judge if item_id not in human]
    return items, only_human, only_judge
