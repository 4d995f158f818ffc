"""`LC_ALL=C` or `PYTHONIOENCODING=ascii`: output a stream cannot show is written plainly."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from assay.cli import main
from assay.plain_characters import plain_form
from tests.cli.evalproject import write_project


def assay_in_ascii(cwd: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`assay ARGS` whose stdout and stderr take ASCII only, read back as bytes would be."""
    result = subprocess.run(
        [sys.executable, "-m", "assay", *args], cwd=cwd, capture_output=True, timeout=120,
        check=False, env={**os.environ, "ASSAY_STORE": str(cwd / "assay.db"),
                          "PYTHONIOENCODING": "ascii", **env})
    return subprocess.CompletedProcess(result.args, result.returncode,
                                       result.stdout.decode("ascii"),
                                       result.stderr.decode("ascii"))


@pytest.fixture
def compared_run(tmp_path: Path) -> Path:
    """A project of two conditions, one better, and a case whose id is not ASCII (the
    target fails on it, as it reads no number there, so the id is printed in a warning)."""
    (tmp_path / "questions.jsonl").write_text("".join(
        json.dumps({"id": f"q{i:03d}", "input": f"question {i}", "expected": f"answer-{i}"})
        + "\n" for i in range(20)) + json.dumps(
        {"id": "q020-café", "input": "question é", "expected": "answer-é"}) + "\n",
        encoding="utf-8")
    write_project(tmp_path, {"worse": {"rate": 0.2}, "better": {"rate": 0.9}})
    return tmp_path


def test_a_run_printed_to_an_ascii_stream_ends_with_its_own_exit_code(
        compared_run: Path) -> None:
    """Before, the comparison's arrow stopped the command: 'internal error:
    UnicodeEncodeError: 'ascii' codec can't encode character '\\u2192'', exit 3, after
    every trial was stored."""
    result = assay_in_ascii(compared_run, "run", "assay.yaml", "--no-progress")
    assert result.returncode == 0, result.stderr
    assert "->" in result.stdout and "q020-cafe" in result.stdout
    assert "internal error" not in result.stderr


@pytest.mark.parametrize("args", [("runs",), ("history", "coin"), ("report", "latest"),
                                  ("history", "coin", "--json")])
def test_stored_runs_are_listed_and_reported_on_an_ascii_stream(
        compared_run: Path, args: tuple[str, ...]) -> None:
    """Before, `runs` and `history` stopped at their '·', `report` at its '→', exit 3."""
    assert assay_in_ascii(compared_run, "run", "assay.yaml", "--no-progress").returncode == 0
    result = assay_in_ascii(compared_run, *args)
    assert result.returncode == 0, result.stderr
    assert "internal error" not in result.stderr


def test_a_run_printed_to_a_text_buffer_ends_with_its_verdict_not_an_internal_error(
        compared_run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: `assay.cli.main([...])` with stdout an `io.StringIO` (no encoding) ran and
    stored the run, then stopped printing it with 'internal error: LookupError: unknown
    encoding: None', exit 3."""
    monkeypatch.chdir(compared_run)
    monkeypatch.setenv("ASSAY_STORE", str(compared_run / "assay.db"))
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed), \
            pytest.raises(SystemExit) as exited:
        main(["run", "assay.yaml", "--no-progress", "--fail-under", "exact_match@worse=0.9"])
    assert exited.value.code == 1, printed.getvalue()
    assert "FAIL gate exact_match@worse" in printed.getvalue()
    assert "→" in printed.getvalue() and "internal error" not in printed.getvalue()


def test_a_case_id_that_is_not_ascii_is_printed_without_its_accent() -> None:
    assert "".join(plain_form(c) for c in "café") == "cafe"


@pytest.mark.parametrize("character, plain", [("→", "->"), ("·", "-"), ("…", "..."),
                                              ("─", "-"), ("│", "|"), ("┼", "+"),
                                              ("▇", "#"), ("問", "?")])
def test_each_character_assay_prints_has_a_plain_form(character: str, plain: str) -> None:
    assert plain_form(character) == plain
