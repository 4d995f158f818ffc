"""One stored run read in every view: the numbers they share are the same numbers.

The run stresses the counting: three epochs, some of them target errors; a
scorer that errors on one case; a judge whose reply could not be read on one
epoch; a case stored under one condition only; a condition whose every trial
errored; a 0/1 scorer beside a 0-10 judge and a graded check. Each view is
read as its user reads it (the terminal wide, report.md, report.html and the
viewer's review as text, results.json), its scores table taken apart by its
own columns, and every row must match the other views' and results.json's.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from assay.case import Case
from assay.output import Output, Usage
from assay.review.result import Review
from assay.score import Score
from assay.trial import TrialResult
from tests.cli.conftest import Cli
from tests.review.renderings import renderings

CONDITIONS = ("plain", "tools", "down")
SCORERS = ("exact", "judge", "check")
CASES, EPOCHS = 8, 3
ONE_SIDED = "c7"
"""Stored under `plain` only."""


def _result(i: int, condition: str, epoch: int) -> TrialResult:
    case = Case(id=f"c{i}", input=f"question {i}", expected=f"answer {i}")
    if condition == "down" or (i == 1 and epoch == 1) or (i == 2 and condition == "tools"
                                                         and epoch):
        return TrialResult(case, condition, epoch,
                           Output(error="TimeoutError: no answer", latency_ms=30000.0))
    grade = 3 + (i * 3 + epoch) % 7
    judge = (Score.failure("unreadable judge reply: no score between 0 and 10 found",
                           details={"judge_errors": 1}) if i == 4 and epoch == 2
             else Score(value=float(grade), scale=(0.0, 10.0), passed=grade >= 6,
                        reason="judged", usage=Usage(input_tokens=400, output_tokens=40,
                                                     cost_usd=0.00123 + 0.0001 * i)))
    check = (Score.failure("check raised ValueError") if i == 5
             else Score(value=0.4 + 0.05 * i + 0.1 * epoch, passed=None))
    exact = Score.binary((i + epoch + (condition == "tools")) % 3 != 0, "compared")
    agent = {"agent": {"turns": 2 + i % 3, "tool_calls": 1 + i % 2, "tool_errors": i % 2}}
    return TrialResult(case, condition, epoch,
                       Output(text="an answer", latency_ms=120.0 + 7 * i + epoch,
                              usage=Usage(input_tokens=90, output_tokens=12, cost_usd=0.000321),
                              metadata=agent if condition == "tools" else {}),
                       {"exact": exact, "judge": judge, "check": check})


@pytest.fixture(scope="module")
def shown(tmp_path_factory: pytest.TempPathFactory) -> tuple[Review, dict[str, str]]:
    """The run reviewed from the store as `assay report` and the viewer review it, and each
    view's text."""
    from assay.review.finish import review_stored
    from assay.review.summary import summarize_run
    from assay.store import Store

    store = Store(str(tmp_path_factory.mktemp("agree") / "assay.db"))
    store.create_run(id="run-1", experiment="agree", status="running",
                     started_at="2025-03-01T09:00:00+00:00", dataset_hash="d1",
                     total_trials=CASES * len(CONDITIONS) * EPOCHS,
                     config={"name": "agree", "conditions": {c: {} for c in CONDITIONS},
                             "run": {"epochs": EPOCHS}})
    store.write_trials("run-1", [_result(i, c, e) for i in range(CASES) for c in CONDITIONS
                                 for e in range(EPOCHS)
                                 if not (f"c{i}" == ONE_SIDED and c == "tools")])
    summary = summarize_run(store, "run-1", scorers=list(SCORERS), conditions=list(CONDITIONS))
    store.update_run("run-1", status="completed", summary=summary.to_dict(),
                     finished_at="2025-03-01T09:30:00+00:00")
    run = store.get_run("run-1")
    assert run is not None
    review = review_stored(store, run)
    views = renderings(review, list(store.iter_trials("run-1")))
    store.close()
    return review, {where: re.sub(r"\s+", " ", text.replace("|", " ")) if where != "results.json"
                    else text for where, text in views.items()}


MEAN = r"-|\d+\.\d+(?: \[\d+\.\d+–\d+\.\d+\])?"
RATE = r"-|\d+(?:\.\d+)?% \[\d+(?:\.\d+)?%–\d+(?:\.\d+)?%\]"
ROW = {
    # condition, n, mean, pass rate, errored trials, in each view's own column order
    "terminal": rf"{{c}} (\d+) ({MEAN}) ({RATE}) (\d+)",
    "report.md": rf"{{c}} (\d+) ({MEAN}) ({RATE}) (\d+)",
    "report.html": rf"{{c}} (\d+) ({MEAN})(?: -)? ({RATE})(?: -)? (\d+)",  # `-`: no meter
    "assay view": rf"{{c}} (\d+) (?P<errors>\d+) ({MEAN}) ({RATE})",
}


