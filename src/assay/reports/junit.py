"""JUnit XML, so CI systems show an eval's failures as failed tests.

One testcase per case and condition (epochs folded together: any failing
epoch fails the testcase), named by case id and classed by experiment and
condition. A failed scorer becomes a `<failure>` carrying the scorer's
reasons; a target or scorer error becomes an `<error>`, which also names the
failures of the testcase's other epochs and scorers. Gates are testcases
of their own suite, named by gate and rule ("contains@docs pass rate (min
80.0%)"), so a failed threshold or regression shows up by a name of its own.
A run that did not complete (aborted, interrupted, failed) has one more
testcase, classed `<experiment>.run`, whose `<error>` says how it ended and
how many of its trials ran: CI shows a run stopped part-way as broken, never
as the tests that happened to pass before it stopped.

The document is written as the trials stream by: each testsuite's testcases
wait in a temporary file until its counts, which head it, are known.
"""

from __future__ import annotations

import io
import itertools
import re
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, NamedTuple

from assay.reports.text import one_line
from assay.trial import epoch_label
from assay.wording import part_of

if TYPE_CHECKING:
    from assay.records import RunRecord, TrialRecord
    from assay.review.result import GateResult

MAX_MESSAGE = 500
SPOOL_BYTES = 8 * 1024 * 1024
"""A testsuite's testcases are kept in memory up to this size, then in a temporary file."""
COPY_CHARS = 1 << 20
"""Testcases are copied to the document about this much at a time."""


_NOT_IN_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
"""Characters XML 1.0 cannot hold, escaped or not: one makes the whole document unreadable."""


def xml_text(text: str) -> str:
    """`text` with each character XML cannot hold written as its escape (`\\x1b`)."""
    return _NOT_IN_XML.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def _message(text: str) -> str:
    return one_line(text, MAX_MESSAGE)


def render_junit(run: RunRecord, trials: Iterable[TrialRecord],
                 gates: Sequence[GateResult] = ()) -> str:
    """The JUnit XML document for a stored run, its trials in key order, as one string."""
    text = io.StringIO()
    write_junit(text, run, trials, gates)
    return text.getvalue()


def write_junit(handle: IO[str], run: RunRecord, trials: Iterable[TrialRecord],
                gates: Sequence[GateResult] = (), *, status: str | None = None) -> None:
    """Write the JUnit XML document for a stored run to `handle`, as its trials stream by.
    `status`: the run's status as its ending testcase says it, when not as stored (a run
    killed with kill -9 still reads `running`; see `Review.status_said`)."""
    write_junit_runs(handle, [RunTests(run, trials, gates, status)],
                     name=f"assay {run.experiment}")


class RunTests(NamedTuple):
    """A run as its testsuites show it: its trials, its gates, and its status as its ending
    testcase says it when not as stored."""

    run: RunRecord
    trials: Iterable[TrialRecord]
    gates: Sequence[GateResult] = ()
    status: str | None = None


def write_junit_runs(handle: IO[str], runs: Sequence[RunTests], *, name: str = "assay",
                     failed: Sequence[tuple[str, str]] = ()) -> None:
    """One document for several runs (a suite): two testsuites per run, cases and gates;
    then a testsuite per config of `failed` (its name, the error that stopped it) holding
    one errored testcase, so a config that could not run is not missing from the tests.

    The counts head the document, so each testsuite's testcases wait in a temporary file
    until its last one is known: a 500,000-trial run is never held as a tree of elements."""
    suites: list[_Suite] = []
    try:
        for run in runs:
            suites.extend(_run_suites(*run))
        for config, error in failed:
            suite = _Suite({"name": config})
            case = ET.Element("testcase", classname=f"{config}.run", name="run")
            ET.SubElement(case, "error", message=_message(error), type="error").text = error
            suite.add(case)
            suites.append(suite)
        counts = _Counts()
        for suite in suites:
            counts.tests += suite.counts.tests
            counts.failures += suite.counts.failures
            counts.errors += suite.counts.errors
        handle.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        root = {"name": name, **counts.attributes()}
        if not suites:
            handle.write(_empty_tag("testsuites", root) + "\n")
            return
        handle.write(_start_tag("testsuites", root) + "\n  ")
        for index, suite in enumerate(suites):
            suite.write(handle)
            handle.write("\n  " if index < len(suites) - 1 else "\n")
        handle.write("</testsuites>\n")
    finally:
        for suite in suites:
            suite.close()


@dataclass
class _Counts:
    tests: int = 0
    failures: int = 0
    errors: int = 0

    def attributes(self) -> dict[str, str]:
        return {"tests": str(self.tests), "failures": str(self.failures),
                "errors": str(self.errors)}


