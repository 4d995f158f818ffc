"""The http target posts each case to a service and reads the answer back."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from assay.case import Case
from assay.condition import Condition
from assay.services import Services
from assay.targets.http import HttpParams, HttpTarget


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if body.get("question") == "fail":
            self.send_response(503)
            self.end_headers()
            self.wfile.write(b"overloaded")
            return
        reply = {"choices": [{"message": {"content": f"echo: {body.get('question', body)}"}}],
                 "auth": self.headers.get("Authorization")}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/answer"
    httpd.shutdown()


def ask(url: str, question: str) -> object:
    params = HttpParams(type="http", url=url, headers={"Authorization": "Bearer t"},
                        body={"question": "{{ input }}"},
                        answer_path="choices.0.message.content")
    target = HttpTarget(params, Condition(name="default"), Services())

    async def go() -> object:
        await target.start()
        try:
            return await target.answer(Case(id="1", input=question))
        finally:
            await target.close()

    return asyncio.run(go())


def test_the_body_template_is_rendered_and_the_answer_read_by_path(server: str) -> None:
    output = ask(server, "what is up?")
    assert output.text == "echo: what is up?" and output.error is None


def test_an_http_error_is_an_error_on_the_trial(server: str) -> None:
    output = ask(server, "fail")
    assert output.error == "HTTP 503: overloaded"


class EchoingHandler(BaseHTTPRequestHandler):
    """A careless service: its 401 page quotes the request's headers."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        status = 401 if self.path == "/denied" else 200
        data = f"denied for X-Api-Key: {self.headers.get('X-Api-Key')}".encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


def test_a_header_from_a_variable_echoed_in_a_body_is_masked(
        tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: a `${VAR}` header echoed back in a 401 body was stored and printed."""
    from pathlib import Path

    from assay.config.loading import load_config

    monkeypatch.setenv("SERVICE_KEY", "k-8f3a9c2e7d")
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), EchoingHandler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    root = Path(str(tmp_path))
    (root / "assay.yaml").write_text(
        "name: echo\ndataset: {path: d.jsonl}\n"
        f"target: {{type: http, url: '{base}/denied', headers: {{X-Api-Key: '${{SERVICE_KEY}}'}}}}\n"
        "scorers: [{type: contains}]\n")
    loaded = load_config(root / "assay.yaml")
    try:
        for path in ("/denied", "/ok"):
            params = loaded.target_params["default"].model_copy(update={"url": base + path})
            target = HttpTarget(params, Condition(name="default"), Services())

            async def go() -> object:
                await target.start()
                try:
                    return await target.answer(Case(id="1", input="q"))
                finally:
                    await target.close()

            output = asyncio.run(go())
            shown = f"{output.error} {output.text}"  # type: ignore[attr-defined]
            assert "k-8f3a9c2e7d" not in shown and "X-Api-Key: ***" in shown, shown
    finally:
        httpd.shutdown()
