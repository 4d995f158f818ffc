"""What can go wrong in a provider call, classified once, and told without secrets.

Each SDK adapter turns its exceptions into a `CallFailure` (retryable or
not, with any Retry-After); the retry loop decides from that alone. Text that
reaches an error message or a log goes through `assay.redaction.redact` first:
SDK messages may quote response bodies, and a careless server may echo the key back.
"""

from __future__ import annotations

from typing import Literal

FailureKind = Literal["status", "timeout", "connection", "malformed", "error"]
"""What went wrong: an HTTP error status, no answer in time, no connection to the
endpoint at all (refused, unresolvable host, reset), a body that is not the promised
JSON, or anything else."""


class ProviderError(Exception):
    """A provider call that failed for good (after retries, or not retryable).

    The runner records it on the trial as an error, never as a score. `kind` says what
    failed; `kind == "connection"` means the endpoint could not be reached at all
    (refused, unresolvable host, reset): when it repeats, the endpoint is down or mistyped.
    """

    def __init__(self, message: str, *, status: int | None = None,
                 kind: FailureKind = "error") -> None:
        super().__init__(message)
        self.status = status
        self.kind: FailureKind = kind


class CallFailure(Exception):
    """One failed attempt, as the retry loop needs to see it.

    `reason` is short and secret-free (e.g. `HTTP 429 rate limited`);
    `retry_after` is the wait in seconds the server asked for, when it said.
    """

    def __init__(self, reason: str, retryable: bool, *, status: int | None = None,
                 retry_after: float | None = None, kind: FailureKind | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after
        self.kind: FailureKind = kind or ("status" if status is not None else "error")


def status_failure(status: int, detail: str, retry_after: float | None) -> CallFailure:
    """Classify an HTTP error status: 408/409/429/5xx retry, other 4xx do not."""
    retryable = status in (408, 409, 429) or status >= 500
    label = {
        400: "bad request", 401: "authentication failed", 403: "permission denied",
        404: "not found", 408: "request timeout", 409: "conflict", 413: "request too large",
        422: "unprocessable request", 429: "rate limited",
    }.get(status, "server error" if status >= 500 else "error")
    reason = f"HTTP {status} {label}"
    if detail:
        reason += f": {detail[:300]}"
    return CallFailure(reason, retryable, status=status, retry_after=retry_after)


def malformed_body(body: object, exc: Exception) -> CallFailure:
    """A retryable failure for a JSON body that lacks what the wire protocol promises."""
    if not isinstance(body, dict):
        detail = "not a JSON object"
    elif isinstance(exc, KeyError):
        detail = f"no {exc.args[0]!r}"
    elif isinstance(exc, IndexError):
        detail = "an empty list where an item belongs"
    else:
        detail = "a value of the wrong type"
    return CallFailure(f"malformed response body ({detail})", True, kind="malformed")


def parse_retry_after(headers: object) -> float | None:
    """Seconds from `retry-after-ms` or `retry-after` (seconds; HTTP dates are ignored)."""
    get = getattr(headers, "get", None)
    if get is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = get(name)
        if value is None:
            continue
        try:
            seconds = float(value) * scale
        except ValueError:
            continue
        if seconds >= 0:
            return seconds
    return None
