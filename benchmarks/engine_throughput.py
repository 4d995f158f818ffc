"""Framework overhead of `assay run` on a large dataset.

Generates N cases (default 100,000) and runs them through a trivial python
target and three deterministic scorers, pinned to one core, as a user would
(`assay run` in a fresh process). Reports trials per second over the run
itself (first trial to last commit, from the store) and over the whole
process (adding start-up, the dataset scan, the summary, the comparisons and
the three report files), and the peak RSS.

    uv run python benchmarks/engine_throughput.py [--cases 100000] [--cores 0]

Targets (issue 2): >= 3,000 trials/s on one core, peak RSS < 400 MB.
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
    return "The answer is " + case.expected
'''

CONFIG = """
name: throughput
dataset: {{path: cases.jsonl}}
target: {{type: python, function: "target:answer", threaded: {threaded}}}
scorers:
  - {{type: exact_match, value: "The answer is {{{{ expected }}}}"}}
  - {{type: contains}}
  - {{type: token_f1}}
run: {{concurrency: {concurrency}, batch_size: 1000}}
{conditions}"""


def write_workload(root: Path, cases: int, threaded: bool, concurrency: int,
                   conditions: int) -> None:
    (root / "target.py").write_text(TARGET)
    block = ("conditions: {" + ", ".join(f"c{i}: {{}}" for i in range(conditions)) + "}\n"
             if conditions > 1 else "")
    (root / "assay.yaml").write_text(CONFIG.format(threaded=str(threaded).lower(),
                                                   concurrency=concurrency, conditions=block))
    with (root / "cases.jsonl").open("w") as handle:
        for i in range(cases):
            handle.write(json.dumps({"id": f"case-{i:06d}", "input": f"What is item {i}?",
                                     "expected": f"value {i}", "tags": [f"group-{i % 10}"],
                                     "difficulty": ("easy", "medium", "hard")[i % 3]}) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--cores", default="0", help="taskset CPU list (default: one core, 0)")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--threaded", action="store_true",
                        help="run the sync target in worker threads (the default for python targets)")
    parser.add_argument("--conditions", type=int, default=1,
                        help="conditions per case (trials = cases x conditions; 2 or more adds "
                             "the paired comparison of conditions)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="assay-bench-"))
    write_workload(root, args.cases, args.threaded, args.concurrency, args.conditions)
    command = [sys.executable, "-m", "assay", "run", "assay.yaml", "--no-progress"]
    if shutil.which("taskset") and args.cores:
        command = ["taskset", "-c", args.cores, *command]
    started = time.perf_counter()
    result = subprocess.run(command, cwd=root, capture_output=True, text=True,
                            env={**os.environ, "ASSAY_STORE": str(root / "assay.db")})
    elapsed = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    if result.returncode != 0:
        print(result.stdout, result.stderr, sep="\n")
        raise SystemExit(f"assay run failed with exit code {result.returncode}")
    with sqlite3.connect(root / "assay.db") as conn:
        started_at, finished_at = conn.execute("select started_at, finished_at from runs").fetchone()
    run_seconds = (datetime.fromisoformat(finished_at)
                   - datetime.fromisoformat(started_at)).total_seconds()
    print(f"cases:        {args.cases:,} x {args.conditions} condition(s)  (cores: {args.cores or 'all'}, "
          f"concurrency {args.concurrency}, threaded target: {args.threaded})")
    trials = args.cases * args.conditions
    print(f"run:          {run_seconds:.2f} s  = {trials / run_seconds:,.0f} trials/s "
          "(first trial to last commit)")
    print(f"whole process {elapsed:.2f} s  = {trials / elapsed:,.0f} trials/s "
          "(start-up, scan, run, summary, comparisons, results.json, report.md, report.html)")
    print(f"peak RSS:     {peak_mb:,.0f} MB")
    if args.keep:
        print(f"work dir:     {root}")
    else:
        shutil.rmtree(root)


if __name__ == "__main__":
    main()
