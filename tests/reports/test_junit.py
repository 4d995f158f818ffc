"""JUnit XML: a testcase per case and condition, failures with reasons, errors, gates."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from assay.output import Output
from assay.records import RunRecord, TrialRecord
from assay.reports.junit import render_junit
from assay.review.gates import GateResult
from assay.score import Score

RUN = RunRecord(id="r1", experiment="exp", kind="eval", status="completed",
                started_at="2026-01-01T00:00:00", config={"run": {"epochs": 2}})


def trial(case: str, condition: str, scores: dict[str, Score], *, epoch: int = 0,
          error: str | None = None) -> TrialRecord:
    return TrialRecord(case_id=case, condition=condition, epoch=epoch, input="q", expected=None,
                       output=Output(error=error, latency_ms=1500), scores=scores)


def score(passed: bool | None, reason: str = "", error: str | None = None) -> Score:
    return Score(value=None if passed is None else float(passed), passed=passed, reason=reason,
                 error=error)


def test_cases_failures_errors_and_gates_become_junit() -> None:
    trials = [
        trial("q1", "pack", {"contains": score(True), "judge": score(True)}),
        trial("q1", "training", {"contains": score(False, "no 'Saturn' in the answer"),
                                 "judge": score(False, "score 3 < 7")}),
        trial("q2", "pack", {}, error="TimeoutError: target took longer than 300s"),
        trial("q3", "pack", {"judge": score(None, error="judge reply unparseable")}),
        trial("q4", "pack", {"judge": score(True)}, epoch=0),
        trial("q4", "pack", {"judge": score(False, "score 5 < 7")}, epoch=1),
    ]
    gates = [GateResult("judge@pack pass rate", False, "50.0% (min 80.0%)"),
             GateResult("judge@training error rate", True, "0.0% (max 10.0%)")]
    root = ET.fromstring(render_junit(RUN, trials, gates))
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("7", "3", "2")
    cases = {(c.get("classname"), c.get("name")): c for c in root.iter("testcase")}
    assert cases[("exp.pack", "q1")].find("failure") is None
    assert cases[("exp.pack", "q1")].get("time") == "1.500"
    failure = cases[("exp.training", "q1")].find("failure")
    assert failure.get("message") == "failed: contains, judge"
    assert "no 'Saturn' in the answer" in failure.text and "score 3 < 7" in failure.text
    assert "TimeoutError" in cases[("exp.pack", "q2")].find("error").get("message")
    assert "judge reply unparseable" in cases[("exp.pack", "q3")].find("error").text
    assert "epoch 2 of 2: judge: score 5 < 7" in cases[("exp.pack", "q4")].find("failure").text
    assert cases[("exp.pack", "q4")].get("time") == "3.000"
    gate = cases[("exp.gates", "judge@pack pass rate")].find("failure")
    assert gate.get("message") == "50.0% (min 80.0%)"
    assert cases[("exp.gates", "judge@training error rate")].find("failure") is None



def test_two_gates_on_one_metric_are_two_testcases_named_by_their_rules() -> None:
    """Regression: a config gate and a --fail-under gate on one mean made two testcases named
    "token_f1@some mean", one passing and one failing, which CI tools merge into one."""
    gates = [GateResult("token_f1@some mean", True, "0.61 over 20 scored cases (min 0.5)",
                        "min 0.5"),
             GateResult("token_f1@some mean", False, "0.61 over 20 scored cases (min 0.7)",
                        "min 0.7"),
             GateResult("regression", True, "no earlier completed run", "max drop 2pp"),
             GateResult("regression", False, "not comparable", "max drop 2pp")]
    root = ET.fromstring(render_junit(RUN, [], gates))
    names = [(c.get("name"), c.find("failure") is not None) for c in root.iter("testcase")]
    assert names == [("token_f1@some mean (min 0.5)", False),
                     ("token_f1@some mean (min 0.7)", True),
                     ("regression (max drop 2pp) #1", False),
                     ("regression (max drop 2pp) #2", True)]


def test_control_characters_from_a_target_keep_the_document_well_formed() -> None:
    """Regression: a command's stderr in colour (`\\x1b[31m`) or a case id holding `\\x01`
    made JUnit XML that no CI parser reads ("not well-formed (invalid token)")."""
    run = RunRecord(id="r1", experiment="exp\x07", kind="eval", status="completed",
                    started_at="2026-01-01T00:00:00", config={})
    trials = [trial("a\x01b", "pack", {}, error="exit code 1: \x1b[31mboom\x1b[0m \x00\ufffe"),
              trial("c", "pack", {"judge": score(False, "got '\x0b'")})]
    gates = [GateResult("judge@pack pass rate", False, "\x1b[1m0.0%\x1b[0m")]
    root = ET.fromstring(render_junit(run, trials, gates))
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert set(cases) >= {"a\\x01b", "c"}
    error = cases["a\\x01b"].find("error").text
    assert error == "target: exit code 1: \\x1b[31mboom\\x1b[0m \\x00\\ufffe"
    assert cases["c"].find("failure").text == "judge: got '\\x0b'"


def test_a_suites_document_is_streamed_as_elementtree_wrote_it_whole() -> None:
    """The document is written as the trials stream by (it was built as one tree, 765 MB at
    500,000 trials): every byte as `ET.indent` and `ET.tostring` made it, a failure's text
    and a name's quotes escaped, a run with no trial an empty testsuite, a stopped run's
    ending and a config that could not run a testcase each."""
    import io

    from assay.reports.junit import RunTests, write_junit_runs

    stopped = RunRecord(id="r2", experiment='e"<&>', kind="eval", status="interrupted",
                        started_at="2026-01-01T00:00:00", config={}, total_trials=4)
    empty = RunRecord(id="r3", experiment="none", kind="eval", status="completed",
                      started_at="2026-01-01T00:00:00", config={})
    trials = [trial("q1", "a", {"s": score(True)}),
              trial("q1", "b", {"s": score(False, "no\n'x' <here> & \"there\"")}, epoch=1),
              trial("q2", "a", {}, error="exit 1: \x1b[31mboom\x1b[0m")]
    gates = [GateResult("s@a pass rate", False, "50.0% (min 80.0%)"),
             GateResult("s@b mean", True, "ok")]
    written = io.StringIO()
    write_junit_runs(written, [RunTests(RUN, trials, gates), RunTests(stopped, trials[:1]),
                               RunTests(empty, [])],
                     name="assay suite", failed=[("broken.yaml", "bad config: line 3")])
    assert written.getvalue() == (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<testsuites name="assay suite" tests="8" failures="2" errors="3">\n'
    '  <testsuite name="exp" timestamp="2026-01-01T00:00:00" id="r1" tests="3" failures="1" errors="1">\n'
    '    <testcase classname="exp.a" name="q1" time="1.500" />\n'
    '    <testcase classname="exp.b" name="q1" time="1.500">\n'
    '      <failure message="failed: s" type="s">epoch 2 of 2: s: no\n'
    '\'x\' &lt;here&gt; &amp; "there"</failure>\n'
    '    </testcase>\n'
    '    <testcase classname="exp.a" name="q2" time="1.500">\n'
    '      <error message="epoch 1 of 2: target: exit 1: [31mboom [0m" type="error">epoch 1 of 2: target: exit 1: \\x1b[31mboom\\x1b[0m</error>\n'
    '    </testcase>\n'
    '  </testsuite>\n'
    '  <testsuite name="exp gates" timestamp="2026-01-01T00:00:00" id="r1-gates" tests="2" failures="1" errors="0">\n'
    '    <testcase classname="exp.gates" name="s@a pass rate">\n'
    '      <failure message="50.0% (min 80.0%)" type="gate">50.0% (min 80.0%)</failure>\n'
    '    </testcase>\n'
    '    <testcase classname="exp.gates" name="s@b mean" />\n'
    '  </testsuite>\n'
    '  <testsuite name="e&quot;&lt;&amp;&gt;" timestamp="2026-01-01T00:00:00" id="r2" tests="2" failures="0" errors="1">\n'
    '    <testcase classname="e&quot;&lt;&amp;&gt;.a" name="q1" time="1.500" />\n'
    '    <testcase classname="e&quot;&lt;&amp;&gt;.run" name="run r2">\n'
    '      <error message="the run is interrupted (1 of 4 trials ran)" type="interrupted">the run is interrupted (1 of 4 trials ran)</error>\n'
    '    </testcase>\n'
    '  </testsuite>\n'
    '  <testsuite name="none" timestamp="2026-01-01T00:00:00" id="r3" tests="0" failures="0" errors="0" />\n'
    '  <testsuite name="broken.yaml" tests="1" failures="0" errors="1">\n'
    '    <testcase classname="broken.yaml.run" name="run">\n'
    '      <error message="bad config: line 3" type="error">bad config: line 3</error>\n'
    '    </testcase>\n'
    '  </testsuite>\n'
    '</testsuites>\n')


def test_a_case_errored_in_one_epoch_and_failed_in_another_names_the_failure_too() -> None:
    """Regression: a case whose target errored in epoch 1 and whose judge failed it in epoch
    2 was one `<error>` naming the error alone; the failure, listed in report.md, was in no
    part of the XML."""
    trials = [trial("q1", "pack", {}, epoch=0, error="RuntimeError: backend flaked"),
              trial("q1", "pack", {"judge": score(False, "score 3 < 7")}, epoch=1)]
    root = ET.fromstring(render_junit(RUN, trials))
    case = root.find("testsuite/testcase")
    assert case.find("failure") is None
    error = case.find("error")
    assert error.get("message") == ("epoch 1 of 2: target: RuntimeError: backend flaked; "
                                     "also failed: judge")
    assert error.text.splitlines() == ["epoch 1 of 2: target: RuntimeError: backend flaked",
                                       "epoch 2 of 2: judge: score 3 < 7"]
    assert (root.get("failures"), root.get("errors")) == ("0", "1")
