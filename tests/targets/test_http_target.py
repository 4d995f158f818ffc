"""The http target posts each case to a service and reads the answer back."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from assay.case import Case
from assay.condition import Condition
from assay.output import Output
from assay.services import Services
from assay.targets.http import HttpParams, HttpTarget


def send(handler: BaseHTTPRequestHandler, status: int, content_type: str, data: bytes) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


class Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if body.get("question") == "fail":
            self.send_response(500)
            self.end_headers()
            self.wfile.write(b"overloaded")
            return
        reply = {"choices": [{"message": {"content": f"echo: {body.get('question', body)}"}}],
                 "auth": self.headers.get("Authorization")}
        send(self, 200, "application/json", json.dumps(reply).encode())

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/answer"
    httpd.shutdown()


def answer(params: HttpParams, question: str = "q") -> Output:
    """The target's answer to one case, from a started and then closed target."""
    target = HttpTarget(params, Condition(name="default"), Services())

    async def go() -> Output:
        await target.start()
        try:
            return await target.answer(Case(id="1", input=question))
        finally:
            await target.close()

    return asyncio.run(go())


def ask(url: str, question: str) -> Output:
    return answer(HttpParams(type="http", url=url, headers={"Authorization": "Bearer t"},
                             body={"question": "{{ input }}"},
                             answer_path="choices.0.message.content"), question)


def test_the_body_template_is_rendered_and_the_answer_read_by_path(server: str) -> None:
    output = ask(server, "what is up?")
    assert output.text == "echo: what is up?" and output.error is None


def test_an_answer_naming_a_content_type_sent_as_a_header_is_kept_as_it_was(
        server: str) -> None:
    # issue case: with `Content-Type: application/json` among its headers, an answer saying
    # "send it as application/json" read "send it as ***", and its scorers judged that
    params = HttpParams(type="http", url=server, body={"question": "{{ input }}"},
                        answer_path="choices.0.message.content",
                        headers={"Content-Type": "application/json",
                                 "X-Team": "team-credential-7"})
    output = answer(params, "application/json, said team-credential-7")
    assert output.text == "echo: application/json, said ***"


def test_an_http_error_is_an_error_on_the_trial(server: str) -> None:
    output = ask(server, "fail")
    assert output.error == "HTTP 500: overloaded"  # an answer of the service: not sent again


class EchoingHandler(BaseHTTPRequestHandler):
    """A careless service: its 401 page quotes the request's headers."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        status = 401 if self.path == "/denied" else 200
        send(self, status, "text/plain",
             f"denied for X-Api-Key: {self.headers.get('X-Api-Key')}".encode())

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
            output = answer(params)
            shown = f"{output.error} {output.text}"
            assert "k-8f3a9c2e7d" not in shown and "X-Api-Key: ***" in shown, shown
    finally:
        httpd.shutdown()


MISLABELLED_BODIES = {
    "/json-as-text": json.dumps({"answer": "no", "debug": "classifier said yes"}).encode(),
    "/prose": b"the classifier said yes",
    "/json-past-the-limit": json.dumps({"answer": "no", "pad": "yes" * 400_000}).encode(),
    "/null": b'{"answer": null}',
    "/object": b'{"answer": {"city": "Paris", "sure": true}}',
    "/true": b'{"answer": true}',
}
"""Bodies served as text/plain, by path."""


class MislabelledHandler(BaseHTTPRequestHandler):
    """A service whose Content-Type does not say JSON, whatever its body is."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        if self.path == "/moved":
            self.send_response(307)
            self.send_header("Location", "/elsewhere")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if self.path == "/not-gzip":  # says gzip, sends plain text
            self.send_response(200)
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", "5")
            self.end_headers()
            self.wfile.write(b"hello")
            return
        send(self, 200, "text/plain; charset=utf-8", MISLABELLED_BODIES[self.path])

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def mislabelled() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), MislabelledHandler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def answer_at(url: str, answer_path: str | None = "answer") -> Output:
    return answer(HttpParams(type="http", url=url, answer_path=answer_path))


