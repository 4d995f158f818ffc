"""`epochs: 3` makes three real calls per case, through the real SDK and the fake LLM server.

Regression: epochs 2 and 3 were answered from epoch 1's cache entry, so
"repeated measurement" measured one answer three times. Each epoch is its
own sample; a second run of the same config gets every epoch's stored
answer and sends nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

from assay.testing import FakeLLM

CASES = ["What is 2+2?", "Name a prime.", "Capital of France?", "Colour of the sky?"]
CONFIG = """name: epochs
dataset: {path: cases.jsonl}
target: {type: model, model: openai/gpt-4.1-mini}
scorers: [{type: contains}]
run: {epochs: 3, concurrency: CONCURRENCY}
"""


def assay(cwd: Path, llm: FakeLLM, out: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OPENAI_BASE_URL": llm.base_url, "OPENAI_API_KEY": "sk-test-e2e-key",
           "ASSAY_STORE": str(cwd / "assay.db")}
    return subprocess.run([sys.executable, "-m", "assay", "run", "assay.yaml", "-o", out,
                           "--no-progress"], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=180)


def write_project(root: Path, concurrency: int) -> None:
    lines = [json.dumps({"id": f"c{i}", "input": q, "expected": "4"})
             for i, q in enumerate(CASES)]
    (root / "cases.jsonl").write_text("\n".join(lines) + "\n")
    (root / "assay.yaml").write_text(CONFIG.replace("CONCURRENCY", str(concurrency)))


def test_three_epochs_make_three_calls_per_case_and_a_rerun_makes_none(tmp_path: Path) -> None:
    for concurrency in (1, 8):  # at any concurrency: no epoch waits on another's answer
        root = tmp_path / f"c{concurrency}"
        root.mkdir()
        write_project(root, concurrency)
        with FakeLLM(default="4") as llm:
            first = assay(root, llm, "first")
            per_case = Counter(r.last_user for r in llm.requests)
            sent_first = llm.received
            second = assay(root, llm, "second")
            sent_second = llm.received - sent_first
        assert first.returncode == 0, first.stderr
        assert per_case == {q: 3 for q in CASES}
        assert second.returncode == 0, second.stderr
        assert sent_second == 0
        stats = json.loads((root / "second" / "results.json").read_text())["stats"]
        assert stats["conditions"][0]["cache_hits"] == 3 * len(CASES)
