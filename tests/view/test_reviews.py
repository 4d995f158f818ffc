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
