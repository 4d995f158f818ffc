"""The plugin in real pytest sessions: evals as tests, under xdist, invisible when unused.

Each test runs pytest in a fresh process on a small project written to a
scratch folder, as a user would; the plugin loads through its `pytest11`
entry point, as it does wherever assay is installed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from textwrap import dedent

import pytest

from assay.cli import main as assay_main
from assay.store import Store

EVAL_TESTS = '''
from support import answer

DATA = [{"id": "refund", "input": "refund?", "expected": "14 days"},
        {"id": "shipping", "input": "shipping?", "expected": "free"},
        {"id": "hours", "input": "opening hours?", "expected": "9 to 18"}]


def test_config_meets_its_bar(assay_eval):
    assay_eval("evals/support.yaml", thresholds={"contains": 0.6})


def test_function_meets_its_bar(assay_eval):
    assay_eval(experiment="support-code", data=DATA, task=answer,
               scorers=[{"type": "contains", "value": "{{ expected }}"}],
               thresholds={"contains": 0.6})


def test_function_misses_a_strict_bar(assay_eval):
    assay_eval(experiment="support-code", data=DATA, task=answer,
               scorers=[{"type": "contains", "value": "{{ expected }}"}],
               thresholds={"contains": 0.9})


def test_not_an_eval():
    assert True
'''

SUPPORT = '''
def answer(case):
    replies = {"refund": "Refunds take 14 days.", "shipping": "Shipping is free."}
    return replies.get(case.input_text.rstrip("?"), "I don't know.")
'''

CONFIG = '''
name: support-config
dataset: {path: cases.jsonl}
target: {type: python, function: support:answer}
scorers:
  - {type: contains, value: "{{ expected }}"}
'''

CASES = '''{"id": "refund", "input": "refund?", "expected": "14 days"}
{"id": "shipping", "input": "shipping?", "expected": "free"}
{"id": "hours", "input": "opening hours?", "expected": "9 to 18"}
'''


def write_project(root: Path) -> Path:
    """A project whose evals live in tests/ (run from `root`, not from the tests' folder)."""
    tests = root / "tests"
    (tests / "evals").mkdir(parents=True)
    (tests / "test_support_evals.py").write_text(EVAL_TESTS, encoding="utf-8")
    (tests / "support.py").write_text(SUPPORT, encoding="utf-8")
    (tests / "evals" / "support.yaml").write_text(CONFIG, encoding="utf-8")
    (tests / "evals" / "support.py").write_text(SUPPORT, encoding="utf-8")
    (tests / "evals" / "cases.jsonl").write_text(CASES, encoding="utf-8")
    return tests


def pytest_in(root: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    env = {name: value for name, value in os.environ.items()
           if name not in ("ASSAY_STORE", "PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER")}
    env["COLUMNS"] = "160"
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *arguments],
                          cwd=root, env=env, capture_output=True, text=True, timeout=300,
                          check=False)


@pytest.mark.slow
def test_evals_under_xdist_are_runs_of_one_store_that_history_lists(
        tmp_path: Path, capsys: object) -> None:
    write_project(tmp_path)
    result = pytest_in(tmp_path, "-n", "2", "-m", "assay", "tests")
    out = result.stdout
    assert result.returncode == 1, out + result.stderr
    assert "2 workers [3 items]" in out  # -m assay left out the one test that is no eval
    assert re.search(r"=+ 1 failed, 2 passed in", out), out
    assert "FAILED tests/test_support_evals.py::test_function_misses_a_strict_bar" in out
    assert "EvalFailed: eval 'support-code' missed 1 of 1 gate" in out
    assert "FAIL contains@default pass rate: 66.7% passed over 3 cases (min 90.0%)" in out
    assert "contains @ default: 1 of 3 trials did not pass" in out
    assert "hours: contains none of '9 to 18' | answer: \"I don't know.\"" in out
    store = Store(str(tmp_path / ".assay" / "assay.db"))
    try:
        runs = store.list_runs()
    finally:
        store.close()
    assert sorted(run.experiment for run in runs) == \
        ["support-code", "support-code", "support-config"]
    assert {run.status for run in runs} == {"completed"}
    summary = out[out.index("assay eval runs"):]
    for run in runs:
        assert f"run {run.id} " in summary
    assert summary.count("FAILED, report .assay/runs/") == 1
    try:
        assay_main(["history", "support-code", "--store", str(tmp_path / ".assay" / "assay.db")])
    except SystemExit as exit_:
        assert exit_.code == 0
    printed = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "support-code · 2 runs" in printed


def write_broken_eval(folder: Path) -> None:
    """A test whose eval cannot complete: its target raises on every case."""
    (folder / "test_broken.py").write_text(dedent('''
        def broken(case):
            raise ValueError("the service is down")

        def test_broken(assay_eval):
            assay_eval(experiment="broken", data=[{"input": "a", "expected": "A"}],
                       task=broken, scorers=["exact_match"])
    '''), encoding="utf-8")


