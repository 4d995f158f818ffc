"""The `http` target: POST each case to your service and read its answer.

The body is read up to `run.max_output_bytes` and no further. Text that comes
back from the service (an answer, an error body) passes through
`assay.redaction` first: a service that echoes a `${VAR}` header in its 401
page must not put the secret into the store. Every header's value counts as a
secret there except those of the headers that describe the exchange
(`ORDINARY_HEADERS`): masking `application/json` would change the answer a
scorer reads.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Literal

from pydantic import Field, field_validator

from assay.case import Case
from assay.config.templates import case_variables, render, template_texts, templates_compile
from assay.config.urls import http_url
from assay.errors import Problem
from assay.output import Output
from assay.providers.retry import note_waiting, wait_to_retry
from assay.redaction import redact, redact_known
from assay.registry import target
from assay.targets.base import Target, TargetParams
from assay.targets.capture import Captured, output_limit
from assay.user_code.calls import describe_failure

ORDINARY_HEADERS = frozenset({
    "accept", "accept-charset", "accept-encoding", "accept-language", "cache-control",
    "connection", "content-language", "content-type", "user-agent"})
"""Headers that describe the request, never a credential: their values are not masked."""

RETRY_WAIT_CAP = 30.0
"""The longest wait before a turned-away request is sent again, whatever Retry-After asks."""


class HttpParams(TargetParams):
    url: str
    """The endpoint. Conditions may point at another one (a staging build, a new version)."""

    _url_is_http = field_validator("url")(http_url)

    method: Literal["POST", "PUT", "GET"] = "POST"
    """HTTP method; GET sends no body."""

    headers: dict[str, str] = Field(default_factory=dict)
    """Request headers; use `${VAR}` for secrets, they are never stored."""

    body: dict[str, Any] | None = None
    """A JSON body whose string values are templates over the case (default: the case as JSON)."""

    _body_compiles = field_validator("body")(templates_compile)

    answer_path: str | None = None
    """Where the answer is in a JSON response, as a dotted path (`choices.0.message.content`).
    Set, the reply is read as JSON whatever its Content-Type, and a reply that is not JSON
    (or was cut at `run.max_output_bytes`) is the trial's error. Omitted: the whole response
    is read as text, or, when JSON, as `{output, tool_calls, usage, metadata}`."""

    timeout: float = Field(default=120.0, gt=0)
    """Seconds before the request is abandoned, its whole reply included."""

    retries: int = Field(default=2, ge=0, le=10)
    """How often a request the service turned away unprocessed (429 Too Many Requests, 503
    Service Unavailable) is sent again, after the wait its Retry-After asks (at most
    `RETRY_WAIT_CAP` seconds) or 1, 2, 4... seconds; then its status is the trial's error.
    `run.timeout` bounds the trial, waits included."""


@target("http")
class HttpTarget(Target):
    Params = HttpParams
    params: HttpParams
    honours = frozenset[str]()

    def template_problems(self, case: Case) -> list[Problem]:
        from assay.config.templates import render_problem

        variables = case_variables(case)
        problems = []
        for where, source in template_texts(self.params.body):
            problem = render_problem(source, variables)
            if problem is not None:
                problems.append(Problem(f"{where}: {problem} (rendered for case '{case.id}')",
                                        field="body"))
        return problems

    async def start(self) -> None:
        import httpx

        self._client = httpx.AsyncClient(timeout=self.params.timeout,
                                         headers=self.params.headers)

    @property
    def _secrets(self) -> list[str]:
        """The header values masked in what comes back: all but `ORDINARY_HEADERS`'."""
        return [value for name, value in self.params.headers.items()
                if name.lower() not in ORDINARY_HEADERS]

    async def answer(self, case: Case) -> Output:
        params = self.params
        payload = (_render_body(params.body, case) if params.body is not None
                   else {**case.to_dict(), "condition": self.condition.name})
        for attempt in range(params.retries + 1):
            output, wait = await self._send(payload, attempt)
            if wait is None:
                if attempt:
                    note_waiting(None)
                return output
            if attempt < params.retries:
                await wait_to_retry(params.url, output.error or "", min(wait, RETRY_WAIT_CAP),
                                    f"retry {attempt + 1} of {params.retries}",
                                    shown=lambda note: redact(note, self._secrets))
        sent = f" (sent {params.retries + 1} times)" if params.retries else ""
        return Output(error=f"{output.error}{sent}")

    async def _send(self, payload: Any, attempt: int) -> tuple[Output, float | None]:
        """Request number `attempt` (from 0): its Output, and how long to wait before sending
        it again when the service turned it away unprocessed (None: it did not)."""
        params = self.params
        import httpx

        body = Captured(output_limit(self.services))
        try:
            async with asyncio.timeout(params.timeout), self._client.stream(
                    params.method, params.url,
                    json=None if params.method == "GET" else payload) as response:
                async for chunk in response.aiter_bytes():
                    body.add(chunk)
                    if body.cut:
                        break  # the rest is not read: the output says it was cut
        except TimeoutError:  # httpx bounds each read, so a reply trickling in needs this
            return Output(error=redact(_too_slow(params, body.total), self._secrets)), None
        except httpx.TransportError as exc:
            return Output(error=redact(_transport_failure(exc, params),
                                       self._secrets)), None
        except httpx.DecodingError as exc:  # raised only once the reply's headers are in
            encoding = response.headers.get("content-encoding", "?")
            return Output(error=redact(f"the reply from {params.url} cannot be decoded as its "
                                       f"Content-Encoding ({encoding}) says: {exc}",
                                       self._secrets)), None
        text, invalid = body.decoded()
        text = redact_known(text, self._secrets)
        if response.is_redirect:  # a POST is not re-sent elsewhere behind the user's back
            where = redact(response.headers.get("location", "?"), self._secrets)
            return Output(error=f"HTTP {response.status_code}: redirected to {where}, which "
                                "is not followed"), None
        if response.status_code >= 400:
            error = Output(error=redact(f"HTTP {response.status_code}: {text[:300]}",
                                        self._secrets))
            return error, _turned_away(response, attempt)
        content_type = response.headers.get("content-type", "")
        if "json" not in content_type and not params.answer_path:
            output = Output(text=text)
            body.annotate(output, invalid)
            return output, None
        if body.cut:
            return Output(error=f"{_expected_json(params)} is larger than {body.limit:,} "
                                "bytes (run.max_output_bytes): cut there, it is not JSON"), None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            labelled = content_type or "no Content-Type"
            not_json = (f"{_expected_json(params)} is not JSON ({labelled}, {body.total:,} "
                        f"bytes): {exc.msg} at line {exc.lineno} column {exc.colno}")
            return Output(text=text, error=not_json), None
        if params.answer_path:
            return _answer_at(data, params.answer_path), None
        return Output.from_value(data), None

    async def close(self) -> None:
        client = getattr(self, "_client", None)
        if client is not None:
            await client.aclose()