def test_answer_path_reads_a_json_reply_labelled_text_plain(mislabelled: str) -> None:
    """Regression: a JSON reply served as text/plain was scored whole, so `contains yes`
    passed on {"answer": "no", "debug": "classifier said yes"}."""
    output = answer_at(mislabelled + "/json-as-text")
    assert output.error is None and output.text == "no"


def test_answer_path_on_a_reply_that_is_not_json_is_the_trials_error(mislabelled: str) -> None:
    output = answer_at(mislabelled + "/prose")
    assert output.error is not None
    assert output.error.startswith("answer_path is set but the reply is not JSON "
                                   "(text/plain; charset=utf-8, 23 bytes): ")


def test_answer_path_on_a_reply_cut_at_max_output_bytes_is_an_error_not_its_text(
        mislabelled: str) -> None:
    output = answer_at(mislabelled + "/json-past-the-limit")
    assert output.error is not None and "answer_path is set but the reply" in output.error
    assert "1,000,000 bytes (run.max_output_bytes)" in output.error


def test_without_answer_path_a_text_reply_is_the_answer_and_a_cut_is_recorded(
        mislabelled: str) -> None:
    assert answer_at(mislabelled + "/prose", answer_path=None).text == "the classifier said yes"
    cut = answer_at(mislabelled + "/json-past-the-limit", answer_path=None)
    assert cut.error is None and cut.metadata["truncated"]["kept_bytes"] == 1_000_000


def test_answer_path_at_a_null_is_the_trials_error_not_the_text_none(mislabelled: str) -> None:
    """Regression: `{"answer": null}` (a refusal, a reply with tool calls only) became the
    answer text "None", which a judge or `contains: None` then scored."""
    output = answer_at(mislabelled + "/null")
    assert output.text == "" and output.error == "the reply has null at 'answer', not an answer"


def test_answer_path_at_an_object_or_a_boolean_is_its_json_not_a_python_repr(
        mislabelled: str) -> None:
    assert answer_at(mislabelled + "/object").text == '{"city": "Paris", "sure": true}'
    assert answer_at(mislabelled + "/true").text == "true"


@pytest.mark.parametrize("answer_path", ["answer", None])
def test_a_redirect_is_the_trials_error_naming_it_not_an_empty_answer(
        mislabelled: str, answer_path: str | None) -> None:
    """Regression: a 307 (a service moved behind a new path) was read as an empty answer,
    scored as a wrong one, or said "not JSON (0 bytes)"."""
    output = answer_at(mislabelled + "/moved", answer_path=answer_path)
    assert output.error == "HTTP 307: redirected to /elsewhere, which is not followed"


def test_a_body_that_is_not_in_its_content_encoding_is_the_trials_error_naming_the_url(
        mislabelled: str) -> None:
    """Regression: it read 'DecodingError: Error -3 while decompressing data: incorrect header
    check', naming neither the service nor what it had claimed."""
    output = answer_at(f"{mislabelled}/not-gzip", answer_path=None)
    assert output.error == (
        f"the reply from {mislabelled}/not-gzip cannot be decoded as its Content-Encoding "
        "(gzip) says: Error -3 while decompressing data: incorrect header check")


def test_a_service_that_never_replies_is_a_timeout_naming_the_url_and_the_setting() -> None:
    """Regression: the trial's error was `ReadTimeout at .../httpx/_transports/default.py:118`,
    naming neither the service nor the setting that ran out."""
    import socket

    with socket.socket() as listening:  # connections are accepted by the kernel, never read
        listening.bind(("127.0.0.1", 0))
        listening.listen(8)
        url = f"http://127.0.0.1:{listening.getsockname()[1]}/answer"
        output = answer(HttpParams(type="http", url=url, timeout=0.3))
    assert output.error == f"no reply from {url} within 0.3s (target.timeout)"


