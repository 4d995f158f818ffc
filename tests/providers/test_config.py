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