def _score_rows(where: str, text: str) -> dict[tuple[str, str], tuple[str, str, str, str]]:
    """(scorer, condition) -> (n, mean, pass rate, errored trials) as `where` shows them; the
    rows of a condition come in the scorers' order in every view."""
    rows = {}
    for condition in CONDITIONS:
        found = list(re.finditer(ROW[where].format(c=condition), text))
        assert len(found) >= len(SCORERS), (where, condition, text[:3000])
        for scorer, match in zip(SCORERS, found):
            cells = match.groups()
            if where == "assay view":
                cells = (cells[0], cells[2], cells[3], cells[1])
            rows[(scorer, condition)] = cells
    return rows


def test_every_view_shows_each_scores_row_alike_and_as_results_json_holds_it(
        shown: tuple[Review, dict[str, str]]) -> None:
    _, views = shown
    tables = {where: _score_rows(where, views[where]) for where in ROW}
    reference = tables["terminal"]
    for where, table in tables.items():
        assert table == reference, f"{where} differs from the terminal"
    stats = {(s["scorer"], s["condition"]): s
             for s in json.loads(views["results.json"])["stats"]["scores"]}
    for key, (n, mean, rate, errors) in reference.items():
        held = stats[key]
        assert (int(n), int(errors)) == (held["n"], held["errors"]), key
        if held["mean"] is not None:
            shown_mean = mean.split(" ")[0]
            assert Decimal(shown_mean) == round(Decimal(held["mean"]), len(shown_mean) - 2), key
        if held["pass_rate"] is not None:
            assert rate.split(" ")[0] == f"{held['pass_rate']:.1%}", key


def test_report_html_shows_no_trial_count_beside_the_per_case_pass_rate(
        shown: tuple[Review, dict[str, str]]) -> None:
    """Regression: report.html's scores table put a `trials passed` count beside the pass
    rate, which is per case first over three epochs: `12/21` beside `54.2%` (12 of 21 is
    57.1%) read as a slip, and the terminal and report.md show no such count. The table
    has their columns, in their order."""
    _, views = shown
    columns = "scorer condition n mean [95% CI] pass rate [95% CI] errored trials"
    for where in ("terminal", "report.md", "report.html"):
        assert columns in views[where], where
    table = views["report.html"].split(columns)[1].split("Conditions compared")[0]
    assert not re.search(r"\b\d+/\d+\b", table), table


def test_a_pass_rates_interval_has_the_rates_decimals_in_every_view(
        shown: tuple[Review, dict[str, str]]) -> None:
    """Regression: the score tables wrote a pass rate's interval in whole percents beside a
    rate at one decimal (`64.6% [40%–83%]`), where the viewer's history of the same run
    wrote `40.x%..83.x%`: the same interval, two values. Every view writes the bounds at
    the rate's decimal, as `percent` writes any share."""
    from assay.shown_numbers import percent

    review, views = shown
    checked = 0
    for s in review.summary.scores:
        if s.pass_rate is None or s.pass_rate_ci is None or s.n < 2:
            continue
        low, high = s.pass_rate_ci.low, s.pass_rate_ci.high
        if not (0.01 < low and high < 0.99):
            continue  # an end needs its own digits
        row = f"{percent(s.pass_rate)} [{percent(low)}–{percent(high)}]"
        for where in ("terminal", "report.md", "report.html", "assay view"):
            assert row in views[where], (where, row)
        checked += 1
    assert checked >= 3


def test_the_counts_read_as_the_run_stored_them(shown: tuple[Review, dict[str, str]]) -> None:
    """n counts cases (a case with every epoch errored is not among them); the errored trials
    are the target's and the scorer's own, every epoch counted."""
    _, views = shown
    rows = _score_rows("terminal", views["terminal"])
    assert rows[("exact", "plain")][0::3] == ("8", "1")  # c1's epoch 2 got no answer
    assert rows[("exact", "tools")][0::3] == ("7", "3")  # no c7; c1 once, c2 twice
    assert rows[("judge", "tools")][0::3] == ("7", "4")  # and c4's unreadable reply
    assert rows[("check", "tools")][0::3] == ("6", "6")  # and c5 every epoch
    assert rows[("exact", "down")][0::3] == ("0", "24")


