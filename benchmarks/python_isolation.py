"""What `isolation: process` costs a python target, per trial, against running in assay.

Runs the same trivial function over N cases (default 2,000) with `isolation:
none` and `isolation: process`, as a user would (`assay run` in a fresh
process), each `--repeat` times, and prints the best run time (first trial to
last commit, from the store), the whole process's time and CPU (assay and its
worker processes), and the difference per trial.

    uv run python benchmarks/python_isolation.py [--cases 2000] [--concurrency 1]

The difference is the price of the protocol (a frame each way over a pipe), of
checking for processes the trial started, and of starting the workers.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

TARGET = '''
def answer(case):
    return case.expected
'''

CONFIG = """
name: isolation-{isolation}
dataset: {{path: cases.jsonl}}
target: {{type: python, function: "target:answer", isolation: {isolation}}}
scorers: [{{type: exact_match}}]
run: {{concurrency: {concurrency}, batch_size: 500}}
"""


def run_once(root: Path, isolation: str, concurrency: int) -> tuple[float, float, float]:
    """(run seconds, whole-process seconds, CPU seconds of assay and its workers)."""
    (root / "assay.yaml").write_text(CONFIG.format(isolation=isolation, concurrency=concurrency))
    store = root / "assay.db"
    store.unlink(missing_ok=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "assay", "run", "assay.yaml", "--no-progress",
                             "--no-cache", "-o", "out"], cwd=root, capture_output=True, text=True,
                            env={**os.environ, "ASSAY_STORE": str(store)}, check=False)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        print(result.stdout, result.stderr, sep="\n")
        raise SystemExit(f"assay run failed with exit code {result.returncode}")
    with sqlite3.connect(store) as conn:
        started_at, finished_at = conn.execute("select started_at, finished_at from runs").fetchone()
    run_seconds = (datetime.fromisoformat(finished_at)
                   - datetime.fromisoformat(started_at)).total_seconds()
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return run_seconds, elapsed, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2_000)
    parser.add_argument("--concurrency", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3, help="runs of each mode; the best counts")
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="assay-bench-"))
    (root / "target.py").write_text(TARGET)
    with (root / "cases.jsonl").open("w") as handle:
        for i in range(args.cases):
            handle.write(json.dumps({"id": f"c{i:05d}", "input": "q", "expected": "a"}) + "\n")
    best: dict[str, tuple[float, float, float]] = {}
    for _ in range(args.repeat):
        for isolation in ("none", "process"):
            timing = run_once(root, isolation, args.concurrency)
            best[isolation] = min(best.get(isolation, timing), timing)
    shutil.rmtree(root)
    print(f"{args.cases:,} trials, concurrency {args.concurrency}, best of {args.repeat}")
    for isolation, (run_s, whole_s, cpu_s) in best.items():
        print(f"isolation {isolation:8} run {run_s:6.2f} s ({run_s / args.cases * 1000:.2f} ms "
              f"per trial)   whole process {whole_s:6.2f} s   CPU {cpu_s:6.2f} s")
    extra = (best["process"][0] - best["none"][0]) / args.cases * 1000
    extra_cpu = (best["process"][2] - best["none"][2]) / args.cases * 1000
    print(f"process isolation adds {extra:.2f} ms of run time and {extra_cpu:.2f} ms of CPU "
          "per trial")


if __name__ == "__main__":
    main()
