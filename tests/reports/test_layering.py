"""Reports are pure renderers of typed values: they never import the store layer."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

REPORTS = Path(__file__).resolve().parents[2] / "src" / "assay" / "reports"


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_no_report_module_imports_the_store() -> None:
    offenders = {path.name: sorted(m for m in imported_modules(path)
                                   if m == "assay.store" or m.startswith("assay.store."))
                 for path in REPORTS.rglob("*.py")}
    assert {name: found for name, found in offenders.items() if found} == {}


def test_rendering_markdown_loads_no_sqlalchemy() -> None:
    done = subprocess.run([sys.executable, "-X", "importtime", "-c",
                           ("import assay.reports.markdown, assay.reports.html, "
                           "assay.reports.terminal, assay.reports.junit, "
                           "assay.reports.results_json")],
                          capture_output=True, text=True, timeout=60, check=True)
    imported = [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()
                if line.startswith("import time:")]
    assert "assay.reports.markdown" in imported  # the import log is what we think it is
    assert [name for name in imported if name.startswith("sqlalchemy")] == []
