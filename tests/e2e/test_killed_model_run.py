"""A model run killed mid-way keeps the LLM reply of every trial it stored.

Replies reach the store in batches; the runner writes the replies a batch of
trials used before the trials themselves. So after a SIGKILL, running the
config again pays only for the trials the killed run did not keep.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from assay.testing import FakeLLM
from assay.testing.script import Reply, Rule

CONFIG = """name: killed
dataset: {path: cases.jsonl}
target: {type: model, model: openai/gpt-4.1-mini}
scorers: [{type: contains}]
run: {concurrency: 1, batch_size: 1}
"""
CASES = [f"question {i}" for i in range(5)] + ["hold on", "question 6", "question 7"]


def count(db: Path, table: str) -> int:
    try:
        with sqlite3.connect(db) as conn:
            return int(conn.execute(f"select count(*) from {table}").fetchone()[0])
    except sqlite3.Error:  # not created yet
        return 0


def assay(root: Path, llm: FakeLLM) -> subprocess.Popen[str]:
    env = {**os.environ, "OPENAI_BASE_URL": llm.base_url, "OPENAI_API_KEY": "sk-test-e2e-key",
           "ASSAY_STORE": str(root / "assay.db")}
    return subprocess.Popen([sys.executable, "-m", "assay", "run", "assay.yaml", "--no-progress"],
                            cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def test_after_a_kill_running_again_pays_only_for_the_trials_not_kept(tmp_path: Path) -> None:
    (tmp_path / "assay.yaml").write_text(CONFIG)
    (tmp_path / "cases.jsonl").write_text("".join(
        json.dumps({"id": f"c{i}", "input": q, "expected": "4"}) + "\n"
        for i, q in enumerate(CASES)))
    db = tmp_path / "assay.db"
    held = Rule(user="hold on", reply=Reply(text="4", latency=60.0), times=1)
    with FakeLLM(rules=[held], default="4") as llm:
        first = assay(tmp_path, llm)
        deadline = time.monotonic() + 60
        while count(db, "trials") < 5 and time.monotonic() < deadline:
            time.sleep(0.02)
        first.send_signal(signal.SIGKILL)
        first.communicate()
        kept, cached = count(db, "trials"), count(db, "response_cache")
        sent_before = llm.received

        second = assay(tmp_path, llm)
        _, err = second.communicate(timeout=120)
        sent_again = llm.received - sent_before

    assert kept == 5, "the kill should land while the sixth case waits for its answer"
    assert cached >= kept  # every stored trial's reply was stored before it
    assert second.returncode == 0, err
    assert sent_again == len(CASES) - kept