def _transport_failure(exc: Exception, params: HttpParams) -> str:
    """What went wrong on the way to the service, naming it (httpx's own text names neither
    the URL nor the setting, and a timeout's is empty)."""
    import httpx

    if isinstance(exc, httpx.TimeoutException):
        return _too_slow(params, 0)
    if isinstance(exc, httpx.ConnectError):
        return f"cannot reach {params.url}: {_in_words(exc)}"
    return f"the exchange with {params.url} failed: {_in_words(exc)}"


def _too_slow(params: HttpParams, arrived: int) -> str:
    """A reply not in within `target.timeout`: none of it, or the `arrived` bytes of one
    trickling in (httpx bounds each read, not the whole reply)."""
    within = f"within {params.timeout:g}s (target.timeout)"
    if not arrived:
        return f"no reply from {params.url} {within}"
    return f"no whole reply from {params.url} {within}: {arrived:,} bytes of it had arrived"


def _in_words(exc: Exception) -> str:
    """httpx's error with its text; when it has none (a kept-alive connection the server
    dropped reads as a bare ReadError), what happened in words, never where in httpx."""
    import httpx

    text = str(exc).strip()
    if text:
        return describe_failure(exc)
    name = type(exc).__name__
    if isinstance(exc, httpx.ReadError | httpx.RemoteProtocolError):
        return f"the server closed the connection before its reply was read ({name})"
    if isinstance(exc, httpx.WriteError):
        return f"the server closed the connection while the request was sent ({name})"
    return f"{name}, with no message"


def _expected_json(params: HttpParams) -> str:
    """Why the reply must be JSON: its Content-Type said so, or `answer_path` reads it as JSON
    (whatever the Content-Type says: a wrong header must not make the whole body the answer)."""
    return ("answer_path is set but the reply" if params.answer_path
            else "the reply (its Content-Type says JSON)")


def _render_body(body: Any, case: Case) -> Any:
    if isinstance(body, str):
        return render(body, case_variables(case))
    if isinstance(body, dict):
        return {key: _render_body(value, case) for key, value in body.items()}
    if isinstance(body, list):
        return [_render_body(value, case) for value in body]
    return body


def _answer_at(data: Any, path: str) -> Output:
    """The value at `path` as the answer: text as it is, any other JSON value as JSON (never a
    Python repr such as `None` or `True`); a null there is no answer, so an error."""
    try:
        value = _dig(data, path)
    except (KeyError, IndexError, TypeError, ValueError):
        return Output(error=f"response has no '{path}'")
    if value is None:
        return Output(error=f"the reply has null at '{path}', not an answer")
    return Output(text=value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))


def _dig(data: Any, path: str) -> Any:
    for part in path.split("."):
        data = data[int(part)] if isinstance(data, list) else data[part]
    return data


def _turned_away(response: Any, attempt: int) -> float | None:
    """The wait before sending again a request a 429 or 503 turned away: its Retry-After, else
    1, 2, 4... seconds by `attempt`; None when it was not turned away (another status is the
    service's answer, not a refusal)."""
    from assay.providers.failures import parse_retry_after

    if response.status_code not in (429, 503):
        return None
    wait = parse_retry_after(response.headers)
    return float(2 ** attempt) if wait is None else wait
