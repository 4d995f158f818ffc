"""A python target that crashes assay's process leaves its own stack on stderr."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.evalproject import write_project

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

CRASHES = '''
import ctypes


def answer(case):
    if case.id == "q003":
        ctypes.string_at(0)  # reads address 0: SIGSEGV, in assay's own process
    return case.expected
'''


def test_a_segfault_in_an_in_process_target_names_the_function_and_line_that_crashed(
        tmp_path: Path) -> None:
    """Before, the run ended with nothing on stderr: the shell's `Segmentation fault` was
    all a user saw, with no word of which function or line."""
    config = write_project(tmp_path, {"only": {}}, cases=6, extra={
        "target": {"type": "python", "function": "crashes.py:answer", "threaded": False},
        "run": {"concurrency": 1}})
    (tmp_path / "crashes.py").write_text(CRASHES, encoding="utf-8")

    crashed = subprocess.run([sys.executable, "-m", "assay", "run", config.name, "--no-progress"],
                             cwd=tmp_path, capture_output=True, text=True, timeout=120,
                             check=False)

    assert crashed.returncode == -signal.SIGSEGV
    assert "Segmentation fault" in crashed.stderr
    assert f'File "{tmp_path / "crashes.py"}", line 7 in answer' in crashed.stderr

    listed = subprocess.run([sys.executable, "-m", "assay", "runs"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120, check=False)
    assert "resume with --resume" in listed.stdout + listed.stderr
