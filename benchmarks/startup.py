"""Whole-process times of the commands people start with, from `assay --help` to 5,000 cases.

Every measurement is a fresh `assay` process, as a user starts it, timed from
spawn to exit, repeated (median, min and max of `--repeat`, default 5), each
repetition in a fresh folder with a fresh store:

- `assay --help`;
- the quickstart (`examples/quickstart`: a python target, three deterministic
  scorers, two conditions compared);
- a `model` run with a judge (`judge_score`) against the fake LLM server
  (`python -m assay.testing`, in its own process as a remote API would be),
  OpenAI protocol, no cache: 1 case, then 1,000 and 5,000 cases, each case two
  requests one after the other (the answer, then the judge), `--latency`
  50 ms per request, `--concurrency` 32. The ideal is cases x 2 x latency /
  concurrency; wall/ideal says how close the whole process comes to it.

Beside the wall time each line gives the process's CPU time (user + system)
and peak RSS, which swing much less with the load of a shared machine. One
untimed run of each command comes first, with bytecode caching allowed, so
the timed runs read compiled modules as an installed package does.

    uv run python benchmarks/startup.py [--repeat 5] [--only help,quickstart,model1,model1000,model5000]

Targets (issue 14): --help <= 0.15 s; quickstart <= 0.6 s; one-case model run with a
judge <= 1.2 s; 1,000 cases <= 1.6x the ideal and 5,000 cases <= 1.2x, whole process.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

MODEL_CONFIG = """
name: judged-model
dataset: {{path: cases.jsonl}}
providers:
  fake: {{kind: openai, base_url: "{base_url}", api_key_env: BENCH_KEY,
          max_connections: {concurrency}}}
target: {{type: model, model: fake/answer-model}}
judge: {{model: fake/judge-model}}
scorers: [{{type: judge_score}}]
run: {{concurrency: {concurrency}}}
"""


@dataclass(frozen=True)
class Sample:
    wall: float
    cpu: float
    peak_mb: float


@dataclass(frozen=True)
class Scenario:
    name: str
    command: list[str]
    prepare: Callable[[Path], None]
    """Fills a fresh working folder before each run."""
    ideal: float | None = None


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> Sample:
    """Run one process to its end: wall time, user + system CPU and peak RSS from wait4."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    assert process.stdout is not None and process.stderr is not None
    out, err = process.stdout.read(), process.stderr.read()
    process.stdout.close()
    process.stderr.close()
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({process.returncode}):\n"
                         f"{out.decode()[-2000:]}\n{err.decode()[-2000:]}")
    return Sample(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def measure(scenario: Scenario, repeat: int, env: dict[str, str]) -> list[Sample]:
    samples = []
    for attempt in range(repeat + 1):  # the first is the untimed warm-up
        with tempfile.TemporaryDirectory(prefix="assay-startup-") as folder:
            work = Path(folder)
            scenario.prepare(work)
            run_env = {**env, "ASSAY_STORE": str(work / "assay.db")}
            if attempt == 0:
                run_env.pop("PYTHONDONTWRITEBYTECODE", None)
            sample = timed(scenario.command, work, run_env)
        if attempt:
            samples.append(sample)
    return samples


def copy_quickstart(work: Path) -> None:
    for path in (REPO / "examples" / "quickstart").iterdir():
        if path.name in (".assay", "__pycache__"):
            continue
        if path.is_dir():
            shutil.copytree(path, work / path.name)
        else:
            shutil.copy(path, work / path.name)


def model_workload(base_url: str, cases: int, concurrency: int) -> Callable[[Path], None]:
    def prepare(work: Path) -> None:
        (work / "assay.yaml").write_text(MODEL_CONFIG.format(base_url=base_url,
                                                             concurrency=concurrency))
        with (work / "cases.jsonl").open("w") as handle:
            for i in range(cases):
                handle.write(json.dumps({"id": f"q{i:05d}", "input": f"Question {i}?",
                                         "expected": "8"}) + "\n")
    return prepare


def start_server(latency: float) -> tuple[subprocess.Popen[str], str]:
    """The fake LLM in its own process; its judge answers verdicts, the model says "8"."""
    server = subprocess.Popen(
        [sys.executable, "-m", "assay.testing", "--latency", str(latency), "--reply", "8"],
        stdout=subprocess.PIPE, text=True)
    assert server.stdout is not None
    return server, server.stdout.readline().strip()


def report(scenario: Scenario, samples: list[Sample]) -> dict[str, object]:
    walls = [s.wall for s in samples]
    line: dict[str, object] = {
        "scenario": scenario.name,
        "runs": len(samples),
        "wall_median_s": round(statistics.median(walls), 3),
        "wall_min_s": round(min(walls), 3),
        "wall_max_s": round(max(walls), 3),
        "cpu_median_s": round(statistics.median(s.cpu for s in samples), 3),
        "peak_rss_mb": round(max(s.peak_mb for s in samples)),
    }
    if scenario.ideal:
        line["ideal_s"] = round(scenario.ideal, 3)
        line["wall_over_ideal"] = round(statistics.median(walls) / scenario.ideal, 2)
    return line


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--only", default="help,quickstart,model1,model1000,model5000",
                        help="comma-separated scenarios to run")
    args = parser.parse_args()
    chosen = args.only.split(",")
    assay = [sys.executable, "-m", "assay"]
    env = {**os.environ, "BENCH_KEY": "bench", "COLUMNS": "120"}
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        env.pop(name, None)

    scenarios = [Scenario("help", [*assay, "--help"], lambda work: None),
                 Scenario("quickstart", [*assay, "run", "assay.yaml", "--no-progress"],
                          copy_quickstart)]
    server, base_url = start_server(args.latency)
    try:
        for cases in (1, 1000, 5000):
            scenarios.append(Scenario(
                f"model{cases}", [*assay, "run", "assay.yaml", "--no-cache", "--no-progress"],
                model_workload(base_url, cases, args.concurrency),
                ideal=cases * 2 * args.latency / args.concurrency if cases > 1 else None))
        for scenario in scenarios:
            if scenario.name in chosen:
                print(json.dumps(report(scenario, measure(scenario, args.repeat, env))),
                      flush=True)
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
