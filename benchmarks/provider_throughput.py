"""Throughput of the provider layer against an LLM endpoint with fixed latency.

Starts the fake LLM server in its own process (as a remote API would be),
then sends N requests through `ProviderPool` (official SDK, retries,
endpoint limit, cache key, cost accounting) at a given concurrency, and
compares the elapsed time with the ideal: requests x latency / concurrency.

    uv run python benchmarks/provider_throughput.py [--requests 2000] [--latency 0.05]
        [--concurrency 32] [--protocol openai|anthropic|both] [--backend aiohttp|httpx]

    uv run python benchmarks/provider_throughput.py --through runner [--cases 1000]

`--through runner` measures a whole `assay run` as a user starts it: a
1,000-case dataset, a `model` target and one `judge_score` judge (2 requests
per case, one after the other), `--concurrency` trials in flight, no cache.
The ideal is then cases x 2 x latency / concurrency. It reports the run's own
time (from the store: first trial to last commit), the process's wall time
(which adds interpreter start-up, imports and the reports) and the CPU the
`assay run` process used, per request: on a machine shared with other work
the wall times swing with the load, the CPU per request much less.

Target (issue 3): within 1.25x the ideal at 50 ms latency and concurrency 32.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

from assay.providers.base import ChatRequest
from assay.providers.config import ProviderConfig
from assay.providers.pool import ProviderPool


def start_server(latency: float, reply: str = "ok") -> tuple[subprocess.Popen[str], str]:
    server = subprocess.Popen(
        [sys.executable, "-m", "assay.testing", "--latency", str(latency), "--reply", reply],
        stdout=subprocess.PIPE, text=True,
    )
    assert server.stdout is not None
    return server, server.stdout.readline().strip()


async def through_providers(base_url: str, protocol: str, args: argparse.Namespace) -> float:
    config = ProviderConfig(name=protocol, kind=protocol, base_url=base_url,  # type: ignore[arg-type]
                            max_connections=args.concurrency, http_backend=args.backend)
    pool = ProviderPool({protocol: config}, use_cache=False,
                        environ={"ANTHROPIC_API_KEY": "bench", "OPENAI_API_KEY": "bench"})
    provider, model = pool.resolve(f"{protocol}/bench-model")

    async def one(i: int) -> None:
        await provider.chat(ChatRequest(
            model=model, system="Answer the question.", temperature=0,
            messages=[{"role": "user", "content": f"Question number {i}?"}]))

    await asyncio.gather(*(one(-i) for i in range(1, args.concurrency + 1)))  # warm connections
    started = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(args.requests)))
    elapsed = time.perf_counter() - started
    stats = pool.stats()
    await pool.aclose()
    assert stats.total.calls == args.requests + args.concurrency, stats
    return elapsed


RUNNER_CONFIG = """
name: judge-throughput
dataset: {{path: cases.jsonl}}
providers:
  fake: {{kind: openai, base_url: "{base_url}", api_key_env: BENCH_KEY,
          max_connections: {concurrency}}}
target: {{type: model, model: fake/answer-model}}
judge: {{model: fake/judge-model}}
scorers: [{{type: judge_score}}]
run: {{concurrency: {concurrency}}}
"""


def through_runner(base_url: str, args: argparse.Namespace) -> dict[str, float]:
    root = Path(tempfile.mkdtemp(prefix="assay-judge-bench-"))
    (root / "assay.yaml").write_text(RUNNER_CONFIG.format(base_url=base_url,
                                                          concurrency=args.concurrency))
    with (root / "cases.jsonl").open("w") as handle:
        for i in range(args.cases):
            handle.write(json.dumps({"id": f"q{i:05d}", "input": f"Question {i}?",
                                     "expected": "8"}) + "\n")
    started, cpu_before = time.perf_counter(), _children_cpu()
    result = subprocess.run(
        [sys.executable, "-m", "assay", "run", "assay.yaml", "--no-cache", "--no-progress",
         "--store", str(root / "assay.db")],
        cwd=root, capture_output=True, text=True, env={**os.environ, "BENCH_KEY": "bench"},
        check=False)
    wall, cpu = time.perf_counter() - started, _children_cpu() - cpu_before
    if result.returncode != 0:
        raise SystemExit(f"assay run failed ({result.returncode}):\n{result.stderr}")
    with sqlite3.connect(root / "assay.db") as conn:
        first, last = conn.execute("select started_at, finished_at from runs").fetchone()
        trials, errors = conn.execute("select count(*), count(error) from trials").fetchone()
    run_seconds = (datetime.fromisoformat(last) - datetime.fromisoformat(first)).total_seconds()
    assert trials == args.cases and errors == 0, (trials, errors)
    return {"run_s": run_seconds, "wall_s": wall, "cpu_s": cpu}


def _children_cpu() -> float:
    """User + system CPU seconds of the child processes that have ended (the server has not)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--protocol", choices=["openai", "anthropic", "both"], default="both")
    parser.add_argument("--backend", choices=["aiohttp", "httpx"], default="aiohttp")
    parser.add_argument("--through", choices=["providers", "runner"], default="providers",
                        help="the layer measured: the provider pool, or a whole `assay run`")
    parser.add_argument("--cases", type=int, default=1000, help="with --through runner")
    args = parser.parse_args()
    if args.through == "runner":
        ideal = args.cases * 2 * args.latency / args.concurrency
        server, base_url = start_server(args.latency, reply="8")  # a verdict the judge reads
        try:
            timing = through_runner(base_url, args)
        finally:
            server.terminate()
            server.wait(timeout=10)
        print(json.dumps({"cases": args.cases, "requests": args.cases * 2,
                          "concurrency": args.concurrency, "latency_s": args.latency,
                          "ideal_s": round(ideal, 3), "run_s": round(timing["run_s"], 3),
                          "ratio": round(timing["run_s"] / ideal, 3),
                          "process_wall_s": round(timing["wall_s"], 3),
                          "process_cpu_s": round(timing["cpu_s"], 3),
                          "process_cpu_ms_per_request": round(
                              timing["cpu_s"] * 1000 / (args.cases * 2), 3)}))
        return
    protocols = ["openai", "anthropic"] if args.protocol == "both" else [args.protocol]
    ideal = args.requests * args.latency / args.concurrency
    server, base_url = start_server(args.latency)
    results = []
    try:
        for protocol in protocols:
            elapsed = asyncio.run(through_providers(base_url, protocol, args))
            results.append({"protocol": protocol, "requests": args.requests,
                            "concurrency": args.concurrency, "latency_s": args.latency,
                            "backend": args.backend, "elapsed_s": round(elapsed, 3),
                            "ideal_s": round(ideal, 3), "ratio": round(elapsed / ideal, 3)})
    finally:
        server.terminate()
        server.wait(timeout=10)
    for result in results:
        print(json.dumps(result))
    worst = max(result["ratio"] for result in results)
    print(f"worst ratio {worst:.3f} (target <= 1.25)")


if __name__ == "__main__":
    main()