class SlowHandler(BaseHTTPRequestHandler):
    """A service that takes its time (0.5 s) to answer."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        time.sleep(0.5)
        send(self, 200, "text/plain", b"late but right")

    def log_message(self, *args: object) -> None:
        pass


def trial_output(handler: type[BaseHTTPRequestHandler],
                 timeout: float | None) -> tuple[Output, str]:
    """The output of one unscored trial, under `timeout` (run.timeout), of an http target
    whose service is served by `handler`; and the service's URL."""
    from assay.runner.trial import run_trial

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}/"
    target = HttpTarget(HttpParams(type="http", url=url), Condition(name="default"), Services())

    async def go() -> Output:
        await target.start()
        try:
            result = await run_trial(target, Case(id="1", input="q"), target.condition, 0, [],
                                     timeout)
            return result.output
        finally:
            await target.close()

    try:
        return asyncio.run(go()), url
    finally:
        httpd.shutdown()


@pytest.mark.parametrize("timeout", [10.0, None])
def test_a_service_answering_after_the_cancel_grace_is_answered_not_cancelled(
        monkeypatch: pytest.MonkeyPatch, timeout: float | None) -> None:
    """A service answering after more than 5 s (deadline.CANCEL_GRACE) ended the whole run
    in a CancelledError traceback, exit 1: httpx cancels its own losing connection attempts,
    and that started the grace that closes work ignoring its cancellation."""
    from assay.runner import deadline

    monkeypatch.setattr(deadline, "CANCEL_GRACE", 0.1)
    output, _ = trial_output(SlowHandler, timeout)
    assert (output.text, output.error) == ("late but right", None)


def test_a_service_that_is_down_is_the_trials_error_naming_the_url() -> None:
    import socket

    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{unused.getsockname()[1]}/answer"
    output = answer(HttpParams(type="http", url=url))
    assert output.error is not None
    assert output.error.startswith(f"cannot reach {url}: ConnectError: "), output.error
    assert "httpx" not in output.error


