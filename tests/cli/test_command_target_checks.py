"""A command target that cannot run is refused up front; one that hangs is stopped with its children."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from .conftest import Cli

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell scripts")


def write_config(root: Path, command: str, *, timeout: float | None = None) -> None:
    (root / "cases.jsonl").write_text('{"id": "a", "input": "q", "expected": "y"}\n')
    run = f"run: {{timeout: {timeout}}}\n" if timeout else ""
    (root / "assay.yaml").write_text(
        f"name: cmd\ndataset: {{path: cases.jsonl}}\ntarget: {{type: command, command: {command}}}\n"
        f"scorers: [{{type: contains}}]\n{run}")


def test_a_missing_program_fails_validate_and_run_with_exit_2(cli: Cli, tmp_path: Path) -> None:
    write_config(tmp_path, "./nonexistent-agent")
    checked = cli("validate", "assay.yaml")
    assert checked.returncode == 2, checked.stdout + checked.stderr
    assert "'./nonexistent-agent' not found" in checked.stderr
    ran = cli("run", "assay.yaml", "--no-progress")
    assert ran.returncode == 2 and "'./nonexistent-agent' not found" in ran.stderr
    assert "Traceback" not in ran.stderr


def test_a_shell_script_that_sleeps_times_out_on_time(cli: Cli, tmp_path: Path) -> None:
    script = tmp_path / "agent.sh"
    script.write_text("#!/bin/sh\nsleep 30\necho y\n")
    script.chmod(0o755)
    write_config(tmp_path, "./agent.sh", timeout=1)
    started = time.monotonic()
    ran = cli("run", "assay.yaml", "-o", "out", "--no-progress", timeout=60)
    assert ran.returncode == 3, ran.stderr  # its only trial failed: nothing to score
    assert time.monotonic() - started < 20  # was 32 s: the sleep outlived the killed shell
    (trial,) = json.loads(cli("report", "latest", "--format", "json").stdout)["trials"]
    assert trial["error"] == "timeout: no answer within 1s"
