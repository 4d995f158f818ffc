"""The `assay` group: what every command checks before it starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a folder in use is kept")


@pytest.mark.parametrize("args", [["validate", "CONFIG"], ["run", "CONFIG"], ["runs"]])
def test_a_command_started_in_a_deleted_folder_says_so_and_exits_2(
        tmp_path: Path, args: list[str]) -> None:
    """Before, `cd x; rmdir ../x; assay validate /abs/c.yaml` stopped with 'internal error:
    FileNotFoundError: [Errno 2] No such file or directory', exit 3, naming nothing."""
    config = tmp_path / "c.yaml"
    config.write_text("name: x\n", encoding="utf-8")
    gone = tmp_path / "gone"
    gone.mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "assay", *[str(config) if a == "CONFIG" else a for a in args]],
        cwd=gone, preexec_fn=lambda: os.rmdir(os.getcwd()), capture_output=True, text=True,
        timeout=120, check=False)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("error: the working directory no longer exists")
    assert "internal error" not in result.stderr
