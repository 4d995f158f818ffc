"""The judge-calibration walkthrough judges its own run again, whatever else shares the store."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import yaml

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "judge-calibration"


def test_the_rejudge_step_names_the_walkthroughs_experiment() -> None:
    """Regression: `rejudge latest` took the latest run of any experiment in the store."""
    spec = importlib.util.spec_from_file_location("walkthrough", EXAMPLE / "walkthrough.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    [arguments] = [args for _, args in module.STEPS if args[0] == "rejudge"]
    name = yaml.safe_load((EXAMPLE / "assay.yaml").read_text())["name"]
    assert arguments[arguments.index("-e") + 1] == name
