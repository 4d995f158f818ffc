"""One config run and reviewed: what `assay run`, suites and `assay.evaluate` share.

Run (the runner stores every trial), then review (summary, comparisons,
previous-run diff, gates, files). The command line and the Python API
differ only in how they build the config and what they print.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from assay.api.review_checks import check_reviewable, without_gates_left_out
from assay.errors import AssayError, RunFailed, StoreError
from assay.review.files import damaged_files
from assay.review.finish import (
    ReviewRequest,
    finish_run,
    report_directory,
    write_stopped_junit,
)
from assay.runner.options import RunOptions
from assay.runner.progress import ReviewProgress, choose_mode
from assay.user_code.calls import run_loop

if TYPE_CHECKING:
    from assay.config.loading import LoadedConfig
    from assay.review.result import Review
    from assay.store import Store


async def run_and_review(loaded: LoadedConfig, store: Store, options: RunOptions,
                         request: ReviewRequest) -> Review:
    """Run a loaded config to the end and review it; raises `RunFailed` when it cannot finish."""
    from assay.runner.heap import long_lived_set_aside
    from assay.runner.session import execute_async

    loaded, options = without_gates_left_out(loaded, options)
    check_reviewable(loaded, store, options, request)
    options = replace(_with_damaged_files_resumed(loaded, store, options, request),
                      report_dir=request.asked_report_dir)
    with store.run_lock() as lock, long_lived_set_aside():  # from first trial to last file
        try:
            outcome = await execute_async(loaded, store, options, lock)
            try:
                with ReviewProgress(loaded.name, outcome.run.total_trials,
                                    mode=choose_mode(options.progress)):
                    return finish_run(store, outcome, request)
            except StoreError as exc:  # every trial is stored: a resume reviews it again
                exc.stopped(outcome.run.id)
                raise
        except (AssayError, KeyboardInterrupt, asyncio.CancelledError) as exc:
            if isinstance(exc, RunFailed) and lock.run_id is not None:
                exc.stopped(lock.run_id)
            # an earlier run's JUnit left in place would report its tests, all passing
            if request.junit is not None and lock.run_id is not None:
                write_stopped_junit(store, lock.run_id, request.junit)
            raise


def _with_damaged_files_resumed(loaded: LoadedConfig, store: Store, options: RunOptions,
                                request: ReviewRequest) -> RunOptions:
    """`--resume` with no unfinished run: the latest completed run is resumed (nothing runs,
    its files are written again) when its files are missing or cut short."""
    if options.resume is not True:
        return options
    runs = store.list_runs(loaded.name, kind="eval", limit=20)
    if not runs or any(run.status != "completed" for run in runs):
        return options  # the runner resumes the unfinished one, or says there is none
    latest = runs[0]
    if not damaged_files(report_directory(latest, request), latest.id):
        return options
    return replace(options, resume=latest.id)


def run_config(path: Path | LoadedConfig, store: Store, options: RunOptions | None = None,
               request: ReviewRequest | None = None) -> Review:
    """Run the config at `path` (or one already loaded) and review it (blocking)."""
    from assay.config import load_config

    loaded = load_config(path) if isinstance(path, Path) else path
    return run_loop(run_and_review(loaded, store, options or RunOptions(),
                                      request or ReviewRequest()))