def test_each_comparison_adds_up_in_every_view(shown: tuple[Review, dict[str, str]]) -> None:
    """Before and after as shown differ by the delta shown beside them (rounded to its
    digits), in every view that prints the row."""
    review, views = shown
    rows = 0
    for entry in review.comparisons.entries:
        c = entry.comparison
        pattern = (rf"{c.scorer} {c.label_b} {c.n} (\S+) (\S+) ([-+]\S+?)(pp)? ")
        for where in ("report.md", "report.html", "assay view"):
            found = re.search(pattern, views[where])
            assert found, (where, pattern)
            before, after, delta = (found.group(k).rstrip("%") for k in (1, 2, 3))
            digits = len(delta.split(".")[1])
            assert round(Decimal(after) - Decimal(before), digits) == Decimal(delta), \
                (where, found.group(0))
            rows += 1
    assert rows == 3 * len(review.comparisons.entries) > 0


def test_the_total_cost_is_the_sum_of_its_parts_and_of_the_conditions(
        shown: tuple[Review, dict[str, str]]) -> None:
    _, views = shown
    total = re.search(r"total cost \$(\S+) \(target \$(\S+), judges \$(\S+)\)",
                      views["terminal"])
    assert total, views["terminal"]
    whole, target, judges = (Decimal(x) for x in total.groups())
    assert whole == target + judges
    for where in ("report.md", "report.html"):
        assert total.group(0) in views[where], where
    conditions = re.findall(r"(plain|tools) \d+ \d+ \S+ s [\d,]+/[\d,]+ \$(\S+) \$(\S+)",
                            views["report.md"])
    assert len(conditions) == 2, views["report.md"]
    assert sum(Decimal(cost) for _, cost, _ in conditions) == target
    assert sum(Decimal(cost) for _, _, cost in conditions) == judges


def test_every_view_counts_an_agent_conditions_tool_calls_tool_errors_and_turns_alike(
        shown: tuple[Review, dict[str, str]]) -> None:
    """Regression: report.html and results.json counted each condition's turns, while the
    terminal, report.md and the viewer's review left them out, so the turns an agent took
    could be compared in one view only."""
    _, views = shown
    [held] = [c for c in json.loads(views["results.json"])["stats"]["conditions"]
              if c["condition"] == "tools"]
    calls, errors, turns = held["tool_calls"], held["tool_errors"], held["turns"]
    assert (calls, errors, turns) == (26, 8, 49)
    shown_as = {"terminal": f"{calls} {errors} {turns}", "report.md": f"{calls} {errors} {turns}",
                "report.html": f"{calls} {errors} {turns}",
                "assay view": f"{calls} ({errors}) {turns}"}
    for where, counts in shown_as.items():
        rows = [row for row in re.findall(r"tools \d.*? down ", views[where]) if "$" in row]
        assert any(f" {counts} " in row for row in rows), (where, rows)


def test_the_runs_listing_shows_the_pass_rates_of_the_report(
        shown: tuple[Review, dict[str, str]]) -> None:
    """`assay runs` reads the stored summary; its figures are the report's, at 0 decimals."""
    from assay.cli.runs import headline

    review, _ = shown
    line = headline(review.summary.to_dict())
    for s in review.summary.scores:
        if s.scorer == "exact" and s.pass_rate is not None:
            assert f"{s.condition} {s.pass_rate:.0%} ({s.errors} errored" in line, line


def test_every_view_with_an_errored_trials_column_names_what_the_scorers_could_not_score(
        shown: tuple[Review, dict[str, str]]) -> None:
    """Regression: judge's errored trials under tools read 4 beside the condition's 3 target
    errors in report.html and the viewer, whose error examples were the target's alone: the
    judge's unreadable reply, which the terminal warned of, was named nowhere on either."""
    from assay.reports.unscored import unscored_warnings

    review, views = shown
    warnings = unscored_warnings(review.summary)
    assert [w.split(" (first")[0] for w in warnings] == [
        "28 of 69 trials got no answer from the target, so they have no score",
        "judge could not score 2 answers, left out of its figures, not counted as 0",
        "check could not score 6 answers, left out of its figures, not counted as 0"]
    for where in ("terminal", "report.html", "assay view"):
        for warning in warnings:
            assert warning in views[where], (where, warning)


HALVES_AGENT = "def answer(case, passes):\n    return 'a' if int(case.id[1:]) < passes else 'b'\n"


