"""The one sentence a reviewed run opens with: which condition is better, and whether that is real.

Reports, the console and the viewer all lead with it, so a person gets the
answer before the tables. The sentence is read off one paired comparison
(the first scorer's, the config's order) and agrees with it by construction:
"better" or "worse" only when its interval leaves out 0 (the comparison's
`significant`), with that interval quoted in the sentence; otherwise the
difference is "within noise". The other comparisons are counted in a tail,
so a real change elsewhere is never hidden.

    'pack' is better than 'training' on judge_score, and the difference is real:
    pass rate 50.0% → 62.0%, +12.0pp (95% CI +4.1..+19.9pp).

The text is plain (names in single quotes); each renderer escapes it for
its own format.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, TypeAlias

from assay.analysis.run_diff import condition_of
from assay.analysis.verdict import shown_effect
from assay.reports.comparisons import ci_label
from assay.reports.formatting import (
    mean_bounds,
    mean_text,
    pass_rate_bounds,
    pass_rate_text,
)
from assay.shown_numbers import count
from assay.wording import capitalised, plural

if TYPE_CHECKING:
    from assay.analysis.conditions import ComparisonEntry, ConditionComparisons
    from assay.analysis.paired import PairedComparison
    from assay.analysis.run_diff import RunDiff
    from assay.analysis.summary import RunSummary, ScoreStats
    from assay.review.result import GateBars, Review

Outcome: TypeAlias = Literal["better", "worse", "within noise", "no comparison",
                             "not comparable"]
"""What the sentence concludes, for a renderer that colours it: a real gain, a real drop,
a difference that may be noise, nothing to compare, or two runs that cannot be compared."""


@dataclass(frozen=True, slots=True)
class Headline:
    """One sentence of plain text, what it concludes, and the comparison it is read from."""

    text: str
    outcome: Outcome
    comparison: PairedComparison | None = None

    def __str__(self) -> str:
        return self.text


def review_headline(review: Review) -> Headline:
    """A reviewed run's sentence: its conditions compared; with one condition, the change
    since the previous run; with neither, its first score."""
    found = conditions_headline(review.comparisons)
    if found is not None:
        return found
    previous = review.previous
    if previous is None or previous.run_a is None:
        return summary_headline(review.summary, bars=review.bars)
    other = f"the previous run ({previous.run_a.id})"
    if previous.entries or previous.problems:
        return diff_headline(previous, this="this run", other=other)
    return summary_headline(review.summary, unmatched=other, bars=review.bars)


def conditions_headline(comparisons: ConditionComparisons) -> Headline | None:
    """Which condition beats the baseline on the first scorer, and whether that is real;
    why not, when no comparison could be made; None when the run has one condition."""
    if not comparisons.entries:
        return _none_compared(comparisons) if comparisons.skipped else None
    scorer = comparisons.entries[0].comparison.scorer
    main = [e for e in comparisons.entries if e.comparison.scorer == scorer]
    chosen = _pick(main)
    c = chosen.comparison
    rest = [e for e in comparisons.entries if e is not chosen]
    where = f"on {scorer}" if scorer else ""
    b, a = _quote(c.label_b), _quote(c.label_a)
    if len(main) > 1 and not c.significant:
        sentence = (f"No condition is clearly better or worse than {a} {where}: the largest "
                    f"difference, {b} with {_change(c)}, is within noise")
        # none on this scorer is real (the largest is not): the rest are on other scorers
        rest = [e for e in rest if e.comparison.scorer != scorer]
        return Headline(_sentence(sentence, _tail(rest, on_other_scorers=True)),
                        _outcome(c), c)
    sentence = _clause(c, subject=b, other=a, where=where)
    return Headline(_sentence(sentence, _tail(rest)), _outcome(c), c)


def _none_compared(comparisons: ConditionComparisons) -> Headline:
    """A run of several conditions none of which could be read against the baseline (each
    scorer errored throughout on one side): it read 'One condition ('base') and no earlier
    run, so nothing to compare yet', above the score table of its two conditions."""
    skipped = comparisons.skipped
    more = len(skipped) - 1
    reasons = skipped[0] + (f" (and {plural(more, 'more comparison')} not made)" if more else "")
    return Headline(_sentence(f"No condition could be compared with "
                              f"{_quote(comparisons.baseline)}: {reasons}", ""), "no comparison")


