"""How long a run takes when its store is a PostgreSQL server across a network.

Puts a TCP proxy that holds every chunk `--delay` seconds each way in front
of the PostgreSQL server of `ASSAY_TEST_POSTGRES_URL` (or `--url`), in a
schema of its own (dropped at the end), and runs a judged eval of `--cases`
cases under 3 conditions through it twice, as a user would (`assay run`
against one fake LLM server): the first run pays for every judge call, the
second is answered from the response cache, so it makes one store lookup
per call and little else. Then the same two runs on the server directly
(each pair in a fresh schema: an empty cache).
It reports each run's wall time, the CPU time of its process (not the fake
server's), and through the proxy how many round trips it made per trial.

    ASSAY_TEST_POSTGRES_URL=postgresql+psycopg://assay@127.0.0.1:55432/postgres \\
        uv run python benchmarks/store_latency.py [--cases 2000] [--delay 0.002]

Measured on two shared cores, 6,000 trials, 4 ms away: 129 s for the second run
when each lookup held the event loop, 40 s with lookups in threads (9 s direct).
Both figures were of a run that paid again: each run had a fake server of its own,
on a new port, so nothing was found in the cache. Answered from the cache, with
lookups in threads: 26.5 s, 3.1 round trips a trial (4.4 s direct); with the lookups
waiting at once sent together outside a transaction: 6.8 to 8 s, 0.3 round trips a
trial; with batches of trials committed in a thread as well: 6.1 to 6.5 s, 0.2.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import create_engine, make_url, text

CONFIG = """\
name: bench-store-latency
dataset: {path: cases.jsonl}
target: {type: python, function: "agent:answer", threaded: false}
conditions: {a: {args: {n: 1}}, b: {args: {n: 2}}, c: {args: {n: 3}}}
judge: {model: openai/gpt-4.1}
scorers:
  - {type: judge_score, threshold: 7}
run: {concurrency: 32}
"""
AGENT = "def answer(case, condition, n=1):\n    return f'{case.input} answered {n}'\n"


SENT = [0]
"""Chunks the proxy has carried towards the server: about one per round trip, since a
client waits for the answer before it writes again."""


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float,
                counted: list[int] | None = None) -> None:
    try:
        while data := await reader.read(65536):
            if counted is not None:
                counted[0] += 1
            await asyncio.sleep(delay)
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        writer.close()


def start_proxy(host: str, port: int, delay: float) -> int:
    """A proxy to host:port in a daemon thread, each chunk held `delay` s; its port."""
    ready: list[int] = []
    started = threading.Event()

    async def serve() -> None:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            up_reader, up_writer = await asyncio.open_connection(host, port)
            await asyncio.gather(_pipe(reader, up_writer, delay, SENT),
                                 _pipe(up_reader, writer, delay))
        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        ready.append(server.sockets[0].getsockname()[1])
        started.set()
        await server.serve_forever()

    threading.Thread(target=lambda: asyncio.run(serve()), daemon=True).start()
    started.wait(10)
    return ready[0]


@contextlib.contextmanager
def scratch_schema(server_url: str) -> Iterator[str]:
    name = f"bench_{secrets.token_hex(4)}"
    admin = create_engine(server_url)
    try:
        with admin.begin() as conn:
            conn.execute(text(f'CREATE SCHEMA "{name}"'))
        yield name
    finally:
        with admin.begin() as conn:
            conn.execute(text(f'DROP SCHEMA IF EXISTS "{name}" CASCADE'))
        admin.dispose()


@contextlib.contextmanager
def fake_llm() -> Iterator[dict[str, str]]:
    """The environment of a run against one fake LLM server, started here for every run:
    the cache keys a reply by its endpoint, so a server on a new port per run (as
    `python -m assay.testing -- assay run` starts) would leave the second run nothing cached."""
    server = subprocess.Popen([sys.executable, "-m", "assay.testing"], stdout=subprocess.PIPE,
                              text=True)
    try:
        base_url = (server.stdout.readline() if server.stdout else "").strip()
        if not base_url:
            raise SystemExit("the fake LLM server did not start")
        yield {**os.environ, "OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "sk-fake"}
    finally:
        server.terminate()
        server.wait()


def timed_run(project: Path, store: str, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one `assay run` against the fake LLM server."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "assay", "run", "assay.yaml", "--store", store, "-q",
         "--no-progress"],
        cwd=project, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(done.stdout + done.stderr)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=os.environ.get("ASSAY_TEST_POSTGRES_URL"))
    parser.add_argument("--cases", type=int, default=2_000)
    parser.add_argument("--delay", type=float, default=0.002,
                        help="seconds each chunk is held, each way (0.002: a 4 ms round trip)")
    args = parser.parse_args()
    if not args.url:
        raise SystemExit("set ASSAY_TEST_POSTGRES_URL or pass --url")
    server = make_url(args.url)
    proxy = start_proxy(server.host or "127.0.0.1", server.port or 5432, args.delay)
    with tempfile.TemporaryDirectory() as folder:
        project = Path(folder)
        (project / "assay.yaml").write_text(CONFIG, encoding="utf-8")
        (project / "agent.py").write_text(AGENT, encoding="utf-8")
        with (project / "cases.jsonl").open("w", encoding="utf-8") as out:
            for i in range(args.cases):
                out.write(json.dumps({"id": f"c{i:05d}", "input": f"question {i}?",
                                      "expected": "answered"}) + "\n")
        trials = args.cases * 3
        with fake_llm() as env:
            for label, port in ((f"{args.delay * 2000:g} ms away", proxy), ("direct", server.port)):
                with scratch_schema(args.url) as schema:  # a store of its own: an empty cache
                    store = server.set(host="127.0.0.1", port=port).update_query_dict(
                        {"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)
                    for run in ("paid", "cached"):
                        sent = SENT[0]
                        wall, cpu = timed_run(project, store, env)
                        trips = (f", {(SENT[0] - sent) / trials:4.1f} round trips a trial"
                                 if port == proxy else "")
                        print(f"{label:>11}, {run:>6}: {trials:,} trials in {wall:6.1f} s wall, "
                              f"{cpu:5.1f} s CPU{trips}")


if __name__ == "__main__":
    main()
