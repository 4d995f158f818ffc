"""`error:` lines in colour only where the reports are: NO_COLOR, TERM=dumb, FORCE_COLOR."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from assay.cli.colour import colour_wanted

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")


def error_on_a_terminal(cwd: Path, **env: str) -> str:
    """What `assay validate missing.yaml` writes to stderr when stderr is a terminal."""
    leader, follower = os.openpty()
    try:
        subprocess.run([sys.executable, "-m", "assay", "validate", "missing.yaml"], cwd=cwd,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=follower,
                       env={**os.environ, "TERM": "xterm", **env}, timeout=120, check=False)
        return os.read(leader, 65536).decode()
    finally:
        os.close(leader)
        os.close(follower)


@pytest.mark.parametrize("env", [{"NO_COLOR": "1"}, {"TERM": "dumb"}],
                         ids=["NO_COLOR", "TERM=dumb"])
def test_an_error_on_a_terminal_that_asked_for_no_colour_has_no_escape_codes(
        tmp_path: Path, env: dict[str, str]) -> None:
    """Before, the error was wrapped in '\\x1b[31m' ... '\\x1b[0m' under NO_COLOR=1."""
    printed = error_on_a_terminal(tmp_path, **env)
    assert "error: command line: config file not found" in printed
    assert "\x1b[" not in printed


def test_an_error_on_a_terminal_is_red(tmp_path: Path) -> None:
    env = {name: "" for name in ("NO_COLOR", "FORCE_COLOR")}
    assert "\x1b[31merror:" in error_on_a_terminal(tmp_path, **env)


@pytest.mark.parametrize("env, wanted", [
    ({"NO_COLOR": "1", "FORCE_COLOR": "1"}, False), ({"TERM": "dumb", "FORCE_COLOR": "1"}, False),
    ({"FORCE_COLOR": "1"}, True), ({"NO_COLOR": ""}, None), ({}, None)])
def test_colour_is_decided_as_rich_decides_it(monkeypatch: pytest.MonkeyPatch,
                                             env: dict[str, str], wanted: bool | None) -> None:
    for name in ("NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert colour_wanted() is wanted
