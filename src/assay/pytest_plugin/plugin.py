"""The pytest plugin: the `assay_eval` fixture, the `assay` marker, `--assay-store`.

pytest loads this module in every session of a project that has assay
installed (the `pytest11` entry point `assay`; `-p no:assay` turns it off),
so it imports nothing of assay's until a test asks for an eval, and it adds
nothing to a session's output unless evals ran: then one line per run at
the end, with its id and where its report is.

Tests that use `assay_eval` carry the `assay` marker, so `pytest -m assay`
runs the evals alone and `-m "not assay"` everything else. Under
pytest-xdist each eval is its own run, stored by the worker that ran it.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from assay.api.evaluate import EvalResult

MARKER = "assay"
RUN_PROPERTY = "assay_run"
"""The key a test's `user_properties` records each eval run under (it crosses xdist)."""


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("assay", "assay evals")
    group.addoption("--assay-store", dest="assay_store", metavar="URL", default=None,
                    help="Store for the runs of `assay_eval` tests (a path or SQLAlchemy URL; "
                         "default: ASSAY_STORE, else .assay/assay.db in the working directory).")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{MARKER}: an assay eval (set on tests that use the assay_eval fixture); "
                   f"select them with -m {MARKER}")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that uses `assay_eval`, before `-m` selects (so this runs first)."""
    for item in items:
        if "assay_eval" in getattr(item, "fixturenames", ()):
            item.add_marker(MARKER)


class EvalRunner:
    """`assay_eval(...)`: run an eval, fail the test the way an `assert` does if it misses a gate.

        assay_eval("assay.yaml", thresholds={"contains@docs": 0.8})
        assay_eval(experiment="upper", data=[{"input": "a", "expected": "A"}],
                   task=lambda case: case.input_text.upper(), scorers=["exact_match"],
                   thresholds={"exact_match": 1})

    A config path or `assay.evaluate`'s keyword arguments, relative to the test file's
    folder. `thresholds` map `SCORER[.mean|.pass_rate][@CONDITION]` (what `--fail-under`
    takes) to the least value that passes; they are stored as gates of the run, beside the
    config's own. Returns the `EvalResult` when every gate passes.
    """

    def __init__(self, base_dir: Path, store: str | None,
                 record: Callable[[EvalResult], None],
                 record_stopped: Callable[[str], None] = lambda run_id: None) -> None:
        self.base_dir = base_dir
        self.store = store
        self.record = record
        self.record_stopped = record_stopped

    def __call__(self, config: str | os.PathLike[str] | None = None, *,
                 thresholds: Mapping[str, float] | None = None, **arguments: Any) -> EvalResult:
        __tracebackhide__ = True
        from assay.errors import AssayError
        from assay.pytest_plugin.failure import assert_eval
        from assay.pytest_plugin.running import run_eval
        from assay.pytest_plugin.thresholds import threshold_gates

        refused: str | None = None
        try:
            result = run_eval(config, arguments, base_dir=self.base_dir, store=self.store,
                              gates=threshold_gates(thresholds))
        except AssayError as exc:
            refused = f"assay: {exc}{_stopped_run(exc, self.store)}"
            if (run_id := getattr(exc, "run_id", None)) is not None:
                self.record_stopped(run_id)
        if refused is not None:  # failed outside the `except`: the message shows once
            pytest.fail(refused, pytrace=False)
        self.record(result)
        return assert_eval(result)


def _stopped_run(exc: Exception, store: str | None) -> str:
    """Where the trials of a run that could not complete are: it is in the store, aborted,
    and the failure said nothing of it, nor did the session's list of runs."""
    run_id = getattr(exc, "run_id", None)
    if run_id is None:
        return ""
    return (f"\n  run {run_id} keeps the trials that ran, stored as not completed: "
            f"`{_report_command(run_id, store)}` shows them")


def _report_command(run_id: str, store: str | None) -> str:
    """`assay report ID`, naming the store the session named (`--assay-store`): without it
    the command read .assay/assay.db, which does not hold the run."""
    if store is None:
        return f"assay report {run_id}"
    from assay.store.store import store_url

    return f"assay report {run_id} --store {shlex.quote(_shown(store_url(store, create=False)))}"


@pytest.fixture
def assay_eval(request: pytest.FixtureRequest) -> EvalRunner:
    """Run an assay eval in a test; see `EvalRunner`."""
    store = request.config.getoption("assay_store")
    item = request.node

    def record(result: EvalResult) -> None:
        files = result.files
        item.user_properties.append((RUN_PROPERTY, {
            "run": result.run.id, "experiment": result.run.experiment,
            "passed": result.passed, "store": _shown(result.store_url),
            "store_named": store is not None,
            "report": None if files is None else str(files.markdown)}))

    def record_stopped(run_id: str) -> None:
        item.user_properties.append((RUN_PROPERTY, {
            "run": run_id, "stopped": True, "command": _report_command(run_id, store)}))

    return EvalRunner(Path(str(item.path)).parent, store, record, record_stopped)


def _shown(url: str) -> str:
    """The store's URL as it may be printed: a password in it masked."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """One line per eval run of the session (from every xdist worker), and only if any ran."""
    runs = [value for reports in terminalreporter.stats.values() for report in reports
            if getattr(report, "when", None) == "call"
            for key, value in getattr(report, "user_properties", ()) if key == RUN_PROPERTY]
    if not runs:
        return
    terminalreporter.section("assay eval runs")
    for run in runs:
        if run.get("stopped"):  # it could not complete, and its trials are in the store
            terminalreporter.write_line(f"run {run['run']} could not complete: "
                                        f"`{run['command']}` shows the trials that ran")
            continue
        verdict = "passed" if run["passed"] else "FAILED"
        where = f", report {run['report']}" if run.get("report") else ""
        terminalreporter.write_line(f"{run['experiment']}: run {run['run']} {verdict}{where}")
    reviewed = next((run for run in runs if "store" in run), None)
    if reviewed is not None:
        store = reviewed["store"]
        history = (f"assay history --store {shlex.quote(store)}" if reviewed.get("store_named")
                   else "assay history")
        terminalreporter.write_line(f"stored in {store}; `{history}` lists them")
