"""A run's files, lost or cut short (a kill while an older version wrote them in place), are
written again: by `assay report RUN --rewrite`, and by `assay run --resume`, where they were."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.review.files import damaged_files
from assay.store import Store

from .evalproject import assay, results, write_project


def finished_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, str, str]:
    """A completed run whose files went to `out/`: (the folder, the run id, the store)."""
    config = write_project(tmp_path, {"only": {"rate": 0.5}}, cases=12)
    store = str(tmp_path / "s.db")
    code, printed = assay(capsys, "run", str(config), "--store", store, "--no-progress",
                          "-o", str(tmp_path / "out"))
    assert code == 0, printed
    run_id = results(tmp_path / "out")["run"]["id"]
    return tmp_path / "out", run_id, store


def cut_short(path: Path) -> None:
    """What a kill leaves of a file written in place: its first part."""
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])


def test_damaged_files_names_each_missing_or_cut_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    out, run_id, _ = finished_run(tmp_path, capsys)
    assert damaged_files(out, run_id) == []
    assert damaged_files(out, "another-run") == ["results.json"]  # whole, but not this run's
    cut_short(out / "results.json")
    cut_short(out / "report.html")
    (out / "report.md").unlink()
    assert damaged_files(out, run_id) == ["results.json", "report.md", "report.html"]


def test_report_rewrite_writes_a_cut_results_json_again_where_it_was(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    out, run_id, store = finished_run(tmp_path, capsys)
    whole = results(out)
    cut_short(out / "results.json")
    (out / "report.md").unlink()
    with pytest.raises(json.JSONDecodeError):
        results(out)

    code, printed = assay(capsys, "report", run_id, "--store", store, "--rewrite")
    assert code == 0, printed
    assert f"rewrote {out.relative_to(tmp_path) / 'results.json'}" in printed  # from here
    assert damaged_files(out, run_id) == []
    again = results(out)
    assert again["run"]["id"] == run_id and again["trials"] == whole["trials"]
    assert not list(out.glob(".*.tmp"))  # no temporary file left beside them


def test_report_rewrite_refuses_a_run_that_is_not_completed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    _, run_id, store = finished_run(tmp_path, capsys)
    opened = Store(store)
    opened.update_run(run_id, status="reviewing")
    opened.close()
    code, printed = assay(capsys, "report", run_id, "--store", store, "--rewrite")
    assert code == 2 and "not completed" in printed and "--resume" in printed


def test_resume_of_a_completed_run_with_a_cut_results_json_rewrites_it_and_runs_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a kill while results.json was written in place left it truncated, and
    `--resume` refused to repair it because the run was already completed."""
    monkeypatch.chdir(tmp_path)
    out, run_id, store = finished_run(tmp_path, capsys)
    whole = results(out)
    cut_short(out / "results.json")

    code, printed = assay(capsys, "run", "assay.yaml", "--store", store, "--no-progress",
                          "--resume")
    assert code == 0, printed
    again = results(out)  # written again in out/, where the run wrote it, not a new folder
    assert again["run"]["id"] == run_id and again["trials"] == whole["trials"]
    # the same as it was: the run ended when it ended, not when its files were repaired
    assert again["run"]["finished_at"] == whole["run"]["finished_at"]
    assert not (tmp_path / ".assay" / "runs").exists()
    opened = Store(store)
    assert [run.id for run in opened.list_runs("coin")] == [run_id]  # no new run
    assert opened.count_trials(run_id)[0] == 12
    opened.close()


def test_resume_that_rewrites_a_completed_runs_files_starts_no_target(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Nothing is left to run, so nothing is started: a target that can no longer start
    (its module gone) does not stop the files from being written again, and the run keeps
    the config it ended with."""
    monkeypatch.chdir(tmp_path)
    out, run_id, store = finished_run(tmp_path, capsys)
    before = Store(store)
    config = before.get_run(run_id).config  # type: ignore[union-attr]
    before.close()
    (out / "results.json").unlink()
    (tmp_path / "agent.py").unlink()

    code, printed = assay(capsys, "run", "assay.yaml", "--store", store, "--no-progress",
                          "--resume")
    assert code == 0, printed
    assert results(out)["run"]["id"] == run_id
    after = Store(store)
    assert after.get_run(run_id).config == config  # type: ignore[union-attr]
    after.close()


def test_resume_with_whole_files_and_nothing_unfinished_still_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """And names the run that completed: after a kill -9 that came as the run ended, 'no
    unfinished run' alone left the user to guess whether it had."""
    monkeypatch.chdir(tmp_path)
    _, run_id, store = finished_run(tmp_path, capsys)
    code, printed = assay(capsys, "run", "assay.yaml", "--store", store, "--no-progress",
                          "--resume")
    assert code == 2, printed
    assert ("has no unfinished run; its latest, "
            f"{run_id}, completed (`assay report {run_id} --store {store}` shows it)") in printed


@pytest.mark.parametrize(("asked", "named"), [(["-o", "copy.md"], "--output copy.md"),
                                              (["--format", "json"], "--format json")])
def test_report_rewrite_with_an_output_or_a_format_is_refused_not_ignored(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        asked: list[str], named: str) -> None:
    """Regression: `assay report RUN --rewrite -o copy.md` rewrote the run's files, said so and
    exited 0, and copy.md was never written."""
    monkeypatch.chdir(tmp_path)
    _, run_id, store = finished_run(tmp_path, capsys)
    code, printed = assay(capsys, "report", run_id, "--store", store, "--rewrite", *asked)
    assert code == 2, printed
    assert f"so {named} would be ignored" in printed
    assert not (tmp_path / "copy.md").exists()
