"""Throughput of the provider layer against an LLM endpoint with fixed latency.

Starts the fake LLM server in its own process (as a remote API would be),
then sends N requests through `ProviderPool` (official SDK, retries,
endpoint limit, cache key, cost accounting) at a given concurrency, and
compares the elapsed time with the ideal: requests x latency / concurrency.

    uv run python benchmarks/provider_throughput.py [--requests 2000] [--latency 0.05]
        [--concurrency 32] [--protocol openai|anthropic|both] [--backend aiohttp|httpx]

Target (issue 3): within 1.25x the ideal at 50 ms latency and concurrency 32.
`--through runner` (a 1,000-case `assay run` with one judge) is the next step.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time

from assay.providers.base import ChatRequest
from assay.providers.config import ProviderConfig
from assay.providers.pool import ProviderPool


def start_server(latency: float) -> tuple[subprocess.Popen[str], str]:
    server = subprocess.Popen(
        [sys.executable, "-m", "assay.testing", "--latency", str(latency), "--reply", "ok"],
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--protocol", choices=["openai", "anthropic", "both"], default="both")
    parser.add_argument("--backend", choices=["aiohttp", "httpx"], default="aiohttp")
    parser.add_argument("--through", choices=["providers"], default="providers",
                        help="the layer measured (the runner comes next)")
    args = parser.parse_args()
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