class _Suite:
    """A testsuite whose testcases are written out as they are added, counted as they go."""

    def __init__(self, attributes: dict[str, str]) -> None:
        self.attributes = attributes
        self.counts = _Counts()
        self._spool: IO[str] = tempfile.SpooledTemporaryFile(  # noqa: SIM115 - closed in close
            max_size=SPOOL_BYTES, mode="w+", encoding="utf-8")

    def add(self, case: ET.Element) -> None:
        self.counts.tests += 1
        self.counts.failures += case.find("failure") is not None
        self.counts.errors += case.find("error") is not None
        for element in case.iter():
            element.text = None if element.text is None else xml_text(element.text)
            for key, value in element.attrib.items():
                element.set(key, xml_text(value))
        ET.indent(case, level=2)
        if self.counts.tests > 1:
            self._spool.write("\n    ")
        self._spool.write(ET.tostring(case, encoding="unicode"))

    def write(self, handle: IO[str]) -> None:
        """The testsuite, indented as `ET.indent` indents it, its testcases copied a run of
        whole lines at a time (a secret in one line is masked by the handle as one)."""
        attributes = {**self.attributes, **self.counts.attributes()}
        if not self.counts.tests:
            handle.write(_empty_tag("testsuite", attributes))
            return
        handle.write(_start_tag("testsuite", attributes) + "\n    ")
        self._spool.seek(0)
        rest = ""
        while chunk := self._spool.read(COPY_CHARS):
            chunk = rest + chunk
            cut = chunk.rfind("\n") + 1
            if cut:
                handle.write(chunk[:cut])
            rest = chunk[cut:]
        handle.write(rest + "\n  </testsuite>")

    def close(self) -> None:
        self._spool.close()


def _empty_tag(tag: str, attributes: dict[str, str]) -> str:
    """`<tag a="..." />`, its attributes escaped as ElementTree escapes them."""
    return ET.tostring(ET.Element(tag, {k: xml_text(v) for k, v in attributes.items()}),
                       encoding="unicode")


def _start_tag(tag: str, attributes: dict[str, str]) -> str:
    return _empty_tag(tag, attributes).removesuffix(" />") + ">"


def _run_suites(run: RunRecord, trials: Iterable[TrialRecord],
                gates: Sequence[GateResult], status: str | None = None) -> list[_Suite]:
    """The run's testsuite of cases, and of its gates when it has any."""
    suites = [_Suite({"name": run.experiment, "timestamp": run.started_at, "id": run.id})]
    grouped = itertools.groupby(trials, key=lambda t: (t.case_id, t.condition))
    ran = 0
    for (case_id, condition), epochs in grouped:
        trials_of_case = list(epochs)
        ran += len(trials_of_case)
        suites[0].add(_testcase(f"{run.experiment}.{condition}", case_id, trials_of_case,
                                run.epochs))
    if run.status != "completed":
        suites[0].add(_ending(run, ran, status or run.status))
    if gates:
        gate_suite = _Suite({"name": f"{run.experiment} gates", "timestamp": run.started_at,
                             "id": f"{run.id}-gates"})
        suites.append(gate_suite)
        for gate, name in zip(gates, gate_names(gates), strict=True):
            case = ET.Element("testcase", classname=f"{run.experiment}.gates", name=name)
            if not gate.passed:
                ET.SubElement(case, "failure", message=_message(gate.detail),
                              type="gate").text = gate.detail
            gate_suite.add(case)
    return suites


def _ending(run: RunRecord, ran: int, status: str) -> ET.Element:
    """The testcase of a run that did not complete: an error saying how it ended (`status`,
    the run's status as a sentence says it)."""
    text = (f"the run is {status}{f': {run.error}' if run.error else ''} "
            f"({part_of(ran, run.total_trials, 'trial')} ran)")
    case = ET.Element("testcase", classname=f"{run.experiment}.run", name=f"run {run.id}")
    ET.SubElement(case, "error", message=_message(text), type=run.status).text = text
    return case


def gate_names(gates: Sequence[GateResult]) -> list[str]:
    """A distinct testcase name per gate: the gate and its rule, numbered when the same gate
    is given twice. CI tools merge testcases of one name, and a failing gate must not be
    merged with a passing one."""
    names = [gate.name for gate in gates]
    counts = Counter(names)
    seen: Counter[str] = Counter()
    unique = []
    for name in names:
        seen[name] += 1
        unique.append(f"{name} #{seen[name]}" if counts[name] > 1 else name)
    return unique


def _testcase(classname: str, case_id: str, epochs: list[TrialRecord],
              count: int | None) -> ET.Element:
    """The case's testcase; `count` is the run's epochs, for naming each one."""
    seconds = sum((t.latency_ms or 0) for t in epochs) / 1000
    case = ET.Element("testcase", classname=classname, name=case_id, time=f"{seconds:.3f}")
    errors: list[str] = []
    failures: list[tuple[str, str]] = []
    for trial in epochs:
        label = epoch_label(trial.epoch, count)
        where = f"{label}: " if label else ""
        if trial.error:
            errors.append(f"{where}target: {trial.error}")
            continue
        for name, score in trial.scores.items():
            if score.error:
                errors.append(f"{where}{name}: {score.error}")
            elif score.passed is False:
                failures.append((name, f"{where}{name}: {score.reason or 'failed'}"))
    scorers = ", ".join(dict.fromkeys(name for name, _ in failures))
    failed = [text for _, text in failures]
    if errors:
        # one element per testcase: the error, its text naming the failures of the other
        # epochs and scorers too, which an errored testcase would otherwise hide
        message = (f"{one_line(errors[0], MAX_MESSAGE // 2)}; also failed: {scorers}"
                   if failures else errors[0])
        ET.SubElement(case, "error", message=_message(message), type="error").text = "\n".join(
            errors + failed)
    elif failures:
        ET.SubElement(case, "failure", message=_message(f"failed: {scorers}"),
                      type=scorers).text = "\n".join(failed)
    return case

