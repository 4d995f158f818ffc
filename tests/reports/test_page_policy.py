"""The Content Security Policy of assay's self-contained pages."""

from __future__ import annotations

import base64
import hashlib

from assay.reports.page_policy import content_security_policy, script_hash


def test_a_page_allows_exactly_its_own_scripts_and_loads_nothing() -> None:
    digest = base64.b64encode(hashlib.sha256(b"\nrun();\n").digest()).decode()
    assert script_hash("\nrun();\n") == f"'sha256-{digest}'"
    policy = content_security_policy(["\nrun();\n"])
    assert f"script-src 'sha256-{digest}';" in policy
    assert policy.startswith("default-src 'none';") and "base-uri 'none'" in policy


def test_a_page_without_scripts_runs_none() -> None:
    assert "script-src 'none';" in content_security_policy()
