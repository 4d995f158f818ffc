"""The end of a suite: the grand summary over its runs, written to `suite.json`, `suite.md`
(and JUnit).

Each config of a suite is run and reviewed on its own (`finish_run`); this
gathers how each one ended into the all-packs document of
`knowledge_packs.all_packs`, and writes it and, when asked, one JUnit file
for every run.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.knowledge_packs.all_packs import SuiteEntry, grand_summary
from assay.reports.atomic import atomic_writer, write_text
from assay.reports.suite import suite_markdown

if TYPE_CHECKING:
    from assay.review.result import Review
    from assay.store import Store

DEFAULT_SUITES_DIR = Path(".assay") / "suites"


def entry_of(config: Path, exit_code: int, review: Review | None = None, *,
             error: str | None = None) -> SuiteEntry:
    """How one config of the suite ended: its review, or the error that stopped it."""
    if review is None:
        return SuiteEntry(config, exit_code, error=error)
    return SuiteEntry(config, exit_code, review.run.experiment, review.run.id, review.summary)


def write_suite(store: Store, entries: Sequence[SuiteEntry], reviews: Sequence[Review], *,
                sample: int | None, output: Path | None = None,
                junit: Path | None = None) -> tuple[dict[str, Any], Path]:
    """Write `suite.json` and `suite.md` (into `output`, default `.assay/suites/<time>/`) and
    JUnit XML for every reviewed run and every config that could not run; returns the
    document and where `suite.json` went."""
    document = grand_summary(entries, sample=sample)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    target = (output or DEFAULT_SUITES_DIR / stamp) / "suite.json"
    write_text(target, json.dumps(document, indent=2, ensure_ascii=False))
    write_text(target.with_name("suite.md"), suite_markdown(document))
    if junit is not None:
        from assay.reports.junit import RunTests, write_junit_runs

        with atomic_writer(junit) as handle:
            write_junit_runs(
                handle, [RunTests(r.run, store.iter_trials(r.run.id), r.gates, r.status_said)
                         for r in reviews],
                failed=[(str(e.config), e.error) for e in entries if e.error is not None])
    return document, target


def runs_summarised(path: Path) -> set[str] | None:
    """The ids of the runs the `suite.json` at `path` summarises, when every config of its
    suite ran to its end; None when one failed, was stopped or was not reached, or when the
    file is missing or not one `write_suite` wrote."""
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        ran = {pack["run_id"] for pack in document["per_pack"].values()}
        failed = document["failed"]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return None if failed else ran
