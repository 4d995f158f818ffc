"""Every command's exit code, one row per way it can end (docs/ci.md says what each means).

0 every gate passed (for a command that only reads or writes: it did what was asked,
whatever the run's gates said), 1 a gate failed, 2 bad config, dataset or arguments,
3 the run could not complete, 130 Ctrl-C. Rows that need a fake LLM, a signal from
outside or a locked store are pinned where they are built: `tests/judging/test_pairs.py`
(`compare --pairwise` with its judge down), `tests/cli/test_calibrate.py`,
`tests/cli/test_interrupt.py` (SIGTERM), `tests/store/test_failures.py` (a locked store).
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator

import pytest

from assay.cli import main
from assay.store import Store

from .evalproject import PRESSES_CTRL_C, STOPPING, assay, write_project

RAISES = '''
def score(case, output):
    raise RuntimeError("the scorer broke")


def score_answers(case, output):
    if output == "no idea":
        raise RuntimeError("the scorer broke on a non-answer")
    return True
'''


def _run(*args: str) -> int:
    """The exit code of `assay ARGS`, its output dropped (the fixture's runs)."""
    sink = io.StringIO()
    with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink), \
            pytest.raises(SystemExit) as exited:
        main(list(args))
    return int(exited.value.code or 0)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """Configs, and a store holding a passed run, a run whose gate failed and an aborted
    one: the placeholders of the rows."""
    root = tmp_path_factory.mktemp("exit-codes")
    (root / "stopping.py").write_text(STOPPING, encoding="utf-8")
    (root / "ctrl_c.py").write_text(PRESSES_CTRL_C, encoding="utf-8")
    (root / "raises.py").write_text(RAISES, encoding="utf-8")
    (root / "afile").write_text("a file where a folder is asked for\n", encoding="utf-8")

    def stopping(name: str, answered: int) -> None:
        write_project(root, {"only": {"answered": answered}}, cases=10, name=name,
                      config=f"{name}.yaml", extra={"target": {
                          "type": "python", "function": "stopping.py:answer",
                          "threaded": False}})

    write_project(root, {"only": {"rate": 1.0}}, cases=10, name="ok", config="ok.yaml")
    write_project(root, {"only": {"rate": 0.5}}, cases=10, name="half", config="half.yaml")
    write_project(root, {"only": {"rate": 1.0}}, cases=10, name="drop", config="drop.yaml")
    write_project(root, {"only": {"rate": 0.0}}, cases=10, name="drop",
                  config="dropped.yaml")
    stopping("down", answered=0)
    stopping("some", answered=5)
    write_project(root, {"only": {"pressed_at": 3}}, cases=10, name="stopped",
                  config="stopped.yaml", extra={"target": {
                      "type": "python", "function": "ctrl_c.py:answer", "threaded": False}})
    write_project(root, {"only": {"rate": 1.0}}, cases=10, name="unscored",
                  config="unscored.yaml", extra={"scorers": [
                      {"type": "python", "name": "broken", "function": "raises.py:score"}]})
    write_project(root, {"answers": {"rate": 1.0}, "shrugs": {"rate": 0.0}}, cases=10,
                  name="unscored-under-one", config="unscored_under_one.yaml", extra={
                      "scorers": [{"type": "exact_match"}, {"type": "python", "name": "picky",
                                   "function": "raises.py:score_answers"}]})
    store = str(root / "assay.db")
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(root)
        patch.setenv("ASSAY_STORE", store)
        assert _run("run", "ok.yaml", "--no-progress") == 0
        assert _run("run", "half.yaml", "--no-progress") == 0
        assert _run("run", "half.yaml", "--no-progress", "--fail-under",
                    "exact_match=0.99") == 1
        assert _run("run", "drop.yaml", "--no-progress") == 0
        assert _run("run", "down.yaml", "--no-progress") == 3
    runs = Store(store)
    ids = {"passed": runs.resolve_run("latest", "ok").id,
           "half": runs.resolve_run("latest~1", "half").id,
           "failed": runs.resolve_run("latest", "half").id,
           "aborted": runs.resolve_run("latest", "down").id}
    runs.close()
    yield {"dir": str(root), "store": store, **ids}