def test_an_eval_that_cannot_finish_fails_its_test_with_one_message(tmp_path: Path) -> None:
    write_broken_eval(tmp_path)
    result = pytest_in(tmp_path, "-q", "test_broken.py")
    out = result.stdout
    assert result.returncode == 1, out + result.stderr
    assert out.count("every trial failed") == 2, out  # the failure and the summary line
    assert "assay: every trial failed (1 of 1), so there is nothing to score; first error: " \
           "ValueError: the service is down" in out
    store = Store(str(tmp_path / ".assay" / "assay.db"))
    [run] = store.list_runs("broken")
    store.close()
    assert f"run {run.id} keeps the trials that ran, stored as not completed: " \
           f"`assay report {run.id}` shows them" in out  # it said nothing of the run
    assert f"run {run.id} could not complete: `assay report {run.id}` shows the trials " \
           "that ran" in out  # the session's list of runs left it out
    assert "no running event loop" not in out and "During handling" not in out


def test_an_eval_that_cannot_finish_under_assay_store_says_how_to_report_it_from_there(
        tmp_path: Path) -> None:
    """Its failure and the session's list said `assay report ID`, which reads
    .assay/assay.db, not the store the session named: 'no run ID'."""
    write_broken_eval(tmp_path)
    result = pytest_in(tmp_path, "-q", "--assay-store", "other.db", "test_broken.py")
    out = result.stdout
    store = Store(str(tmp_path / "other.db"))
    [run] = store.list_runs("broken")
    store.close()
    command = f"`assay report {run.id} --store sqlite:///other.db`"
    assert f"stored as not completed: {command} shows them" in out, out
    assert f"run {run.id} could not complete: {command} shows the trials that ran" in out


def test_not_assay_selects_everything_but_the_evals(tmp_path: Path) -> None:
    write_project(tmp_path)
    result = pytest_in(tmp_path, "-m", "not assay", "tests")
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"1 passed, 3 deselected", result.stdout), result.stdout
    assert not (tmp_path / ".assay").exists()


def test_runs_stored_in_a_store_named_by_assay_store_say_how_history_finds_them(
        tmp_path: Path) -> None:
    """Regression: under `pytest --assay-store other.db` the summary ended 'stored in
    sqlite:///other.db; `assay history` lists them', but `assay history` reads
    .assay/assay.db and lists none of them."""
    write_project(tmp_path)
    result = pytest_in(tmp_path, "--assay-store", "other.db", "-k", "test_config_meets_its_bar",
                       "tests")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "stored in sqlite:///other.db; `assay history --store sqlite:///other.db` lists " \
        "them" in result.stdout, result.stdout
    assert not (tmp_path / ".assay" / "assay.db").exists()


def test_the_history_command_for_a_store_whose_url_a_shell_would_split_is_quoted(
        tmp_path: Path) -> None:
    """`assay history --store sqlite:///my evals.db`, pasted into a shell, named the store
    `sqlite:///my` (and a PostgreSQL URL's `?options=` was a glob to the shell)."""
    write_project(tmp_path)
    result = pytest_in(tmp_path, "--assay-store", "my evals.db", "-k",
                       "test_config_meets_its_bar", "tests")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "`assay history --store 'sqlite:///my evals.db'` lists them" in result.stdout, \
        result.stdout


def test_a_session_without_evals_looks_as_it_does_without_the_plugin(tmp_path: Path) -> None:
    (tmp_path / "test_plain.py").write_text(dedent('''
        import pytest

        def test_adds():
            assert 1 + 1 == 2

        def test_fails():
            assert "a" == "b"

        @pytest.mark.skip(reason="not today")
        def test_skipped():
            pass
    '''), encoding="utf-8")

    def output(*arguments: str) -> str:
        text = pytest_in(tmp_path, "-rA", *arguments).stdout
        text = re.sub(r"in \d+\.\d+s( \(\d+:\d\d:\d\d\))?", "in Ns", text)  # past 60 s: (0:01:02)
        # the summary line is padded with `=` around its text: "in 9.9s" and "in 10.1s" pad
        # it differently, so the padding is not compared
        text = re.sub(r"^=+ (.*?) =+$", r"\1", text, flags=re.MULTILINE)
        # pytest's header names every installed plugin; nothing else may differ
        return re.sub(r"^plugins: .*\n", "", text, flags=re.MULTILINE)

    with_plugin, without = output(), output("-p", "no:assay")
    assert with_plugin == without
    assert "assay" not in with_plugin.replace(str(tmp_path), "")
    quiet = pytest_in(tmp_path, "-q").stdout  # the project's own addopts print no header
    assert "assay" not in quiet.replace(str(tmp_path), "")


def test_loading_the_plugin_imports_nothing_of_assays_engine() -> None:
    script = ("import sys, assay.pytest_plugin.plugin\n"
              "print(sorted(m for m in sys.modules if m.split('.')[0] in "
              "('assay', 'sqlalchemy', 'pydantic', 'scipy', 'numpy', 'jinja2')))")
    loaded = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            check=True).stdout.strip()
    assert loaded == "['assay', 'assay._version', 'assay.pytest_plugin', " \
                     "'assay.pytest_plugin.plugin']"
