"""Finishing a run: its files are written before it is completed, and a failure to write
them is said plainly and repaired by a resume."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from typing import Any

import pytest

import assay
from assay import Case
from assay.errors import FileWriteError
from assay.store import Store
from tests.store.counted_reads import count_run_reads, reads_of

DATA = [{"id": f"c{i}", "input": "q", "expected": "A"} for i in range(5)]


def answer(case: Case) -> str:
    return "A"


def test_a_full_disk_while_writing_the_files_keeps_the_run_for_a_resume(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: it ended in 'internal error: OSError ... this is a bug in assay'."""
    out, store = tmp_path / "out", tmp_path / "assay.db"

    def full(descriptor: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with monkeypatch.context() as patched:
        patched.setattr(os, "fsync", full)
        with pytest.raises(FileWriteError, match=r"results\.json: .*Every trial is stored; "
                                                 r"once it can be written, `assay run .* "
                                                 r"--resume` writes the run's files"):
            assay.evaluate("full-disk", data=DATA, task=answer, scorers=["exact_match"],
                           store=store, output=out)
    opened = Store(str(store))
    [run] = opened.list_runs()
    assert run.status == "failed" and "FileWriteError" in (run.error or "")
    assert opened.count_trials(run.id) == (5, 0)
    opened.close()

    resumed = assay.evaluate("full-disk", data=DATA, task=answer, scorers=["exact_match"],
                             store=store, output=out, resume=True)
    assert resumed.run.id == run.id and resumed.run.status == "completed"
    assert len(json.loads((out / "results.json").read_text())["trials"]) == 5


def test_a_review_stopped_by_ctrl_c_leaves_the_run_interrupted_not_reviewing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: an exit during the review left the run `reviewing` for good."""
    from assay.review import finish

    def stopped(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    store = tmp_path / "assay.db"
    with monkeypatch.context() as patched:
        patched.setattr(finish, "compare_run_conditions", stopped)
        with pytest.raises(KeyboardInterrupt):
            assay.evaluate("stopped", data=DATA, task=answer, scorers=["exact_match"],
                           store=store, output=tmp_path / "out")
    opened = Store(str(store))
    [run] = opened.list_runs()
    assert (run.status, run.error) == ("interrupted", "interrupted by the user")
    assert run.finished_at is not None and run.review is None
    opened.close()
    resumed = assay.evaluate("stopped", data=DATA, task=answer, scorers=["exact_match"],
                             store=store, output=tmp_path / "out", resume=True)
    assert resumed.run.id == run.id and resumed.run.status == "completed"


def test_a_completed_run_whose_lost_files_cannot_be_written_again_stays_completed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: a resume that wrote a completed run's lost files again marked the run
    running, then 'failed' (or 'interrupted' on Ctrl-C) when the disk was full, and set its
    end to that moment, though every trial and its verdict were as they were."""
    out, store = tmp_path / "out", tmp_path / "assay.db"
    done = assay.evaluate("repaired", data=DATA, task=answer, scorers=["exact_match"],
                          store=store, output=out)
    (out / "report.md").unlink()

    def full(descriptor: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with monkeypatch.context() as patched:
        patched.setattr(os, "fsync", full)
        with pytest.raises(FileWriteError):
            assay.evaluate("repaired", data=DATA, task=answer, scorers=["exact_match"],
                           store=store, output=out, resume=True)
    opened = Store(str(store))
    [run] = opened.list_runs()
    assert (run.status, run.error, run.finished_at) == ("completed", None,
                                                        done.run.finished_at)
    opened.close()
    repaired = assay.evaluate("repaired", data=DATA, task=answer, scorers=["exact_match"],
                              store=store, output=out, resume=True)
    assert repaired.run.id == run.id and repaired.run.finished_at == done.run.finished_at
    assert (out / "report.md").exists()


def test_a_stopped_runs_warnings_point_at_no_report_md_it_never_wrote(tmp_path: Path) -> None:
    """Regression: a run stopped by a scorer that failed on every trial (exit 3) writes no
    report.md, yet its warning in `assay report` and `assay view` said 'see Errors in
    report.md'."""
    from assay.errors import RunFailed
    from assay.review.finish import review_stored

    def broken(case: Case, output: assay.Output) -> bool:
        raise ValueError("no")

    out, store = tmp_path / "out", tmp_path / "assay.db"
    with pytest.raises(RunFailed):
        assay.evaluate("stopped", data=DATA, task=answer, scorers=["exact_match", broken],
                       store=store, output=out)
    opened = Store(str(store))
    [run] = opened.list_runs()
    [warning] = review_stored(opened, run).warnings
    opened.close()
    assert not (out / "report.md").exists()
    assert warning.startswith("scorer broken has no value: it errored on all 5 of its trials "
                              "with an answer (first: ")
    assert "report.md" not in warning


def _two_runs(store: Path, **options: Any) -> tuple[str, str]:
    """Two runs of one experiment, two conditions each; (older id, newer id)."""
    ids = [assay.evaluate("read-once", data=DATA, task=answer, scorers=["exact_match"],
                          conditions={"a": {}, "b": {}}, store=store, reports=False,
                          **options).run.id
           for _ in range(2)]
    return ids[0], ids[1]


def test_a_report_reads_each_runs_rows_once_for_its_summary_comparisons_judges_and_diff(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: `assay report` read the run's score and trial rows for its summary and
    again for its comparisons and diff, its judged scores for its judges and again for
    the diff, and the previous run's whole rows where its scores' values would do."""
    from assay.review.finish import review_stored

    older, newer = _two_runs(tmp_path / "assay.db")
    reads = count_run_reads(monkeypatch)
    opened = Store(str(tmp_path / "assay.db"))
    review = review_stored(opened, opened.get_run(newer))  # type: ignore[arg-type]
    opened.close()
    assert review.comparisons.entries and review.previous is not None
    assert reads_of(reads, newer) == {"iter_trial_rows": 1, "iter_score_rows": 1,
                                      "iter_scores": 1}
    assert reads_of(reads, older) == {"iter_case_values": 1, "failed_trial_keys": 1,
                                      "judge_identities": 1}


def test_a_review_fed_to_a_report_reads_the_run_in_one_pass_over_its_trials(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`review_stored(also=...)` (report.md and results.json) gathers the review from the
    pass that hands each trial to the report, and reads the run no other way."""
    from assay.review.finish import review_stored

    _older, newer = _two_runs(tmp_path / "assay.db")
    reads = count_run_reads(monkeypatch)
    opened = Store(str(tmp_path / "assay.db"))
    seen: list[str] = []
    run = opened.get_run(newer)
    assert run is not None
    fed = review_stored(opened, run, also=lambda trial: seen.append(trial.case_id))
    assert reads_of(reads, newer) == {"iter_trials": 1}
    assert len(seen) == opened.count_trials(newer)[0]
    assert fed == review_stored(opened, run)  # the same review either way
    opened.close()


def test_a_regression_gate_on_the_previous_run_reuses_its_diff_not_reads_it_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: a gate naming the previous run as its baseline read that run's cases
    a second time (and once more for each such gate)."""
    store = tmp_path / "assay.db"
    _, previous = _two_runs(store)
    reads = count_run_reads(monkeypatch)
    gate = {"regression": {"baseline": previous, "max_drop_pp": 50}}
    review = assay.evaluate("read-once", data=DATA, task=answer, scorers=["exact_match"],
                            conditions={"a": {}, "b": {}}, store=store, reports=False,
                            gates=[gate, gate])
    assert review.gates and all(g.passed for g in review.gates)
    assert reads[("iter_case_values", previous)] == 1  # this run's came with its one read
    assert not [name for name, run in reads if name == "iter_case_values" and run != previous]



def test_a_recorded_folder_under_the_working_directory_is_named_from_there(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A resumed run read its files' folder back from the store, in full, and printed
    'results: /home/.../.assay/runs/ID/results.json' where the fresh run had printed
    '.assay/runs/ID/results.json'."""
    from assay.review.finish import recorded_folder

    monkeypatch.chdir(tmp_path)
    assert recorded_folder(str(tmp_path / ".assay" / "runs" / "r1")) == \
        Path(".assay/runs/r1")
    assert recorded_folder("/srv/reports") == Path("/srv/reports")


def _gated_run(root: Path, capsys: pytest.CaptureFixture[str], *args: str,
               gates: list[dict[str, Any]] | None = None) -> tuple[str, Path]:
    """15 cases, every one passed (a pass rate whose 95% interval is 79.6%..100%), run with
    `args` and the config's `gates`: what it printed, and the folder of its files."""
    from tests.cli.evalproject import assay as run_cli
    from tests.cli.evalproject import write_project

    config = write_project(root, {"only": {"rate": 1.0}}, cases=15,
                           extra={"gates": gates} if gates else None)
    out = root / "out"
    code, printed = run_cli(capsys, "run", str(config), "--store", str(root / "s.db"),
                            "--no-progress", "-o", str(out), *args)
    assert code == 0, printed
    return printed, out


def _rendered(out: Path) -> dict[str, str]:
    from tests.view.page_text import page_text

    return {"report.md": (out / "report.md").read_text(encoding="utf-8"),
            "report.html": page_text((out / "report.html").read_text(encoding="utf-8"))}


def test_a_fail_under_gate_keeps_the_score_tables_interval_on_its_side_of_the_bar(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay run CONFIG --fail-under exact_match=0.8` printed `100.0% [80%–100%]`
    beside `min 80.0%`, a low end of 79.6% read as at the bar: the table's bars were read
    from the config as stored, which holds no gate given on the command line."""
    from tests.cli.evalproject import assay as run_cli

    printed, out = _gated_run(tmp_path, capsys, "--fail-under", "exact_match=0.8")
    assert "(min 80.0%)" in printed
    for where, text in {"terminal": printed, **_rendered(out)}.items():
        assert "100.0% [79.6%–100.0%]" in text and "[80%–100%]" not in text, where
        assert "95% CI 79.6%..100.0%, n=15" in text, where
    # the stored config holds no such gate: the run's review keeps its minimum, so the
    # run's report later reads as the one written when it ran
    code, printed = run_cli(capsys, "report", "latest", "--store", str(tmp_path / "s.db"))
    assert code == 0 and "100.0% [79.6%–100.0%]" in printed, printed


def test_a_config_gate_set_from_the_environment_keeps_the_interval_on_its_side_of_the_bar(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: a gate written `min_pass_rate: ${MIN_RATE}` is stored as written, so the
    score table, reading the stored config, printed `[80%–100%]` beside `min 80.0%`."""
    monkeypatch.setenv("MIN_RATE", "0.8")
    printed, out = _gated_run(tmp_path, capsys, gates=[
        {"scorer": "exact_match", "min_pass_rate": "${MIN_RATE}"}])
    assert "(min 80.0%)" in printed
    for where, text in {"terminal": printed, **_rendered(out)}.items():
        assert "100.0% [79.6%–100.0%]" in text, where
    from tests.cli.evalproject import assay as run_cli

    # the stored config holds `${MIN_RATE}`, no minimum: the run's review keeps the value
    code, printed = run_cli(capsys, "report", "latest", "--store", str(tmp_path / "s.db"))
    assert code == 0 and "PASS exact_match@only pass rate" in printed, printed
    assert "100.0% [79.6%–100.0%]" in printed, printed


def test_a_stored_runs_report_reads_its_configs_gates_for_the_table(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`assay report RUN` and the viewer build the review of a stored run: the bars of its
    gates come from its recorded review, or for a run recorded before the review kept them,
    from the config it stored."""
    from tests.cli.evalproject import assay as run_cli

    _gated_run(tmp_path, capsys, gates=[{"scorer": "exact_match", "min_pass_rate": 0.8}])
    code, printed = run_cli(capsys, "report", "latest", "--store", str(tmp_path / "s.db"))
    assert code == 0, printed
    assert "100.0% [79.6%–100.0%]" in printed


def test_a_stopped_runs_gate_set_from_the_environment_fails_unjudged_in_its_report(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: a run stopped by its error budget, whose gate read `min_pass_rate:
    ${MIN_RATE}`, ended 'internal error: ValidationError' in place of what stopped it when
    given --junit, and `assay report RUN` of it said the same (exit 3): the gates of a run
    with no recorded review were read from its stored config, which keeps `${MIN_RATE}`."""
    from tests.cli.evalproject import assay as run_cli
    from tests.cli.evalproject import write_stopping_project

    monkeypatch.setenv("MIN_RATE", "0.8")
    config = write_stopping_project(tmp_path, cases=10, answered=3, max_errors=2, extra={
        "gates": [{"scorer": "exact_match", "min_pass_rate": "${MIN_RATE}"}]})
    store, junit = str(tmp_path / "s.db"), tmp_path / "junit.xml"
    code, printed = run_cli(capsys, "run", str(config), "--store", store, "--no-progress",
                            "--junit", str(junit))
    assert code == 3 and "error budget reached" in printed, printed
    unjudged = ("FAIL exact_match: not judged: the run stores this gate as written "
                "(min_pass_rate: ${MIN_RATE}), not the value it read then")
    assert unjudged.partition(": ")[2] in junit.read_text(encoding="utf-8")
    code, printed = run_cli(capsys, "report", "latest", "--store", store)
    assert code == 0 and unjudged in printed, printed
