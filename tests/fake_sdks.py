"""Point the official SDKs of a test at the fake LLM server, for the test's duration."""

from __future__ import annotations

import pytest

from assay.testing import FakeLLM
from assay.testing.launcher import fake_environment


def point_sdks_at(llm: FakeLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    """Set the SDKs' base URLs and placeholder keys to `llm`'s (undone when the test ends)."""
    for name, value in fake_environment(llm, {}).items():
        monkeypatch.setenv(name, value)
