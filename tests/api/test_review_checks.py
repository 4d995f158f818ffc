"""What a run's review will need, checked before its first trial: gates left out of a run
of some conditions, and the rest refused at once."""

from __future__ import annotations

from pathlib import Path

from assay.api.review_checks import without_gates_left_out
from assay.config.loading import load_config
from assay.runner.options import RunOptions
from tests.cli.evalproject import write_project


def test_a_gate_left_out_by_condition_is_left_out_of_this_run_only(tmp_path: Path) -> None:
    """The gates left out of a `--condition` run came off the loaded config itself, so a
    program running the same loaded config again, whole, ran it without them."""
    config = write_project(tmp_path, {"base": {"rate": 0.5}, "v2": {"rate": 0.9}}, cases=4,
                           extra={"gates": [
                               {"scorer": "exact_match", "condition": "v2", "min_pass_rate": 0.5},
                               {"scorer": "exact_match", "condition": "base",
                                "min_pass_rate": 0.5}]})
    loaded = load_config(config)
    narrowed, options = without_gates_left_out(loaded, RunOptions(conditions=["base"]))
    assert [gate.condition for gate in narrowed.config.gates] == ["base"]
    assert [gate.condition for gate in loaded.config.gates] == ["v2", "base"]
    assert options.warnings == [("1 gate not checked: exact_match@v2, on a condition this run "
                                "leaves out (--condition base)")]


def test_a_regression_gate_on_a_condition_left_out_is_left_out_with_the_threshold_gates(
        tmp_path: Path) -> None:
    """It stayed in, and the review failed the run (exit 1) for 'no metric to compare'
    on the condition the run had been told to leave out."""
    config = write_project(tmp_path, {"base": {"rate": 0.5}, "v2": {"rate": 0.9}}, cases=4,
                           extra={"gates": [
                               {"regression": {"scorer": "exact_match", "condition": "v2"}},
                               {"regression": {"condition": "base"}},
                               {"regression": {"scorer": "exact_match"}}]})
    narrowed, options = without_gates_left_out(load_config(config),
                                               RunOptions(conditions=["base"]))
    assert [gate.condition for gate in narrowed.config.gates] == ["base", None]
    assert options.warnings == [("1 gate not checked: regression exact_match@v2, on a "
                                 "condition this run leaves out (--condition base)")]
