"""A fake LLM server on 127.0.0.1 speaking OpenAI Chat Completions and Anthropic Messages.

The provider code under test is the real thing (the official SDKs over
HTTP); only the far end is ours. The server is a small HTTP/1.1 keep-alive
loop on raw asyncio (no framework, so hundreds of requests a second cost
little CPU), answering from a script of rules, with latency and injected
faults drawn from a seeded random generator.

    async with FakeLLM(rules=[Rule(user="capital", reply="Paris")], latency=0.05) as llm:
        client = AsyncOpenAI(base_url=llm.base_url, api_key="test")

    with FakeLLM(default="ok") as llm:     # in a background thread, for sync code
        ...

`base_url` ends in `/v1` and serves every protocol: a path ending in
`/chat/completions` is OpenAI, one ending in `/messages` is Anthropic, and
the cloud platforms' own paths (Vertex AI, Bedrock, Azure OpenAI, Gemini)
are told apart as `platforms` describes.
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
from collections import Counter
from collections.abc import Sequence
from typing import Any, Self, get_args

from assay.testing.judge import FakeJudge
from assay.testing.platforms import route_of
from assay.testing.script import (
    FakeRequest,
    Fault,
    FaultKind,
    Reply,
    ReplySource,
    Rule,
    resolve_reply,
)
from assay.testing.wire import parse_request, render_fault, render_reply

_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found",
            429: "Too Many Requests", 500: "Internal Server Error"}
HTML_PAGE = (b"<!DOCTYPE html><html><head><title>Sign in to the network</title></head>"
             b"<body><p>Please accept the terms to continue.</p></body></html>")
"""What a captive portal or a misrouted proxy answers in place of the API."""


class FakeLLM:
    """A scripted LLM endpoint. See the module docstring for use.

    - `rules`: tried in order; the first match answers. `default` answers the rest.
    - `judge`: a `FakeJudge` answering, after the rules, every request that asks for a
      structured verdict (see `assay.testing.judge`).
    - `latency`: seconds before each answer, fixed or a `(low, high)` uniform range.
    - `fault_rates`: e.g. `{"rate_limit": 0.15, "server_error": 0.15}`: the share of
      requests answered with that fault instead (drawn with `seed`).
    - `retry_after`: the Retry-After seconds sent with rate-limit faults from `fault_rates`.
    - `api_key`: when set, any other key gets HTTP 401.
    - `record`: keep every parsed request in `requests` (turn off for long benchmarks).
    """

    def __init__(
        self,
        rules: Sequence[Rule] = (),
        *,
        default: ReplySource = "ok",
        judge: FakeJudge | None = None,
        latency: float | tuple[float, float] = 0.0,
        fault_rates: dict[FaultKind, float] | None = None,
        retry_after: float | None = 0.01,
        hang_seconds: float = 300.0,
        api_key: str | None = None,
        seed: int = 0,
        record: bool = True,
    ) -> None:
        self.rules = list(rules)
        self.default = default
        self.judge = judge
        self.latency = latency
        self.fault_rates = checked_fault_rates(fault_rates or {})
        self.retry_after = retry_after
        self.hang_seconds = hang_seconds
        self.api_key = api_key
        self.record = record
        self._random = random.Random(seed)
        self.requests: list[FakeRequest] = []
        self.faults: Counter[str] = Counter()
        """How many of each fault kind were sent."""
        self.received = 0
        self.answered = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.port = 0
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # -- lifecycle ---------------------------------------------------------

    async def start(self) -> None:
        self._server = await asyncio.start_server(
            self._serve_connection, "127.0.0.1", 0, backlog=2048
        )
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def __enter__(self) -> Self:
        """Serve from a background thread with its own event loop."""
        ready = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                loop.run_until_complete(self.start())
            except BaseException as exc:  # noqa: BLE001 - reported to the caller below
                failure.append(exc)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self.stop())
            loop.close()

        self._thread = threading.Thread(target=run, name="fake-llm", daemon=True)
        self._thread.start()
        ready.wait()
        if failure:
            raise failure[0]
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None and self._thread is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
        self._thread = None
        self._loop = None

    # -- HTTP --------------------------------------------------------------

    async def _serve_connection(self, reader: asyncio.StreamReader,
                                writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            while True:
                try:
                    head = await reader.readuntil(b"\r\n\r\n")
                except (asyncio.IncompleteReadError, asyncio.LimitOverrunError,
                        ConnectionError):
                    return
                method, path, headers = _parse_head(head)
                length = int(headers.get("content-length", "0"))
                raw = await reader.readexactly(length) if length else b""
                keep_open = await self._answer(method, path, headers, raw, writer)
                if not keep_open or headers.get("connection", "").lower() == "close":
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            return
        except asyncio.CancelledError:
            pass
        finally:
            self._tasks.discard(task)
            writer.close()

    async def _answer(self, method: str, path: str, headers: dict[str, str], raw: bytes,
                      writer: asyncio.StreamWriter) -> bool:
        """Write one response; False when the connection should be dropped."""
        path, _, query = path.partition("?")
        route = route_of(path)
        if method != "POST" or route is None:
            _write(writer, 404, {}, b'{"error": {"message": "not found"}}')
            return True
        self.received += 1
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            request = parse_request(path, headers, json.loads(raw or b"{}"), route, query)
            if self.record:
                self.requests.append(request)
            reply = self._choose(request)
            await asyncio.sleep(self._latency(reply))
            fault = reply.fault or self._auth_fault(request)
            if fault is None and reply.body is not None:
                _write(writer, 200, {}, reply.body if isinstance(reply.body, bytes)
                       else json.dumps(reply.body, allow_nan=True).encode())
            elif fault is None:
                body = json.dumps(render_reply(request, reply)).encode()
                _write(writer, 200, {}, body)
            else:
                self.faults[fault.kind] += 1
                if fault.kind == "timeout":
                    await asyncio.sleep(fault.hang_seconds)
                    return False
                if fault.kind == "malformed":
                    _write(writer, 200, {}, b'{"id": "broken", "choices": [')
                elif fault.kind == "html":
                    _write(writer, 200, {"content-type": "text/html"}, HTML_PAGE)
                elif fault.kind == "cut":
                    body = json.dumps(render_reply(request, Reply(text="cut short"))).encode()
                    _write(writer, 200, {"content-length": str(len(body))},
                           body[:len(body) // 2])
                    await writer.drain()
                    return False
                else:
                    status, extra, payload = render_fault(request, fault)
                    _write(writer, status, extra, json.dumps(payload).encode())
            self.answered += 1
            await writer.drain()
            return True
        finally:
            self.in_flight -= 1

    def _choose(self, request: FakeRequest) -> Reply:
        for kind, rate in self.fault_rates.items():
            if self._random.random() < rate:
                return Reply(fault=Fault(kind, retry_after=self.retry_after,
                                         hang_seconds=self.hang_seconds))
        for rule in self.rules:
            if rule.matches(request):
                return rule.take(request)
        if self.judge is not None and self.judge.recognises(request):
            return self.judge(request)
        return resolve_reply(self.default, request)

    def _auth_fault(self, request: FakeRequest) -> Fault | None:
        if self.api_key is not None and request.api_key != self.api_key:
            return Fault("unauthorized")
        return None

    def _latency(self, reply: Reply) -> float:
        if reply.latency is not None:
            return reply.latency
        if isinstance(self.latency, tuple):
            low, high = self.latency
            return self._random.uniform(low, high)
        return self.latency


FAULT_KINDS: tuple[str, ...] = get_args(FaultKind)


def checked_fault_rates(rates: dict[Any, float]) -> dict[FaultKind, float]:
    """`rates` when every kind is a fault this server sends and every rate a share from 0
    to 1; else a ValueError naming the bad one: a misspelt kind answered each request it
    drew with a traceback and a dropped connection, and the run looked like one of flaky
    connections."""
    for kind, rate in rates.items():
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {kind!r}: use one of {', '.join(FAULT_KINDS)}")
        if not 0 <= rate <= 1:
            raise ValueError(f"fault rate {rate:g} for {kind!r} is not between 0 and 1 "
                             "(a share of the requests)")
    return dict(rates)


def _parse_head(head: bytes) -> tuple[str, str, dict[str, str]]:
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = lines[0].split(" ", 2)
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    return method, path, headers


def _write(writer: asyncio.StreamWriter, status: int, headers: dict[str, str],
           body: bytes) -> None:
    fields = {"content-type": "application/json", "content-length": str(len(body)),
              **headers}  # a given header replaces the default (a `cut` body's full length)
    lines = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}"]
    lines += [f"{name}: {value}" for name, value in fields.items()]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)
