"""Values read out of a provider's decoded JSON body, each checked for the type the wire
protocol promises.

A body can be valid JSON and still not the protocol: `"content": 5`, a token count of
`"12"` or `-1`, a tool call named `null`. Read unchecked, such a value becomes an answer
text that is not text or a cost computed from a list; read here, it is a malformed
response naming the field, retried and then recorded as the trial's error.
"""

from __future__ import annotations

from typing import Any

from assay.providers.failures import CallFailure


def wrong(field: str, value: Any, wanted: str) -> CallFailure:
    """The retryable failure for `field` holding `value` where `wanted` belongs."""
    shown = "null" if value is None else type(value).__name__
    return CallFailure(f"malformed response body ({field}: {shown}, not {wanted})", True,
                       kind="malformed")


def item(value: Any, key: str | int, field: str) -> Any:
    """`value[key]`, or a malformed response naming `field` when it is not there."""
    if isinstance(key, int):
        if not isinstance(value, list) or not -len(value) <= key < len(value):
            raise CallFailure(f"malformed response body (no {field})", True, kind="malformed")
        return value[key]
    if not isinstance(value, dict) or key not in value:
        raise CallFailure(f"malformed response body (no {field})", True, kind="malformed")
    return value[key]


def mapping(value: Any, field: str, *, optional: bool = False) -> dict[str, Any]:
    if value is None and optional:
        return {}
    if not isinstance(value, dict):
        raise wrong(field, value, "an object")
    return value


def listing(value: Any, field: str, *, optional: bool = False) -> list[Any]:
    if value is None and optional:
        return []
    if not isinstance(value, list):
        raise wrong(field, value, "a list")
    return value


def text(value: Any, field: str, *, optional: bool = False) -> str:
    """A string; with `optional`, null reads as the empty string."""
    if value is None and optional:
        return ""
    if not isinstance(value, str):
        raise wrong(field, value, "text")
    return value


def name(value: Any, field: str) -> str:
    if not isinstance(value, str) or not value:
        raise wrong(field, value, "a name")
    return value


def label(value: Any, field: str) -> str | None:
    """An optional string (a stop reason, a model name): null or text."""
    if value is not None and not isinstance(value, str):
        raise wrong(field, value, "text")
    return value


MAX_COUNT = 10**12
"""The most tokens one call's count may say, a thousand times past any model's context.
JSON's integers have no bound: a count of 10**400, priced as a float, stopped the run, and
counts near 2**63 summed over a run's calls would overflow the store's integer columns."""


def count(value: Any, field: str, *, optional: bool = False) -> int:
    """A token count: a non-negative integer (null reads as 0 when `optional`)."""
    if value is None and optional:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise wrong(field, value, "a count")
    if value > MAX_COUNT:
        raise CallFailure(f"malformed response body ({field}: a number past 10**12, not a "
                          "real count)", True, kind="malformed")
    return value
