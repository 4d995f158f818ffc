"""Benchmark: how fast `assay traces` reads session logs, and whether memory stays flat.

    uv run python benchmarks/traces_parse.py                       # ~1 GB, the parser alone
    uv run python benchmarks/traces_parse.py --through command     # ~1 GB, the command end to end
    uv run python benchmarks/traces_parse.py --gb 0.25 --through command   # flat: compare sizes
    uv run python benchmarks/traces_parse.py --gb 0.05 --through command --judge
    uv run python benchmarks/traces_parse.py --gb 0.2 --through command --one-session

It writes realistic pi (v3) and Claude Code (2.x) session files (questions,
thinking, tool calls, file reads with multi-kilobyte results, hook progress
lines, split assistant messages); generated data is reused on later runs.
`--one-session` writes one session of that size in one file instead.

`--through parse` streams every file through the readers and the exchange
builder in this process, discarding exchanges as they come. `--through
command` runs `assay traces FILES --no-store` in a child process, as a user
would: metrics, report and guidelines written. Both report MB/s by the
wall clock and per CPU second (steadier on a busy machine), and peak RSS
(the child's own, from wait4, for the command). Flat memory means the peak
does not grow with `--gb`. `--judge` adds a judge model (the fake LLM
server, answering "no findings") to show that judging streams too.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

from assay.traces.sessions import iter_exchanges

DATA = Path(__file__).parent / "data" / "traces"
FILE_BYTES = 25_000_000
WORDS = ["section", "clause", "evidence", "contract", "parser", "theme", "render", "token", "answer", "wiki", "index", "court", "filing", "statute", "amendment", "record", "schedule", "lease", "engine", "fuel", "aircraft"]


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def _file_body(rng: random.Random) -> str:
    return "\n".join(f"{n:6}\u2192{_text(rng, 12)}" for n in range(1, rng.randint(5, 60)))


def _pi_session(rng: random.Random, index: int) -> list[bytes]:
    lines = [{"type": "session", "version": 3, "id": f"s{index}", "timestamp":
              "2026-01-01T00:00:00.000Z", "cwd": "/kb"}]
    lines.append({"type": "session_info", "id": "n0", "parentId": None,
                  "timestamp": "2026-01-01T00:00:00.000Z", "name": f"query: topic {index}"})
    parent, n = "n0", 0
    for q in range(rng.randint(5, 30)):
        def entry(message: dict, q: int = q) -> dict:
            nonlocal parent, n
            n += 1
            e = {"type": "message", "id": f"e{n}", "parentId": parent,
                 "timestamp": f"2026-01-01T00:{q % 60:02}:{n % 60:02}.000Z", "message": message}
            parent = e["id"]
            return e
        lines.append(entry({"role": "user", "content": [{"type": "text", "text": _text(rng, 20)}]}))
        for r in range(rng.randint(1, 4)):
            call = f"c{n}_{r}"
            path = f"sources/{rng.choice(WORDS)}-{rng.randint(1, 40)}.md"
            lines.append(entry({"role": "assistant", "model": "claude-haiku-4-5", "content": [
                {"type": "thinking", "thinking": _text(rng, 40)},
                {"type": "toolCall", "id": call, "name": "read", "arguments": {"path": path}}],
                "usage": {"input": 900, "output": 60, "cacheRead": 4000, "cacheWrite": 0,
                          "totalTokens": 4960, "cost": {"total": 0.0012}},
                "stopReason": "toolUse"}))
            lines.append(entry({"role": "toolResult", "toolCallId": call, "toolName": "read",
                                "content": [{"type": "text", "text": _file_body(rng)}],
                                "isError": False}))
        lines.append(entry({"role": "assistant", "model": "claude-haiku-4-5",
                            "content": [{"type": "text", "text": _text(rng, 150)}],
                            "usage": {"input": 3000, "output": 300, "cost": {"total": 0.002}},
                            "stopReason": "stop"}))
    return [orjson.dumps(line) for line in lines]


def _claude_session(rng: random.Random, index: int) -> list[bytes]:
    base = {"isSidechain": False, "userType": "external", "cwd": "/kb", "sessionId": f"c{index}",
            "version": "2.1.38", "gitBranch": "main"}
    lines: list[dict] = [{"type": "summary", "summary": f"query: topic {index}", "leafUuid": "x"}]
    n = 0

    def line(**fields: object) -> None:
        nonlocal n
        n += 1
        lines.append({**base, "uuid": f"u{index}-{n}", "timestamp": "2026-01-01T00:00:00Z",
                      **fields})
    for _ in range(rng.randint(5, 30)):
        line(type="user", message={"role": "user", "content": _text(rng, 20)})
        for r in range(rng.randint(1, 4)):
            mid, tid = f"msg_{index}_{n}", f"toolu_{index}_{n}_{r}"
            usage = {"input_tokens": 3, "cache_read_input_tokens": 12000, "output_tokens": 40}
            line(type="assistant", message={"id": mid, "role": "assistant", "model":
                 "claude-opus-4-6", "content": [{"type": "text", "text": _text(rng, 15)}],
                 "usage": usage})
            line(type="assistant", message={"id": mid, "role": "assistant", "model":
                 "claude-opus-4-6", "content": [{"type": "tool_use", "id": tid, "name": "Read",
                 "input": {"file_path": f"/kb/{rng.choice(WORDS)}.md"}}], "usage": usage})
            for _ in range(3):
                line(type="progress", data={"type": "hook_progress", "hookEvent": "PreToolUse",
                     "command": "guard.sh"}, toolUseID=tid)
            body = _file_body(rng)
            line(type="user", message={"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": tid, "content": body}]},
                toolUseResult={"type": "text", "file": {"filePath": "/kb/x.md", "content": body}})
        line(type="assistant", message={"id": f"msg_{index}_{n}_end", "role": "assistant",
             "model": "claude-opus-4-6", "content": [{"type": "text", "text": _text(rng, 150)}],
             "usage": {"input_tokens": 3, "output_tokens": 400}})
    return [orjson.dumps(item) for item in lines]


def generate(total_bytes: int) -> list[Path]:
    DATA.mkdir(parents=True, exist_ok=True)
    files: list[Path] = []
    written, index = 0, 0
    while written < total_bytes:
        path = DATA / f"session-{index:04}.jsonl"
        if not path.exists():
            rng = random.Random(index)
            make = _pi_session if index % 2 == 0 else _claude_session
            with path.open("wb") as handle:
                size, session = 0, 0
                while size < FILE_BYTES:
                    chunk = b"\n".join(make(rng, index * 1000 + session)) + b"\n"
                    handle.write(chunk)
                    size += len(chunk)
                    session += 1
        files.append(path)
        written += path.stat().st_size
        index += 1
    return files


def generate_one_session(total_bytes: int) -> list[Path]:
    """One pi session of `total_bytes` in one file (one header, question after question),
    as a session that ran for weeks leaves it: a single session must stream as a folder of
    them does."""
    DATA.mkdir(parents=True, exist_ok=True)
    path = DATA / f"one-session-{total_bytes}.jsonl"
    if not path.exists():
        rng = random.Random(0)
        with path.open("wb") as handle:
            handle.write(_pi_session(rng, 0)[0] + b"\n")
            size, chunk = 0, 0
            while size < total_bytes:  # each chunk's entry ids made its own: e1 -> e7_1
                body = b"\n".join(_pi_session(rng, chunk)[2:])
                for key in (b'"id":"e', b'"parentId":"e'):
                    body = body.replace(key, key + b"%d_" % chunk)
                body += b"\n"
                handle.write(body)
                size += len(body)
                chunk += 1
    return [path]


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_seconds(usage: resource.struct_rusage) -> float:
    return usage.ru_utime + usage.ru_stime


def through_parse(files: list[Path]) -> tuple[float, float, float, str]:
    """Wall and CPU seconds, peak RSS (MB) and a note, streaming exchanges in this process."""
    exchanges = reads = 0
    rss_after_first = 0.0
    cpu = cpu_seconds(resource.getrusage(resource.RUSAGE_SELF))
    start = time.perf_counter()
    for number, path in enumerate(files):
        for exchange in iter_exchanges(path):
            exchanges += 1
            reads += len(exchange.files_read)
        if number == 0:
            rss_after_first = rss_mb()
    seconds = time.perf_counter() - start
    cpu = cpu_seconds(resource.getrusage(resource.RUSAGE_SELF)) - cpu
    note = (f"{exchanges:,} exchanges, {reads:,} reads; RSS after the first file "
            f"{rss_after_first:.0f} MB")
    return seconds, cpu, rss_mb(), note


def through_command(files: list[Path], judge: bool = False) -> tuple[float, float, float, str]:
    """Wall and CPU seconds, peak RSS (MB) and the summary of `assay traces` run as a user does.

    With `judge`, every answered question also goes to a judge model: the fake LLM server
    on 127.0.0.1, replying "no findings", so what is measured is the streaming, not a model.
    """
    if not judge:
        return _run_command(files, [], None)
    from assay.testing import FakeLLM, Reply

    with FakeLLM(default=Reply(json={"findings": []})) as llm:
        env = {**os.environ, "OPENAI_BASE_URL": llm.base_url, "OPENAI_API_KEY": "benchmark"}
        result = _run_command(files, ["--judge-model", "openai/benchmark-judge"], env)
        print(f"  the judge answered {llm.answered:,} questions")
    return result


def _run_command(files: list[Path], extra: list[str], env: dict[str, str] | None
                 ) -> tuple[float, float, float, str]:
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, "-m", "assay", "traces", *map(str, files),
                   "--output", out, "--no-store", *extra]
        start = time.perf_counter()
        child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 env=env)
        assert child.stdout is not None
        output = child.stdout.read().decode()
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        sys.exit(f"assay traces exited {child.returncode}:\n{output}")
    summary = "; ".join(line for line in output.splitlines()
                        if line.startswith(("sessions", "wiki", "findings")))
    return seconds, cpu_seconds(usage), usage.ru_maxrss / 1024, summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gb", type=float, default=1.0, help="how much data to read")
    parser.add_argument("--through", choices=("parse", "command"), default="parse",
                        help="the parser alone in this process, or the whole command")
    parser.add_argument("--judge", action="store_true",
                        help="with --through command: judge every answer (fake LLM server)")
    parser.add_argument("--one-session", action="store_true",
                        help="one session of --gb in one file, not many sessions in many")
    args = parser.parse_args()
    if args.judge and args.through != "command":
        parser.error("--judge needs --through command")
    size = int(args.gb * 1_000_000_000)
    files = generate_one_session(size) if args.one_session else generate(size)
    total = sum(p.stat().st_size for p in files)
    if args.through == "parse":
        seconds, cpu, peak, note = through_parse(files)
    else:
        seconds, cpu, peak, note = through_command(files, args.judge)
    megabytes = total / 1e6
    print(f"through {args.through}{' with a judge' if args.judge else ''}: files {len(files)}, {megabytes:,.0f} MB")
    print(f"  {note}")
    print(f"  {seconds:.1f} s wall: {megabytes / seconds:,.0f} MB/s; {cpu:.1f} s CPU: "
          f"{megabytes / cpu:,.0f} MB per CPU second; peak RSS {peak:.0f} MB")
    sys.exit(0)


if __name__ == "__main__":
    main()
