"""Drive the CLI as a user would: a subprocess, a working directory, a private store."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


class Cli:
    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd

    def __call__(self, *args: str, env: dict[str, str] | None = None,
                 timeout: float = 120) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "assay", *args], cwd=self.cwd, capture_output=True,
            text=True, timeout=timeout,
            env={**os.environ, "ASSAY_STORE": str(self.cwd / "assay.db"), "COLUMNS": "160",
                 **(env or {})})


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path)
