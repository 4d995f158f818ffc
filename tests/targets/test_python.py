"""The `python` target run by `assay run`: what the function raises is its trial's error."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

from tests.cli.conftest import Cli

RAISES_ITS_OWN_KEYBOARD_INTERRUPT = """
{prefix}def answer(case):
    if case.id == "c1":
        raise KeyboardInterrupt("the function's own")
    return "a"
"""


@pytest.mark.skipif(sys.platform == "win32", reason="isolation: process needs POSIX")
@pytest.mark.parametrize("target", [
    {"threaded": False}, {"threaded": True}, {"isolation": "process"}, {"async": True}],
    ids=["threaded-false", "threaded", "isolation-process", "async"])
def test_a_keyboard_interrupt_the_function_raises_is_its_trials_error_not_ctrl_c(
        tmp_path: Path, target: dict[str, object]) -> None:
    """Regression: a `threaded: false` or `async def` function raising KeyboardInterrupt
    itself (no Ctrl-C pressed) stopped the run as 'interrupted', exit 130. It is that
    trial's error, as in a worker thread or a worker process, and the run goes on."""
    is_async = bool(target.pop("async", False))
    (tmp_path / "agent.py").write_text(
        RAISES_ITS_OWN_KEYBOARD_INTERRUPT.format(prefix="async " if is_async else ""))
    (tmp_path / "cases.jsonl").write_text("".join(
        json.dumps({"id": f"c{i}", "input": "q", "expected": "a"}) + "\n" for i in range(3)))
    (tmp_path / "assay.yaml").write_text(yaml.safe_dump({
        "name": "own", "dataset": {"path": "cases.jsonl"},
        "target": {"type": "python", "function": "agent:answer", **target},
        "scorers": [{"type": "exact_match"}], "run": {"concurrency": 1}}))
    result = Cli(tmp_path)("run", "assay.yaml", "--no-progress", "-o", "out", timeout=60)
    assert result.returncode == 0, result.stderr
    assert "interrupted" not in result.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["run"]["status"] == "completed"
    errors = {trial["case_id"]: trial["error"] for trial in results["trials"] if trial["error"]}
    assert errors == {"c1": "agent:answer raised KeyboardInterrupt: the function's own"}
