"""`assay run` and `assay.evaluate` end the same way: the same files, sections and numbers.

Both go through `review.finish_run`, so a config file and the same eval given as
Python arguments must give `results.json`, `report.md` and `report.html` that
differ only in what names the run (its id, times, how the config was given).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import assay

AGENT = '''
import hashlib


def answer(case, rate):
    u = int.from_bytes(hashlib.sha256(case.id.encode()).digest()[:8], "big") / 2**64
    return case.expected if u < rate else "no idea"
'''

CONFIG = """name: parity
dataset: {path: cases.jsonl}
target: {type: python, function: "agent:answer"}
conditions:
  low: {args: {rate: 0.3}}
  high: {args: {rate: 0.8}}
scorers:
  - type: exact_match
  - {type: contains, value: "answer"}
gates:
  - {scorer: exact_match, condition: high, min_pass_rate: 0.5}
run: {concurrency: 4, seed: 7}
"""


def project(root: Path) -> Path:
    root.mkdir()
    (root / "agent.py").write_text(AGENT)
    (root / "cases.jsonl").write_text("".join(
        json.dumps({"id": f"c{i:02d}", "input": f"q{i}", "expected": f"answer {i}",
                    "tags": ["even" if i % 2 == 0 else "odd"]}) + "\n" for i in range(40)))
    (root / "assay.yaml").write_text(CONFIG)
    return root


def run_cli(root: Path) -> Path:
    done = subprocess.run([sys.executable, "-m", "assay", "run", "assay.yaml", "--no-progress",
                           "-o", "out"], cwd=root, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "ASSAY_STORE": str(root / "assay.db")},
                          check=False)
    assert done.returncode == 0, done.stderr
    return root / "out"


def run_api(root: Path) -> Path:
    result = assay.evaluate(
        "parity", data=root / "cases.jsonl", task="agent:answer",
        conditions={"low": {"args": {"rate": 0.3}}, "high": {"args": {"rate": 0.8}}},
        scorers=["exact_match", {"type": "contains", "value": "answer"}],
        gates=[{"scorer": "exact_match", "condition": "high", "min_pass_rate": 0.5}],
        concurrency=4, seed=7, store=root / "assay.db", base_dir=root, output=root / "out")
    assert result.passed and result.files is not None
    assert result.files.directory == root / "out"
    return root / "out"


def without_identity(value: Any, ids: set[str]) -> Any:
    """`value` with what names a run (ids, times, paths, hashes of the config) taken out."""
    if isinstance(value, dict):
        return {k: without_identity(v, ids) for k, v in value.items()
                if k not in {"run", "started_at", "finished_at"} and not k.startswith("latency_ms")}
    if isinstance(value, list):
        return [without_identity(v, ids) for v in value]
    if isinstance(value, str):
        for run_id in ids:
            value = value.replace(run_id, "RUN")
    return value


def sections(markdown: str) -> list[str]:
    return [line for line in markdown.splitlines() if line.startswith("#")]


def table_rows(markdown: str, heading: str) -> list[str]:
    lines = markdown.splitlines()
    start = lines.index(heading)
    rows = []
    for line in lines[start + 1:]:
        if line.startswith("#"):
            break
        if line.startswith("|"):
            rows.append(line)
    return rows


def html_sections(page: str) -> list[str]:
    return re.findall(r'<section[^>]*id="([^"]+)"', page)


def test_the_cli_and_the_python_api_write_the_same_reports(tmp_path: Path) -> None:
    by_cli = run_cli(project(tmp_path / "cli"))
    by_api = run_api(project(tmp_path / "api"))
    cli_json = json.loads((by_cli / "results.json").read_text())
    api_json = json.loads((by_api / "results.json").read_text())
    ids = {cli_json["run"]["id"], api_json["run"]["id"]}
    assert sorted(cli_json) == sorted(api_json)
    for key in ("summary", "stats", "gates", "comparisons", "trials"):
        assert without_identity(cli_json[key], ids) == without_identity(api_json[key], ids), key
    assert cli_json["stats"]["scores"][0]["n"] == 40  # numbers, not only shapes

    cli_md = (by_cli / "report.md").read_text()
    api_md = (by_api / "report.md").read_text()
    assert sections(cli_md) == sections(api_md)
    assert "## Scores" in sections(cli_md)
    assert table_rows(cli_md, "## Scores") == table_rows(api_md, "## Scores")

    cli_html = (by_cli / "report.html").read_text()
    api_html = (by_api / "report.html").read_text()
    assert html_sections(cli_html) == html_sections(api_html)
    assert html_sections(cli_html)  # the page has sections to compare