class Latin1Handler(BaseHTTPRequestHandler):
    """A service that answers in Latin-1 while its reply says nothing of a charset."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        send(self, 200, "text/plain", "café".encode("latin-1"))

    def log_message(self, *args: object) -> None:
        pass


def test_a_reply_that_is_not_utf8_is_replaced_and_counted() -> None:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Latin1Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        output = answer(HttpParams(type="http",
                                   url=f"http://127.0.0.1:{httpd.server_address[1]}/"))
    finally:
        httpd.shutdown()
    assert output.text == "caf\ufffd"
    assert output.metadata["replaced_invalid_utf8"] == 1



def test_a_connection_the_server_dropped_is_said_in_words() -> None:
    """A kept-alive connection the server dropped read 'ReadError at
    .../httpx/_transports/default.py:118': httpx's error has no text, and its place in
    httpx said nothing to the user."""
    import httpx

    def dropped(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadError("", request=request)

    async def go() -> Output:
        target = HttpTarget(HttpParams(type="http", url="http://127.0.0.1:9/answer"),
                            Condition(name="default"), Services())
        target._client = httpx.AsyncClient(transport=httpx.MockTransport(dropped))
        try:
            return await target.answer(Case(id="1", input="q"))
        finally:
            await target.close()

    error = asyncio.run(go()).error
    assert error == ("the exchange with http://127.0.0.1:9/answer failed: the server closed "
                     "the connection before its reply was read (ReadError)")


def test_a_body_template_that_does_not_compile_is_refused_naming_its_key() -> None:
    """Regression: `assay validate` said ok, and every trial then ended in the same error."""
    from pydantic import ValidationError

    with pytest.raises(ValidationError) as info:
        HttpParams.model_validate({
            "type": "http", "url": "http://127.0.0.1:9/x",
            "body": {"q": "{{ input }}", "ctx": ["{{ expected | nofilter }}"]}})
    (error,) = info.value.errors()
    assert error["loc"] == ("body",)
    assert str(error["ctx"]["error"]).startswith("ctx.0: template syntax error on line 1: "
                                                 "No filter named 'nofilter'")


def test_a_body_template_naming_an_unknown_field_is_found_on_the_first_case() -> None:
    params = HttpParams.model_validate({
        "type": "http", "url": "http://127.0.0.1:9/x",
        "body": {"q": "{{ input }}", "meta": {"a": "{{ inptu }}"}}})
    target = HttpTarget(params, Condition(name="c"), Services())
    (problem,) = target.template_problems(Case(id="a", input="q"))
    assert problem.field == "body"
    assert problem.message.startswith("meta.a: template refers to an unknown variable: "
                                      "'inptu' is undefined; did you mean 'input'?")
    assert problem.message.endswith("(rendered for case 'a')")


class TurningAwayHandler(BaseHTTPRequestHandler):
    """Turns the first `refusals` requests away (status `refusal`, Retry-After 0), then
    answers; counts every request."""

    refusal = 429
    refusals = 2
    requests = 0
    retry_after = "0"

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        type(self).requests += 1
        if type(self).requests <= self.refusals:
            self.send_response(self.refusal)
            self.send_header("Retry-After", self.retry_after)
            self.send_header("Content-Length", "4")
            self.end_headers()
            self.wfile.write(b"busy")
            return
        send(self, 200, "text/plain", b"answered")

    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.parametrize("refusal, refusals, retries, text, error, requests", [
    (429, 2, 2, "answered", None, 3),
    (503, 1, 2, "answered", None, 2),
    (503, 5, 2, "", "HTTP 503: busy (sent 3 times)", 3),
    (429, 5, 0, "", "HTTP 429: busy", 1),
], ids=["429-then-answered", "503-then-answered", "turned-away-every-time", "no-retries"])
def test_a_request_the_service_turned_away_is_sent_again_after_its_retry_after(
        refusal: int, refusals: int, retries: int, text: str, error: str | None,
        requests: int) -> None:
    """Regression: a 429 with Retry-After from the user's own service (a rate limit) was
    that trial's error at once, where the LLM providers' calls are retried."""
    handler = type("Handler", (TurningAwayHandler,), {"refusal": refusal, "refusals": refusals,
                                                      "requests": 0})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        output = answer(HttpParams(type="http", url=f"http://127.0.0.1:{httpd.server_address[1]}/",
                                   retries=retries))
    finally:
        httpd.shutdown()
    assert (output.text, output.error, handler.requests) == (text, error, requests)


def test_a_trial_cut_by_its_deadline_while_a_429_is_waited_out_says_so() -> None:
    """Regression: a service answering 429 with Retry-After: 3600 made the trial 'timeout:
    no answer within 3s', as if the service were slow to answer."""
    handler = type("Handler", (TurningAwayHandler,), {"refusals": 5, "requests": 0,
                                                      "retry_after": "3600"})
    output, url = trial_output(handler, 3)
    assert output.error == (f"timeout: no answer within 3s; {url} was waiting 30s to try "
                            "again (retry 1 of 2) after HTTP 429: busy")


class TricklingHandler(BaseHTTPRequestHandler):
    """A service whose reply comes a byte every tenth of a second, for a minute."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", "600")
        self.end_headers()
        try:
            for _ in range(600):
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(0.1)
        except OSError:
            pass  # the client gave up, as it should

    def log_message(self, *args: object) -> None:
        pass


def test_a_reply_trickling_in_is_cut_at_the_targets_timeout_saying_how_much_arrived() -> None:
    """Regression: httpx bounds each read, not the whole reply, so a reply whose bytes kept
    coming slowly was read until run.timeout cut the trial ('timeout: no answer within
    300s'), whatever target.timeout said."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), TricklingHandler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}/"
    started = time.monotonic()
    try:
        output = answer(HttpParams(type="http", url=url, timeout=1))
    finally:
        httpd.shutdown()
    assert time.monotonic() - started < 5
    assert output.error is not None and output.error.startswith(
        f"no whole reply from {url} within 1s (target.timeout): "), output.error
    assert output.error.endswith(" bytes of it had arrived")
