"""A `providers:` entry's settings: what each may be."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from assay.providers.config import ProviderConfig


@pytest.mark.parametrize("timeout", [float("inf"), float("nan"), 0.0, 7 * 86400 + 1.0])
def test_a_timeout_that_no_call_could_keep_is_refused(timeout: float) -> None:
    """Regression: `timeout: .inf` (or `--judge-timeout inf`) was taken, and every call then
    failed with 'cannot convert float infinity to integer'."""
    with pytest.raises(ValidationError, match="timeout"):
        ProviderConfig(kind="openai", timeout=timeout)


def test_a_timeout_of_a_week_is_taken() -> None:
    assert ProviderConfig(kind="openai", timeout=7 * 86400).timeout == 7 * 86400


@pytest.mark.parametrize(("setting", "value"), [
    ("backoff", float("inf")), ("backoff", 7 * 86400 + 1.0),
    ("max_backoff", float("inf")), ("max_backoff", 1e300),
    ("max_connections", 100_000_000_000), ("max_connections", 1025),
    ("max_retries", 21)])
def test_a_wait_or_a_count_past_its_bound_is_refused(setting: str, value: float) -> None:
    """Regression: `backoff: .inf` was taken, and the first retry then waited for ever
    (a jittered wait between inf and inf is nan); `max_backoff: .inf` let a server's
    Retry-After of a year be kept; `max_connections` took any count."""
    with pytest.raises(ValidationError, match=setting):
        ProviderConfig(kind="openai", **{setting: value})


def test_the_largest_wait_and_count_are_taken() -> None:
    config = ProviderConfig(kind="openai", backoff=7 * 86400, max_backoff=7 * 86400,
                            max_connections=1024, max_retries=20)
    assert (config.backoff, config.max_connections, config.max_retries) == (7 * 86400, 1024, 20)
