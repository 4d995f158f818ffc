"""JUnit XML, so CI systems show an eval's failures as failed tests.

One testcase per case and condition (epochs folded together: any failing
epoch fails the testcase), named by case id and classed by experiment and
condition. A failed scorer becomes a `<failure>` carrying the scorer's
reasons; a target or scorer error becomes an `<error>`. Gates are testcases
of their own suite, named by gate and rule ("contains@docs pass rate (min
80.0%)"), so a failed threshold or regression shows up by a name of its own.
A run that did not complete (aborted, interrupted, failed) has one more
testcase, classed `<experiment>.run`, whose `<error>` says how it ended and
how many of its trials ran: CI shows a run stopped part-way as broken, never
as the tests that happened to pass before it stopped.
"""

from __future__ import annotations

import itertools
import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from assay.reports.text import one_line
from assay.trial import epoch_label
from assay.wording import part_of

if TYPE_CHECKING:
    from assay.records import RunRecord, TrialRecord
    from assay.review.result import GateResult

MAX_MESSAGE = 500


_NOT_IN_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
"""Characters XML 1.0 cannot hold, escaped or not: one makes the whole document unreadable."""


def xml_text(text: str) -> str:
    """`text` with each character XML cannot hold written as its escape (`\\x1b`)."""
    return _NOT_IN_XML.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def _message(text: str) -> str:
    return one_line(text, MAX_MESSAGE)


def render_junit(run: RunRecord, trials: Iterable[TrialRecord],
                 gates: Sequence[GateResult] = ()) -> str:
    """The JUnit XML document for a stored run, its trials in key order."""
    return render_junit_runs([(run, trials, gates)], name=f"assay {run.experiment}")


def render_junit_runs(runs: Sequence[tuple[RunRecord, Iterable[TrialRecord],
                                           Sequence[GateResult]]],
                      *, name: str = "assay", failed: Sequence[tuple[str, str]] = ()) -> str:
    """One document for several runs (a suite): two testsuites per run, cases and gates;
    then a testsuite per config of `failed` (its name, the error that stopped it) holding
    one errored testcase, so a config that could not run is not missing from the tests."""
    root = ET.Element("testsuites", name=name)
    for run, trials, gates in runs:
        _run_suites(root, run, trials, gates)
    for config, error in failed:
        suite = ET.SubElement(root, "testsuite", name=config)
        case = ET.SubElement(suite, "testcase", classname=f"{config}.run", name="run")
        ET.SubElement(case, "error", message=_message(error), type="error").text = error
    for element in [root, *root]:
        _count(element)
    for element in root.iter():
        element.text = None if element.text is None else xml_text(element.text)
        for key, value in element.attrib.items():
            element.set(key, xml_text(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _run_suites(root: ET.Element, run: RunRecord, trials: Iterable[TrialRecord],
                gates: Sequence[GateResult]) -> None:
    suite = ET.SubElement(root, "testsuite", name=run.experiment, timestamp=run.started_at,
                          id=run.id)
    grouped = itertools.groupby(trials, key=lambda t: (t.case_id, t.condition))
    ran = 0
    for (case_id, condition), epochs in grouped:
        trials_of_case = list(epochs)
        ran += len(trials_of_case)
        _testcase(suite, f"{run.experiment}.{condition}", case_id, trials_of_case,
                  run.epochs)
    if run.status != "completed":
        _ending(suite, run, ran)
    if gates:
        gate_suite = ET.SubElement(root, "testsuite", name=f"{run.experiment} gates",
                                   timestamp=run.started_at, id=f"{run.id}-gates")
        for gate, name in zip(gates, gate_names(gates), strict=True):
            case = ET.SubElement(gate_suite, "testcase", classname=f"{run.experiment}.gates",
                                 name=name)
            if not gate.passed:
                ET.SubElement(case, "failure", message=_message(gate.detail),
                              type="gate").text = gate.detail


def _ending(suite: ET.Element, run: RunRecord, ran: int) -> None:
    """The testcase of a run that did not complete: an error saying how it ended."""
    text = (f"the run is {run.status}{f': {run.error}' if run.error else ''} "
            f"({part_of(ran, run.total_trials, 'trial')} ran)")
    case = ET.SubElement(suite, "testcase", classname=f"{run.experiment}.run",
                         name=f"run {run.id}")
    ET.SubElement(case, "error", message=_message(text), type=run.status).text = text


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


def _testcase(suite: ET.Element, classname: str, case_id: str,
              epochs: list[TrialRecord], count: int | None) -> None:
    """The case's testcase; `count` is the run's epochs, for naming each one."""
    seconds = sum((t.latency_ms or 0) for t in epochs) / 1000
    case = ET.SubElement(suite, "testcase", classname=classname, name=case_id,
                         time=f"{seconds:.3f}")
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
    if errors:
        ET.SubElement(case, "error", message=_message(errors[0]), type="error").text = "\n".join(
            errors)
    elif failures:
        scorers = ", ".join(dict.fromkeys(name for name, _ in failures))
        ET.SubElement(case, "failure", message=_message(f"failed: {scorers}"),
                      type=scorers).text = "\n".join(text for _, text in failures)


def _count(element: ET.Element) -> None:
    cases = element.iter("testcase")
    tests = failures = errors = 0
    for case in cases:
        tests += 1
        failures += case.find("failure") is not None
        errors += case.find("error") is not None
    element.set("tests", str(tests))
    element.set("failures", str(failures))
    element.set("errors", str(errors))
