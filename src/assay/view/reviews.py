"""Reviews the viewer computes once, in the background, and keeps.

A run's review (its summary, paired comparisons, previous-run diff and
gates) reads every score of the run: seconds on a 100,000-trial run. A page
must not wait that long, so the review is computed in a worker thread and
kept, keyed by what it is computed from (each run's status, end and trials
stored, read in the page's moment: one query per page), so a run that stored
more trials since is reviewed again, while the page says it is on its way and
asks again. A review reads the store in one
moment of its own, the run included: a review of the run in another state than
the page's (a resume began in between) is not shown beside it; the page asks
again and reads both anew. Small runs are done before the
page is rendered, so they show at once; runs of more than
`IN_THREAD_TRIALS` trials are reviewed in a process of their own
(`worker`), so the pages stay quick meanwhile.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TYPE_CHECKING, Any, TypeVar, cast

from assay.store.snapshot import one_moment
from assay.view.worker import Worker

if TYPE_CHECKING:
    from assay.analysis.run_diff import RunDiff
    from assay.records import RunRecord
    from assay.review.result import Review
    from assay.store import Store

T = TypeVar("T")
KEEP = 16
"""Finished reviews kept (the least recently asked for goes first)."""
IN_THREAD_TRIALS = 20_000
"""Runs up to this many trials are reviewed in a thread; larger ones in a worker process."""


class Reviews:
    """Run reviews and run diffs, each computed once in one worker thread, then kept."""

    def __init__(self, store: Store, *, keep: int = KEEP,
                 in_thread_trials: int = IN_THREAD_TRIALS) -> None:
        self.store = store
        self.keep = keep
        self.in_thread_trials = in_thread_trials
        self._worker = Worker()
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="assay-view-review")
        self._jobs: OrderedDict[tuple[Hashable, Hashable], Future[Any]] = OrderedDict()
        self._lock = threading.Lock()

    def review(self, run: RunRecord, *, wait_s: float) -> Review | None:
        """The run's review, or None while it is still being computed after `wait_s`."""
        key = (("review", run.id), self._states(run))
        if self._big(run):  # seconds of work at least: no page waits for it
            review = self._get(key, lambda: self._worker.call(review_run, self.store.url,
                                                              run), 0)
        else:
            review = self._get(key, lambda: review_run(self.store, run), wait_s)
        if review is None or state(review.run) == state(run):
            return review
        with self._lock:  # of the run in another state: the next page asks anew
            self._jobs.pop(key, None)
        return None

    def diff(self, run_a: RunRecord, run_b: RunRecord, *, wait_s: float) -> RunDiff | None:
        """Run B against run A, or None while it is still being computed after `wait_s`."""
        key = (("diff", run_a.id, run_b.id), self._states(run_a, run_b))
        if self._big(run_a) or self._big(run_b):
            return self._get(key, lambda: self._worker.call(diff_runs, self.store.url, run_a,
                                                            run_b), 0)
        return self._get(key, lambda: diff_runs(self.store, run_a, run_b), wait_s)

    def close(self) -> None:
        self._worker.kill()
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _states(self, *runs: RunRecord) -> tuple[Hashable, ...]:
        """Each run's `state` and, for a run not completed, its trials stored, as the
        caller's moment sees them. A completed run stores no more trials without a new end
        (a resume that retries its errors ends it again), so its trials go uncounted: a
        count of 100,000 trials is milliseconds on every page."""
        growing = [run.id for run in runs if run.status != "completed"]
        stored = self.store.trial_counts(growing) if growing else {}
        return tuple((*state(run), stored.get(run.id)) for run in runs)

    def _big(self, run: RunRecord) -> bool:
        return (run.total_trials or 0) > self.in_thread_trials

    def _get(self, key: tuple[Hashable, Hashable], compute: Callable[[], T],
             wait_s: float) -> T | None:
        """The job of `key` (what it is of, and the state it is of), started if new. A job
        of the same thing in an older state that has not started yet is cancelled: a page
        polling a run still being written asks in a new state each time, and each ask
        queued another review behind the first."""
        with self._lock:
            job = self._jobs.get(key)
            if job is None:
                for older, pending in list(self._jobs.items()):
                    if older[0] == key[0] and pending.cancel():
                        del self._jobs[older]
                job = self._jobs[key] = self._pool.submit(compute)
                self._forget_old()
            self._jobs.move_to_end(key)
        try:
            return cast(T, job.result(timeout=wait_s))  # raises what the review raised
        except FutureTimeout:
            return None

    def _forget_old(self) -> None:
        finished = [key for key, job in self._jobs.items() if job.done()]
        for key in finished[:max(0, len(self._jobs) - self.keep)]:
            del self._jobs[key]


def state(run: RunRecord) -> tuple[str, str, str | None]:
    """What a review of the run depends on: which run, its status and when it ended."""
    return run.id, run.status, run.finished_at


def review_run(store: Store | str, run: RunRecord) -> Review:
    """`review_stored` of `run` as it stands in one moment of the store, from a store or
    (in a worker process) its URL."""
    from assay.review.finish import review_stored

    def review(opened: Store) -> Review:
        with one_moment(opened):
            return review_stored(opened, opened.get_run(run.id) or run)

    return _with_store(store, review)


def diff_runs(store: Store | str, run_a: RunRecord, run_b: RunRecord) -> RunDiff:
    """Run B against run A (`diff_stored_runs`), from a store or its URL."""
    from assay.review.comparing import diff_stored_runs

    def diff(opened: Store) -> RunDiff:
        with one_moment(opened):
            return diff_stored_runs(opened, run_a, run_b)

    return _with_store(store, diff)


def _with_store(store: Store | str, use: Callable[[Store], T]) -> T:
    if not isinstance(store, str):
        return use(store)
    from assay.store import Store

    opened = Store(store, read_only=True)
    try:
        return use(opened)
    finally:
        opened.close()