def diff_headline(diff: RunDiff, *, this: str | None = None,
                  other: str | None = None) -> Headline:
    """Run B against run A (`this` and `other` name them; `run <id>` by default)."""
    assert diff.run_a is not None and diff.run_b is not None
    this = this or f"run {diff.run_b.id}"
    other = other or f"run {diff.run_a.id}"
    if diff.problems:
        more = len(diff.problems) - 1
        reasons = diff.problems[0] + (f" (and {plural(more, 'more reason')})"
                                      if more else "")
        return Headline(_sentence(f"{capitalised(this)} cannot be compared with {other}: "
                                  f"{reasons}", ""), "not comparable")
    if not diff.entries:
        return Headline(_sentence(f"{capitalised(this)} has no metric in common with {other}", ""),
                        "no comparison")
    conditions = {condition_of(e) for e in diff.entries}
    chosen = _pick([e for e in diff.entries
                    if e.comparison.scorer == diff.entries[0].comparison.scorer])
    c = chosen.comparison
    where = f"on {c.scorer}"
    if len(conditions) > 1:
        where += f" under {_quote(condition_of(chosen))}"
    sentence = _clause(c, subject=this, other=other, where=where, change_word="change")
    rest = [e for e in diff.entries if e is not chosen]
    return Headline(_sentence(capitalised(sentence), _tail(rest)), _outcome(c), c)


def summary_headline(summary: RunSummary, *, unmatched: str | None = None,
                     bars: GateBars | None = None) -> Headline:
    """A run with nothing to compare: its first score, with its interval. `unmatched` names
    the earlier run it shares no metric with, so the sentence never says there is none;
    `bars`, the run's gates', are what its interval is read against, as in the score table."""
    stats = next((s for s in summary.scores if s.n), None)
    if stats is None:
        errored = sum(s.errors for s in summary.scores)
        unanswered = sum(c.errors for c in summary.conditions)
        answered = sum(c.trials for c in summary.conditions) - unanswered
        if not errored:
            text = "No scores: the run has no scored trial"
        elif unanswered and answered:  # not "every trial": some had an answer, some not
            text = "No scores: every scorer errored on every answer"
        else:
            text = "No scores: every trial ended in an error"
        return Headline(_sentence(text, ""), "no comparison")
    earlier = (f"no metric in common with {unmatched}, so nothing to compare" if unmatched
               else "no earlier run, so nothing to compare yet")
    return Headline(_sentence(f"One condition ({_quote(stats.condition)}) and {earlier}: "
                              f"{stats.scorer} has {_score_text(stats, bars)}", ""),
                    "no comparison")


# -- the parts of a sentence -------------------------------------------------------------------

def _pick(entries: Sequence[ComparisonEntry]) -> ComparisonEntry:
    """The comparison to lead with: the largest real gain, else the largest real drop, else
    the largest difference (which is then within noise)."""
    def size(e: ComparisonEntry) -> float:
        return e.comparison.headline.estimate

    gains = [e for e in entries if _outcome(e.comparison) == "better"]
    if gains:
        return max(gains, key=size)
    drops = [e for e in entries if _outcome(e.comparison) == "worse"]
    if drops:
        return min(drops, key=size)
    return max(entries, key=lambda e: abs(size(e)))


def _outcome(c: PairedComparison) -> Outcome:
    """Read from the interval, as the comparison's verdict is: it leaves out 0 or it does not."""
    if not c.significant:
        return "within noise"
    return "better" if c.headline.interval.low > 0 else "worse"


