"""What got no score, as warnings: the trials the target did not answer, and the answers
each scorer could not score (a judge's unreadable reply, a check that raised).

The terminal prints them; report.html and the viewer's run page show them with the run's
warnings, so every view says why its errored-trials column counts more than the target's
errors: a rubric's 4 errored trials beside 3 target errors read as a miscount where the
judge's one unreadable reply was named nowhere.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.reports.text import one_line
from assay.wording import plural

if TYPE_CHECKING:
    from assay.analysis.summary import RunSummary
    from assay.review.result import Review


def page_warnings(review: Review) -> list[str]:
    """The run's warnings, then what got no score: the list report.html and the viewer's
    run page show alike."""
    return [*review.warnings, *unscored_warnings(review.summary)]


def unscored_warnings(summary: RunSummary, see: str = "") -> list[str]:
    """One warning for the target's failures, one per scorer that could not score some
    answers, each with its first example, flattened to one line (an error message's line
    breaks would print lines that read as assay's own); `see` ends each (`; see Errors in
    report.md`)."""
    warnings = []
    failed = sum(c.errors for c in summary.conditions)
    if failed:
        total = sum(c.trials for c in summary.conditions)
        example = next((e for c in summary.conditions for e in c.error_examples), "")
        warnings.append(f"{failed} of {plural(total, 'trial')} got no answer from the target, "
                        f"so {'it has' if failed == 1 else 'they have'} no score (first: "
                        f"{one_line(example, None)}){see}")
    for scorer, failures in summary.scorer_failures.items():
        if not any(s.n for s in summary.scores if s.scorer == scorer):
            continue  # no value anywhere: the run's warnings say so, with this example
        warnings.append(f"{scorer} could not score {plural(failures.count, 'answer')}, "
                        f"left out of its figures, not counted as 0 (first: "
                        f"{one_line(failures.examples[0], None)}){see}")
    return warnings
