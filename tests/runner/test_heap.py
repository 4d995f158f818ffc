"""A run sets aside, for the collector, what existed before it, and gives the settings back;
start-up runs with the collector off, the run with it on."""

from __future__ import annotations

import gc

import pytest

from assay.runner.heap import YOUNG_OBJECTS, collector_off_for_start_up, long_lived_set_aside


def test_the_objects_made_before_the_run_are_out_of_the_collectors_walks() -> None:
    before = gc.get_threshold()
    with long_lived_set_aside():
        assert gc.get_freeze_count() > 0
        assert gc.get_threshold()[0] >= YOUNG_OBJECTS
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == before


def test_settings_come_back_when_the_run_fails() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), long_lived_set_aside():
        raise RuntimeError("run failed")
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == before


def test_cycles_made_during_the_run_are_still_collected() -> None:
    class Node:
        partner: object = None

    with long_lived_set_aside():
        first, second = Node(), Node()
        first.partner, second.partner = second, first
        del first, second
        assert gc.collect() >= 2


def test_a_run_collects_even_when_start_up_turned_the_collector_off() -> None:
    with collector_off_for_start_up():
        assert not gc.isenabled()
        with long_lived_set_aside():
            assert gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_start_up_gives_the_collector_back_when_the_command_fails() -> None:
    with pytest.raises(RuntimeError), collector_off_for_start_up():
        raise RuntimeError("bad config")
    assert gc.isenabled()


def test_overlapping_runs_give_back_the_settings_the_first_found() -> None:
    """Two `assay.evaluate` calls in threads: the second saved the first's threshold as its
    caller's and put it back last, leaving the program's collector at the run's setting."""
    before = gc.get_threshold()
    first, second = long_lived_set_aside(), long_lived_set_aside()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert gc.get_threshold()[0] >= YOUNG_OBJECTS  # the second run is still under way
    second.__exit__(None, None, None)
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_objects_the_program_froze_itself_stay_frozen_after_a_run() -> None:
    """A program that froze its heap (`gc.freeze()` before forking workers) found it thawed
    by the run's `gc.unfreeze()` after `assay.evaluate`."""
    gc.freeze()
    try:
        with long_lived_set_aside():
            pass
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