ROWS = [
    # (what happened, the command line, its exit code, what its output says)
    ("run: every gate passed", "run ok.yaml", 0, "results:"),
    ("run: a threshold gate failed", "run half.yaml --fail-under exact_match=0.99", 1,
     "FAIL gate exact_match@only"),
    ("run: --fail-on-regression tripped", "run dropped.yaml --fail-on-regression", 1,
     "FAIL gate regression"),
    ("run: every trial errored", "run down.yaml", 3, "every trial failed (10 of 10)"),
    ("run: some trials errored, no gate on them", "run some.yaml", 0,
     "5 of 10 trials got no answer"),
    ("run: some trials errored, a gate counts them",
     "run some.yaml --fail-under exact_match=0.9", 1, "5 errored trials count as not passed"),
    ("run: a scorer errored on every trial", "run unscored.yaml", 3,
     "raised RuntimeError: the scorer broke"),
    ("run: a scorer errored on every trial of one condition", "run unscored_under_one.yaml",
     3, "scorer picky has no value under condition shrugs: it errored on all 10 of its trials"),
    ("run: Ctrl-C", "run stopped.yaml", 130, "interrupted; resume with"),
    ("run: an unknown --fail-under scorer", "run ok.yaml --fail-under nosuch=0.5", 2,
     "--fail-under 'nosuch=0.5': no scorer 'nosuch' in this run"),
    ("run: a bad option value", "run ok.yaml --concurrency 0", 2, "--concurrency"),
    ("run: no such config", "run missing.yaml", 2, "config file not found"),
    ("run: --junit where a file is", "run ok.yaml --junit afile/x.xml", 2,
     "afile is a file, not a folder"),
    ("run --resume: nothing to resume", "run ok.yaml --resume", 2, "nothing to resume"),
    ("run --resume: no such run", "run ok.yaml --resume nosuch", 2, "no run 'nosuch'"),
    ("run --resume: a completed run whose gate failed", "run half.yaml --resume {failed}",
     1, "FAIL gate exact_match@only"),
    ("run: a suite with a failed gate and a run that could not complete",
     "run ok.yaml down.yaml --fail-under exact_match=0.99", 3, "suite:"),
    ("validate: a valid config", "validate ok.yaml", 0, "ok ok.yaml"),
    ("validate: no such config", "validate missing.yaml", 2, "config file not found"),
    ("report: a run whose gate failed", "report {failed}", 0, "FAIL"),
    ("report: a run that could not complete", "report {aborted}", 0, "is not completed"),
    ("report: no such run", "report nosuch", 2, "no run 'nosuch'"),
    ("report: -o where a file is", "report {passed} -o afile/r.md", 2,
     "afile is a file, not a folder"),
    ("report: no store", "report latest --store {dir}/none.db", 2, "no store at"),
    ("compare: two runs", "compare {half} {failed}", 0, "exact_match@only"),
    ("compare: no such run", "compare nosuch {failed}", 2, "no run 'nosuch'"),
    ("runs: listed", "runs", 0, "half"),
    ("runs: no store", "runs --store {dir}/none.db", 2, "no store at"),
    ("history: an experiment", "history half", 0, "exact_match@only"),
    ("history: no such experiment", "history nosuch", 2, "no runs of experiment 'nosuch'"),
    ("export: a completed run", "export {passed} -o {dir}/exported", 0, "linked from"),
    ("export: a run that could not complete", "export {aborted} -o {dir}/exported", 2,
     "only a completed run is exported"),
    ("rejudge: no such run", "rejudge nosuch", 2, "no run 'nosuch'"),
    ("rejudge: a run without a judge", "rejudge {passed}", 2, "has no judged scorer"),
    ("calibrate: no spec", "calibrate", 2, "give the calibration spec"),
    ("calibrate --list", "calibrate --list", 0, "no calibrations stored yet"),
    ("schema", "schema", 0, "json-schema.org"),
    ("view: no store", "view --store {dir}/none.db", 2, "no store at"),
    ("traces: no such log", "traces analyze {dir}/no-such-log.jsonl --no-store", 2,
     "session log not found"),
    ("an unknown command", "nosuch", 2, "No such command"),
]


@pytest.mark.parametrize(("command", "code", "said"), [row[1:] for row in ROWS],
                         ids=[row[0] for row in ROWS])
def test_each_way_a_command_ends_has_its_exit_code(
        project: dict[str, str], command: str, code: int, said: str,
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(project["dir"])
    monkeypatch.setenv("ASSAY_STORE", project["store"])
    monkeypatch.setenv("COLUMNS", "200")
    args = [part.format(**project) for part in command.split()]
    if args[0] in ("run", "report", "compare", "rejudge"):
        args.append("--no-progress")
    exited, out = assay(capsys, *args)
    assert exited == code, out
    assert said in out, out
    assert "Traceback" not in out and "internal error" not in out


@pytest.mark.parametrize("command", [[], ["run"]], ids=["assay", "assay run"])
def test_the_help_names_every_exit_code_a_command_can_end_with(
        command: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """A CI author reads the codes from `--help`: 130 (Ctrl-C, resumable) among them."""
    exited, out = assay(capsys, *command, "--help")
    assert exited == 0
    said = " ".join(out.split())
    for code in sorted({row[2] for row in ROWS}):
        assert f" {code} " in said, f"exit code {code} missing from: {said}"


@pytest.mark.parametrize("command", ["report", "export", "rejudge"])
def test_the_help_of_a_command_whose_run_may_be_left_out_says_it_reads_latest(
        command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay report`, `export` and `rejudge` with no RUN take the latest run,
    which their help did not say (`assay compare --help` says what it takes by default)."""
    exited, out = assay(capsys, command, "--help")
    assert exited == 0
    assert "default `latest`" in " ".join(out.split()), out


def test_the_traceback_asked_for_with_assay_debug_masks_a_key_as_the_error_line_does(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    # issue case: ASSAY_DEBUG=1 printed the traceback of an internal error whole, the key
    # its message quoted included, above the line that said it masked
    def breaks(*args: object, **kwargs: object) -> None:
        raise RuntimeError("refused key sk-test-DEBUGKEY4321")

    monkeypatch.setenv("ASSAY_DEBUG", "1")
    monkeypatch.setattr("assay.cli.group.app.main", breaks)
    code, text = assay(capsys, "runs")
    assert code == 3
    assert "Traceback (most recent call last)" in text
    assert "RuntimeError: refused key ***" in text
    assert "DEBUGKEY4321" not in text
