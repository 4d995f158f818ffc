"""`assay run c.yaml >&-`: a command started with a standard stream closed runs to its end."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from assay.store import Store
from tests.cli.evalproject import write_project

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX descriptors")


def started_with_closed(descriptors: tuple[int, ...], args: list[str],
                        cwd: Path) -> subprocess.CompletedProcess[str]:
    """`ARGS` in a process whose `descriptors` are closed when it starts (as `>&-` does)."""
    def close() -> None:
        for descriptor in descriptors:
            os.close(descriptor)

    stderr = None if 2 in descriptors else subprocess.PIPE
    return subprocess.run(args, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                          stderr=stderr, text=True, timeout=120, preexec_fn=close, check=False)


@pytest.mark.parametrize("closed", [(1,), (0, 1, 2)], ids=["stdout", "every stream"])
def test_a_run_started_with_its_stdout_closed_stores_every_trial_and_exits_0(
        tmp_path: Path, closed: tuple[int, ...]) -> None:
    """Before, the first line printed raised AttributeError ('NoneType' object has no
    attribute 'write'): exit 3, and the run was left failed with none of its trials."""
    write_project(tmp_path, {"only": {"rate": 1.0}}, cases=5)
    result = started_with_closed(closed, [sys.executable, "-m", "assay", "run", "assay.yaml"],
                                 tmp_path)
    assert result.returncode == 0, result.stderr
    store = Store(f"sqlite:///{tmp_path / '.assay' / 'assay.db'}")
    [run] = store.list_runs("coin")
    assert run.status == "completed" and store.count_trials(run.id)[0] == 5


def test_a_file_opened_after_a_closed_stdout_does_not_take_its_place(tmp_path: Path) -> None:
    """The lowest free descriptor went to the next file opened (the store), so a child's
    or a library's 'stdout' would have written into it."""
    program = ("from assay.cli.closed_streams import open_closed_streams\n"
               "open_closed_streams()\n"
               "import os, sys\n"
               "descriptor = os.open('f', os.O_WRONLY | os.O_CREAT)\n"
               "print('printed')\n"
               "sys.stderr.write(str(descriptor))\n")
    result = started_with_closed((1,), [sys.executable, "-c", program], tmp_path)
    assert result.returncode == 0, result.stderr
    assert int(result.stderr) > 2
    assert (tmp_path / "f").read_text() == ""
