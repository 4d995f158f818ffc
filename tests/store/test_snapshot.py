"""A report of a run still being written reads one moment of the store: its counts agree."""

from __future__ import annotations

from assay.store import Store
from assay.store.snapshot import one_moment
from tests.store.test_store import trial


def test_reads_in_one_moment_do_not_see_trials_stored_meanwhile(store_url: str) -> None:
    """`assay report` of a running run printed 'trials: 3900 of 6000' and 1,950 trials per
    condition beside a comparison over 1,967 cases scored on both sides."""
    reader, writer = Store(store_url), Store(store_url)
    writer.create_run(id="r1", experiment="e")
    writer.write_trials("r1", [trial(f"c{i}") for i in range(3)])
    with one_moment(reader):
        assert reader.count_trials("r1") == (3, 0)
        writer.write_trials("r1", [trial(f"c{i}") for i in range(3, 8)])
        assert reader.count_trials("r1") == (3, 0)
        assert len(list(reader.iter_trials("r1"))) == 3
        with one_moment(reader):  # nested: the same moment
            assert reader.count_trials("r1") == (3, 0)
    assert reader.count_trials("r1") == (8, 0)
    reader.close()
    writer.close()


def test_a_write_in_one_moment_is_stored(store_url: str) -> None:
    store = Store(store_url)
    store.create_run(id="r1", experiment="e")
    with one_moment(store):
        assert store.count_trials("r1") == (0, 0)
        store.update_run("r1", status="completed")
    assert store.get_run("r1").status == "completed"  # type: ignore[union-attr]
    store.close()


def test_calibrations_are_read_in_the_same_moment(store_url: str) -> None:
    """A report reads a judge's calibration too (is it calibrated?): from the same moment."""
    from assay.records import CalibrationRecord

    reader, writer = Store(store_url), Store(store_url)
    writer.create_run(id="r1", experiment="e")  # the store's tables exist
    with one_moment(reader):
        assert reader.calibrations.list() == []
        writer.calibrations.save(CalibrationRecord("c1", "2026-01-01T00:00:00", "score", 20,
                                                   True, judge_model="m", prompt_hash="p"))
        assert reader.calibrations.list() == []
    assert [c.id for c in reader.calibrations.list()] == ["c1"]
    reader.close()
    writer.close()


def test_a_moment_is_its_own_threads_alone(store_url: str) -> None:
    """`assay view` serves pages from several threads over one store: a page read in its
    moment must not make another page, in another thread, read that moment too."""
    import threading

    reader, writer = Store(store_url), Store(store_url)
    writer.create_run(id="r1", experiment="e")
    writer.write_trials("r1", [trial(f"c{i}") for i in range(3)])
    seen: list[tuple[int, int]] = []
    with one_moment(reader):
        assert reader.count_trials("r1") == (3, 0)
        writer.write_trials("r1", [trial(f"c{i}") for i in range(3, 8)])
        other = threading.Thread(target=lambda: seen.append(reader.count_trials("r1")))
        other.start()
        other.join()
        assert reader.count_trials("r1") == (3, 0)
    assert seen == [(8, 0)]
    reader.close()
    writer.close()
