"""An end-to-end project: questions and a config in a folder, run by `assay run` in its own
process with the OpenAI SDK pointed at the fake LLM server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from assay.testing import FakeLLM

CRASHING_SERVER = Path(__file__).resolve().parents[1] / "context" / "servers" / "crashing_server.py"
"""A stdio MCP server (the official SDK's) that crashes on the calls it is told to."""


def write_project(root: Path, config: str, questions: dict[str, str],
                  expected: str = "4") -> None:
    """`assay.yaml` and `cases.jsonl` (one case per question id, all expecting `expected`)."""
    (root / "cases.jsonl").write_text("".join(
        json.dumps({"id": cid, "input": q, "expected": expected}) + "\n"
        for cid, q in questions.items()))
    (root / "assay.yaml").write_text(config)


def run_assay(root: Path, llm: FakeLLM, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """`assay run assay.yaml -o out` in `root`, its store there too."""
    env = {**os.environ, "OPENAI_BASE_URL": llm.base_url, "OPENAI_API_KEY": "sk-test-e2e-key",
           "ASSAY_STORE": str(root / "assay.db"), "COLUMNS": "200"}
    return subprocess.run([sys.executable, "-m", "assay", "run", "assay.yaml", "-o", "out",
                           "--no-progress"], check=False, cwd=root, env=env,
                          capture_output=True, text=True, timeout=timeout)