def _clause(c: PairedComparison, *, subject: str, other: str, where: str,
            change_word: str = "difference") -> str:
    outcome = _outcome(c)
    if outcome == "better":
        return f"{subject} is better than {other} {where}, and the {change_word} is real: {_change(c)}"
    if outcome == "worse":
        return f"{subject} is worse than {other} {where}, and the drop is real: {_change(c)}"
    if c.headline.estimate == 0:
        return f"{subject} and {other} score the same {where}: {_change(c)}, within noise"
    direction = "better" if c.headline.estimate > 0 else "worse"
    return (f"{subject} is not clearly {direction} than {other} {where}: {_change(c)} "
            "is within noise")


def _change(c: PairedComparison) -> str:
    """`pass rate 50.0% → 62.0%, +12.0pp (95% CI +4.1..+19.9pp)`: the verdict's own numbers.
    When cases were left out (errored, or run on one side only) the rates are over fewer
    cases than the score table's, and the sentence says over how many."""
    a, b, delta, interval, _ = shown_effect(c)
    name = "pass rate" if c.headline.metric == "pass_rate" else "mean"
    over = (f" over the {plural(c.n, 'case')} scored on both sides" if c.excluded.count
            else "")
    return f"{name} {a} → {b}{over}, {delta} ({ci_label(c)} {interval})"


def _tail(rest: Sequence[ComparisonEntry], *, on_other_scorers: bool = False) -> str:
    """`of the 3 other comparisons, 1 is a real gain and 2 are within noise`; `of the 2
    comparisons on other scorers, ...` after a sentence about every comparison on one."""
    if not rest:
        return ""
    counts = {"better": 0, "worse": 0, "within noise": 0}
    for entry in rest:
        counts[_outcome(entry.comparison)] += 1
    words = {"better": ("is a real gain", "are real gains"),
             "worse": ("is a real drop", "are real drops"),
             "within noise": ("is within noise", "are within noise")}
    shown = [(n, words[key][n != 1]) for key, n in counts.items() if n]
    if len(rest) == 1:
        what = "the comparison on another scorer" if on_other_scorers else "the other comparison"
        return f"{what} {shown[0][1]}"
    parts = [f"{n} {text}" for n, text in shown]
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    what = "comparisons on other scorers" if on_other_scorers else "other comparisons"
    return f"of the {count(len(rest))} {what}, {listed}"


def _score_text(stats: ScoreStats, bars: GateBars | None) -> str:
    """`pass rate 75.0% (95% CI 53%..89%, n=20; 3 errored trials left out)`: an error is
    never a failure, so the trials it left out are named beside the rate they are not in."""
    rates, means = ([], []) if bars is None else bars.of(stats.scorer, stats.condition)
    # the pass rate heads only where every case scored has a verdict, as in a comparison:
    # a 0-10 scorer that fails empty answers read 'pass rate 0.0% (..., n=10)' of 1 case
    if stats.pass_rate is not None and stats.judged_cases == stats.n:
        # the score table's figures: `0.9997`, never `1.000`
        text = f"pass rate {pass_rate_text(stats, rates)}"
        bounds = (None if stats.pass_rate_ci is None
                  else "..".join(pass_rate_bounds(stats, rates)))
    else:
        assert stats.mean is not None
        text = f"mean {mean_text(stats, means)}"
        bounds = None if stats.mean_ci is None else "..".join(mean_bounds(stats, means))
    parts = [] if bounds is None else [f"95% CI {bounds}, n={count(stats.n)}"]
    if stats.errors:
        parts.append(f"{plural(stats.errors, 'errored trial')} left out")
    return text + (f" ({'; '.join(parts)})" if parts else "")


def _sentence(main: str, tail: str) -> str:
    text = " ".join(main.split())
    if tail:
        text += "; " + tail
    return capitalised(text) + "."


def _quote(name: str) -> str:
    return f"'{name}'"
