"""`examples/python-api/evaluate.py` runs as documented, and its second run is diffed with the first."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "python-api" / "evaluate.py"


def run_example(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, check=False,
                          env={**os.environ, "ASSAY_STORE": str(cwd / "assay.db"),
                               "COLUMNS": "200"})


def test_the_example_passes_then_reports_the_cases_version_1_breaks(tmp_path: Path) -> None:
    first = run_example(tmp_path)
    assert first.returncode == 0, first.stderr
    assert "first completed run of this experiment" in first.stdout
    assert "PASS gate exact_match@candidate pass rate" in first.stdout

    second = run_example(tmp_path, "--version", "1")
    assert second.returncode == 1, second.stderr  # the gate fails
    assert "vs previous run" in second.stdout
    assert "newly failing apostrophes@candidate (2): dont, its" in second.stdout
    assert (tmp_path / "assay.db").exists()
    # Like `assay run`, each run wrote its files under .assay/runs/<run id>/.
    written = sorted(p.name for p in (tmp_path / ".assay" / "runs").glob("*/*"))
    assert written == ["report.html", "report.html", "report.md", "report.md",
                       "results.json", "results.json"]
