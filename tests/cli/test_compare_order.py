"""`assay compare A B` reads one way everywhere: A is before, B is after, and A is named first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .evalproject import assay, write_project


@pytest.fixture
def two_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
             capsys: pytest.CaptureFixture[str]) -> tuple[str, str, str]:
    """(store, older run id, newer run id): the agent gets better between the two."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    store = str(tmp_path / "s.db")
    ids = []
    for rate in (0.4, 0.9):
        config = write_project(tmp_path, {"agent": {"rate": rate}}, cases=40)
        code, _ = assay(capsys, "run", str(config), "--store", store, "--no-progress",
                        "--output", str(tmp_path / f"out-{rate}"))
        assert code == 0
        ids.append(json.loads((tmp_path / f"out-{rate}" / "results.json").read_text())
                   ["run"]["id"])
    return store, ids[0], ids[1]


def test_the_default_compare_names_the_older_run_first_as_before(
        two_runs: tuple[str, str, str], capsys: pytest.CaptureFixture[str],
        tmp_path: Path) -> None:
    store, older, newer = two_runs
    code, text = assay(capsys, "compare", "latest~1", "latest", "--store", store,
                       "-o", str(tmp_path / "diff.md"))
    assert code == 0
    assert f"run {older} → run {newer} (before → after" in text
    assert text.index(older) < text.index(newer)
    assert "newly passing" in text and "newly failing" not in text  # it got better
    markdown = (tmp_path / "diff.md").read_text()
    assert f"Run `{older}` (before, started" in markdown
    assert f"→ run `{newer}` (after)" in markdown
    assert "started after" not in text


def test_comparing_newer_with_older_says_so_and_keeps_json_clean(
        two_runs: tuple[str, str, str], capsys: pytest.CaptureFixture[str]) -> None:
    store, older, newer = two_runs
    code, text = assay(capsys, "compare", newer, older, "--store", store)
    assert code == 0
    assert f"run {newer} → run {older} (before → after" in text
    assert f"RUN_A {newer} started after RUN_B {older}" in text
    assert "newly failing" in text
    with pytest.raises(SystemExit):
        from assay.cli import main

        main(["compare", newer, older, "--store", store, "--json"])
    captured = capsys.readouterr()
    assert json.loads(captured.out)["run_a"]["id"] == newer  # the note went to stderr
    assert "started after" in captured.err