def test_a_tie_rounds_away_from_zero_alike_in_every_view(tmp_path: Path) -> None:
    """Regression: 9 of 16 (56.25%) read `56.2%`, +6.25pp `+6.2pp` and a mean of 0.5625
    `0.562`, Python's rounding to even, where people read 56.3%. Every view rounds a tie
    away from zero, by one rule: the run's terminal, report.md, report.html, results.json's
    verdicts, JUnit, `assay view`, `assay compare` and `assay history`."""
    from assay.review.finish import review_stored
    from assay.store import Store

    (tmp_path / "agent.py").write_text(HALVES_AGENT)
    (tmp_path / "cases.jsonl").write_text("".join(
        json.dumps({"id": f"c{i:02d}", "input": "q", "expected": "a"}) + "\n"
        for i in range(16)))
    cli = Cli(tmp_path)
    texts: dict[str, str] = {}
    for number, (base, nine) in enumerate([(8, 9), (9, 8)], 1):
        (tmp_path / "assay.yaml").write_text(yaml.safe_dump({
            "name": "halves", "dataset": {"path": "cases.jsonl"},
            "target": {"type": "python", "function": "agent:answer"},
            "conditions": {"base": {"args": {"passes": base}},
                           "nine": {"args": {"passes": nine}}},
            "scorers": [{"type": "exact_match"}],
            "gates": [{"scorer": "exact_match", "min_pass_rate": 0.6}]}))
        run = cli("run", "assay.yaml", "--no-progress", "-o", f"out{number}",
                  "--junit", f"out{number}/junit.xml")
        assert run.returncode == 1, run.stderr  # the gate at 60% fails
        texts[f"run {number} terminal"] = run.stdout
        texts[f"run {number} junit"] = (tmp_path / f"out{number}" / "junit.xml").read_text()
    texts["compare"] = cli("compare", "-e", "halves").stdout
    texts["history"] = cli("history", "halves").stdout
    store = Store(str(tmp_path / "assay.db"))
    first = store.list_runs("halves")[-1]
    texts |= {f"run 1 {where}": text
              for where, text in renderings(review_stored(store, first)).items()}
    store.close()
    for where, text in texts.items():
        assert "56.3%" in text, where
        assert "56.2%" not in text and "6.2pp" not in text, where
        assert not re.search(r"0\.562(?!\d)", text), where
    for where in ("run 1 terminal", "run 1 report.md", "run 1 report.html",
                  "run 1 results.json", "run 1 assay view", "compare"):
        assert "+6.3pp" in texts[where], where
    assert "0.563" in texts["run 1 report.md"]


THOUSANDS = 1200


def _thousands_result(i: int, condition: str) -> TrialResult:
    """`new` passes every case, `old` none; `old`'s target fails on every 100th case."""
    case = Case(id=f"k{i}", input=f"question {i}", expected="yes")
    if condition == "old" and i % 100 == 0:
        return TrialResult(case, condition, 0, Output(error="TimeoutError: no answer"))
    return TrialResult(case, condition, 0, Output(text="an answer", latency_ms=10.0),
                       {"exact": Score.binary(condition == "new", "compared")})


def test_every_count_over_999_is_written_with_a_thousands_separator_in_every_view(
        tmp_path: Path) -> None:
    """Regression: report.md's run line read `trials: 2,400 of 2,400` above a conditions
    table of `1200` trials each, a scores table of `n` 1200, `new wins (1200)` and `... and
    1138 more` failures; the terminal wrote `1200` and `n=1200`, report.html `1200` and
    `0/1188` beside them. A count is written one way everywhere: `1,200`."""
    from assay.review.finish import review_stored
    from assay.store import Store

    store = Store(str(tmp_path / "assay.db"))
    store.create_run(id="run-k", experiment="thousands", status="running",
                     started_at="2025-03-01T09:00:00+00:00", dataset_hash="d1",
                     total_trials=2 * THOUSANDS,
                     config={"name": "thousands", "conditions": {"old": {}, "new": {}}})
    store.write_trials("run-k", [_thousands_result(i, c) for i in range(THOUSANDS)
                                 for c in ("old", "new")])
    from assay.review.summary import summarize_run
    summary = summarize_run(store, "run-k", scorers=["exact"], conditions=["old", "new"])
    store.update_run("run-k", status="completed", summary=summary.to_dict(),
                     finished_at="2025-03-01T09:30:00+00:00")
    run = store.get_run("run-k")
    assert run is not None
    views = renderings(review_stored(store, run), list(store.iter_trials("run-k")))
    store.close()
    for where in ("terminal", "report.md", "report.html", "assay view"):
        text = views[where]
        assert "1,200" in text and "1,188" in text, where  # trials, n and errors of `old`
        bare = [number for number in re.findall(r"(?<![\w.,$#-])\d{4,}(?![\w.,%])", text)
                if not re.fullmatch(r"20\d\d", number)]  # a year is not a count
        assert not bare, (where, bare[:10])
    assert "- trials: 2,400 of 2,400" in views["report.md"]
    assert "- new wins (1,188)" in views["report.md"]
    assert "- ... and 1,138 more" in views["report.md"]
    assert "n=1,188" in views["terminal"]
