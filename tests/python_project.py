"""A one-file eval project in a folder: a python target, its cases, and its config, for the
tests that run `assay` in a child process and need nothing else."""

from __future__ import annotations

import json
import os
from pathlib import Path


def write_python_project(root: Path, agent: str, *, name: str, cases: int, run: str,
                         expected: str = "a", id_digits: int = 1,
                         store: str = "assay.db") -> dict[str, str]:
    """agent.py (`agent`, with `answer(case)`), cases.jsonl (`cases` cases c0, c1, ... whose
    expected answer is `expected`) and assay.yaml (`run` is the YAML of its `run:` block);
    the environment that points `assay` at the folder's store `store`."""
    (root / "agent.py").write_text(agent)
    (root / "cases.jsonl").write_text("".join(
        json.dumps({"id": f"c{i:0{id_digits}d}", "input": "q", "expected": expected}) + "\n"
        for i in range(cases)))
    (root / "assay.yaml").write_text(
        f"name: {name}\ndataset: {{path: cases.jsonl}}\n"
        "target: {type: python, function: 'agent.py:answer'}\n"
        f"scorers: [{{type: exact_match}}]\nrun: {run}\n")
    return {**os.environ, "ASSAY_STORE": str(root / store), "COLUMNS": "160"}
