"""Serve the fake LLM from the command line: `python -m assay.testing --latency 0.05`.

Prints the base URL on the first line of stdout, then serves until
interrupted. Useful to point `assay run` (OPENAI_BASE_URL / ANTHROPIC_BASE_URL)
or a benchmark at an endpoint in another process.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib

from assay.testing.fake_llm import FakeLLM


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m assay.testing", description=__doc__)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per answer")
    parser.add_argument("--reply", default="ok", help="the text every request gets")
    parser.add_argument("--fault", action="append", default=[], metavar="KIND=RATE",
                        help="inject a fault at a rate, e.g. rate_limit=0.1 (repeatable)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rates = {kind: float(rate) for kind, rate in (item.split("=", 1) for item in args.fault)}

    async def serve() -> None:
        async with FakeLLM(default=args.reply, latency=args.latency, fault_rates=rates,
                           seed=args.seed, record=False) as llm:
            print(llm.base_url, flush=True)
            await asyncio.Event().wait()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve())


if __name__ == "__main__":
    main()
