"""Reviews computed in the background, each of one moment of the store."""

from __future__ import annotations

from pathlib import Path

from assay.store import Store
from tests.view.stores import build


def test_a_review_of_the_run_in_another_state_than_the_pages_is_not_shown(
        tmp_path: Path) -> None:
    """A page read a run as completed; its review, computed after a resume of it began, was
    shown beside it, its numbers from another moment than the page's."""
    from assay.view.reviews import Reviews

    browsable = build(str(tmp_path / "assay.db"))
    viewed, writer = Store(browsable.url, read_only=True), Store(browsable.url)
    as_the_page_read_it = viewed.get_run(browsable.run_b)
    assert as_the_page_read_it is not None
    writer.update_run(browsable.run_b, status="running", finished_at=None)
    reviews = Reviews(viewed)
    try:
        assert reviews.review(as_the_page_read_it, wait_s=30) is None
        writer.update_run(browsable.run_b, status="completed",
                          finished_at=as_the_page_read_it.finished_at)
        assert reviews.review(as_the_page_read_it, wait_s=30) is not None  # asked again
    finally:
        reviews.close()
        viewed.close()
        writer.close()


def test_a_diff_against_a_run_still_being_written_is_computed_again_as_it_grows(
        tmp_path: Path) -> None:
    """/compare against a run in flight kept the diff of its first visit (keyed by the runs'
    ids and ends, which a running run does not change) until the viewer restarted: it said
    '3 of its 40 trials ran' while the run had stored more."""
    from assay.view.reviews import Reviews
    from tests.view.stores import trial

    browsable = build(str(tmp_path / "assay.db"))
    viewed, writer = Store(browsable.url, read_only=True), Store(browsable.url)
    reviews = Reviews(viewed)
    try:
        def running_note() -> str:
            run_a, live = viewed.get_run(browsable.run_a), viewed.get_run(browsable.running)
            assert run_a is not None and live is not None
            diff = reviews.diff(run_a, live, wait_s=30)
            assert diff is not None
            return next(note for note in diff.notes if browsable.running in note)

        assert "3 of its 40 trials ran" in running_note()
        writer.write_trials(browsable.running,
                            [trial(i, "baseline", passed=True) for i in range(3, 5)])
        assert "5 of its 40 trials ran" in running_note()
    finally:
        reviews.close()
        viewed.close()
        writer.close()


def test_a_review_of_a_stopped_run_that_stored_more_trials_is_computed_again(
        tmp_path: Path) -> None:
    """A stopped run's review was kept by its status and end alone: trials stored after it
    was reviewed (without a change of status) were left out of the review shown beside
    the page's count of them."""
    from assay.view.reviews import Reviews
    from tests.view.stores import trial

    browsable = build(str(tmp_path / "assay.db"))
    viewed, writer = Store(browsable.url, read_only=True), Store(browsable.url)
    writer.update_run(browsable.running, status="aborted",
                      finished_at="2025-03-03T09:10:00+00:00")
    reviews = Reviews(viewed)
    try:
        def reviewed_trials() -> int:
            run = viewed.get_run(browsable.running)
            assert run is not None
            review = reviews.review(run, wait_s=30)
            assert review is not None
            return sum(stats.n + stats.errors for stats in review.summary.scores
                       if stats.scorer == "exact")

        assert reviewed_trials() == 3
        writer.write_trials(browsable.running,
                            [trial(i, "baseline", passed=True) for i in range(3, 5)])
        assert reviewed_trials() == 5
    finally:
        reviews.close()
        viewed.close()
        writer.close()


def test_a_run_polled_in_new_states_keeps_at_most_one_job_waiting_behind_the_running_one(
        tmp_path: Path) -> None:
    """A page polling a run still being written asks in a new state (trials stored) each
    time; each ask queued one more review behind the first, and none showed while it ran."""
    import threading

    from assay.view.reviews import Reviews

    reviews = Reviews(Store(str(tmp_path / "assay.db")))
    release = threading.Event()
    started: list[int] = []

    def compute(state: int):  # type: ignore[no-untyped-def]
        def job() -> int:
            started.append(state)
            release.wait(30)
            return state
        return job

    try:
        for state in range(5):  # the first starts and waits; 1..3 are replaced in turn by 4
            assert reviews._get((("review", "r1"), state), compute(state), 0) is None
        waiting = [key for key, job in reviews._jobs.items() if not job.done()]
        assert [state for _, state in waiting] == [0, 4]
        release.set()
        assert reviews._get((("review", "r1"), 4), compute(4), 30) == 4
        assert started == [0, 4]
    finally:
        release.set()
        reviews.close()
