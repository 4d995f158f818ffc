"""`report.md`: names from a config or a dataset are shown as written, and never break a table."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import assay
from assay import Case, Condition
from assay.testing import FakeLLM, Reply
from tests.fake_sdks import point_sdks_at

CASES = [{"id": "a|b", "input": "x", "expected": "x", "tags": ["t|1"]},
         {"id": "back`tick", "input": "y", "expected": "nope"},
         {"id": "two\nlines", "input": "z", "expected": "nope"}]


def answer(case: Case, condition: Condition) -> str:
    return case.input_text if condition.name == "new|2" else "?"


def unescaped_pipes(row: str) -> int:
    return len(re.findall(r"(?<!\\)\|", row))


def report(tmp_path: Path) -> str:
    assay.evaluate("pipes", data=CASES, task=answer, scorers=["exact_match"],
                   conditions={"base|1": {}, "new|2": {}},
                   store=tmp_path / "assay.db", output=tmp_path / "out")
    return (tmp_path / "out" / "report.md").read_text(encoding="utf-8")


def test_a_pipe_in_a_condition_scorer_or_tag_name_does_not_shift_a_tables_columns(
        tmp_path: Path) -> None:
    """Regression: `| exact_match | base|1 | 3 | ...` rendered the mean under "n" and the
    pass rate under "mean": every number right of the name sat in the wrong column."""
    text = report(tmp_path)
    tables = [block.splitlines() for block in re.split(r"\n\n", text)
              if block.startswith("| ")]
    assert len(tables) >= 3
    for rows in tables:
        assert {unescaped_pipes(row) for row in rows} == {unescaped_pipes(rows[0])}, rows
    assert "| exact_match | base\\|1 | 3 |" in text


def test_a_case_id_with_a_backtick_or_a_line_break_stays_one_code_span(tmp_path: Path) -> None:
    text = report(tmp_path)
    assert "- ``back`tick`` · base\\|1 · exact_match:" in text
    assert "- `two lines` · base\\|1 · exact_match:" in text


def test_regression_the_conditions_table_says_its_errors_are_the_targets(
        tmp_path: Path) -> None:
    """A run whose target failed once and whose scorer failed twice more read "errors 1" in
    the conditions table and "errors 3" in the score table, for one condition, both headed
    plain "errors"."""
    def picky(case: Case, output: str) -> bool:
        if case.id != "ok":
            raise ValueError("cannot score this one")
        return True

    def answer(case: Case) -> str:
        if case.id == "down":
            raise RuntimeError("the service is down")
        return "fine"

    data = [{"id": i, "input": "x"} for i in ("ok", "down", "odd", "odder")]
    assay.evaluate("errors", data=data, task=answer, scorers=[picky],
                   store=tmp_path / "assay.db", output=tmp_path / "out")
    text = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "| picky | default | 1 | 1.000 [0.207–1.000] | 100.0% [20.7%–100.0%] | 3 |" in text, text
    assert "| condition | trials | target errors |" in text
    assert "| default | 4 | 1 |" in text


def test_regression_tokens_no_trial_reported_read_unknown_never_0(tmp_path: Path) -> None:
    """A python target reports no token usage: report.md's conditions table read "0/0"
    tokens, and results.json 0 and 0, as if the answers had cost no tokens."""
    import json

    data = [{"id": "a", "input": "x", "expected": "x"}]
    assay.evaluate("tokens", data=data, task=lambda case: "x", scorers=["exact_match"],
                   store=tmp_path / "assay.db", output=tmp_path / "out")
    text = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| default | 1 |"))
    assert "| unknown |" in row and "0/0" not in row, row
    (condition,) = json.loads((tmp_path / "out" / "results.json").read_text())[
        "stats"]["conditions"]
    assert condition["input_tokens"] is None and condition["output_tokens"] is None


def test_regression_the_score_tables_error_count_is_labelled_as_trials_beside_n_in_cases(
        tmp_path: Path) -> None:
    """With 3 epochs a case that errored every time read "n 1, errors 3" under a plain
    "errors": 1 + 3 is not the 2 cases the run had."""
    def answer(case: Case) -> str:
        if case.id == "down":
            raise RuntimeError("the service is down")
        return "x"

    data = [{"id": "up", "input": "x", "expected": "x"},
            {"id": "down", "input": "x", "expected": "x"}]
    assay.evaluate("epochs", data=data, task=answer, scorers=["exact_match"], epochs=3,
                   store=tmp_path / "assay.db", output=tmp_path / "out")
    text = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "| pass rate [95% CI] | errored trials |" in text
    assert "| exact_match | default | 1 |" in text and text.count("| 3 |") >= 1


def test_the_breakdown_by_tag_says_its_cells_carry_95_percent_intervals(tmp_path: Path) -> None:
    """Its cells read "1.000 [0.207–1.000]" under a bare "mean", where the score table above
    heads the same cells "mean [95% CI]"."""
    text = report(tmp_path)
    section = text.split("## By tag", 1)[1].split("\n## ", 1)[0]
    assert ("| group | scorer | condition | n | mean [95% CI] | pass rate [95% CI] "
            "| errored trials |") in section
    assert re.search(r"\| t\\\|1 \| exact_match \| new\\\|2 \| 1 \| 1\.000 \[[\d.]+–1\.000\] \| "
                     r"100\.0% \[[\d.]+%–100\.0%\] \| 0 \|", section), section


def test_regression_the_breakdowns_count_a_failed_trial_of_their_group_as_errored(
        tmp_path: Path) -> None:
    """A tag's row read 'n 1' beside no error, where its other case's target had failed:
    the rate left the case out, and nothing said so."""
    def answer(case: Case) -> str:
        if case.id == "down":
            raise RuntimeError("no answer")
        return case.input_text

    data = [{"id": "up", "input": "x", "expected": "x", "tags": ["t"], "difficulty": "easy"},
            {"id": "down", "input": "x", "expected": "x", "tags": ["t"], "difficulty": "easy"}]
    assay.evaluate("tagged", data=data, task=answer, scorers=["exact_match"],
                   store=tmp_path / "assay.db", output=tmp_path / "out")
    text = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    for title, group in (("By tag", "t"), ("By difficulty", "easy")):
        section = text.split(f"## {title}", 1)[1].split("\n## ", 1)[0]
        assert "| pass rate [95% CI] | errored trials |" in section
        assert re.search(rf"\| {group} \| exact_match \| default \| 1 \| .* \| 1 \|", section), \
            section
    page = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    breakdowns = page.split('<section id="breakdowns">', 1)[1].split("</section>", 1)[0]
    assert breakdowns.count("n=1, 1 errored") == 2, breakdowns


def test_a_failed_check_of_an_agent_that_ran_out_of_turns_says_so() -> None:
    """Regression: an agent cut at max_turns is scored on its last turn's text, and its failed
    check read as a plain wrong answer ('contains none of ...') with nothing saying the agent
    never finished."""
    from assay.output import Output
    from assay.records import TrialRecord
    from assay.reports.markdown import FailureList
    from assay.score import Score

    output = Output(text="still looking", metadata={
        "agent": {"stop_reason": "max_turns", "steps": [{"turn": 1}, {"turn": 2}]}})
    failures = FailureList(epochs=1)
    failures.add(TrialRecord(case_id="c1", condition="tools", epoch=0, input="q",
                             expected="Io", output=output,
                             scores={"contains": Score.binary(False, "contains none of 'Io'")}))
    assert failures.failures == [
        ("- `c1` · tools · contains: contains none of 'Io' (the agent stopped at max_turns "
         "after 2 turns, still calling tools; the answer scored is its last turn's text)")]


def test_the_heading_and_the_gates_show_html_and_line_breaks_in_names_as_text(
        tmp_path: Path) -> None:
    """Regression: the experiment's name was the page's heading as written, so a line break
    in it began a section of its own, and a condition's `<img onerror>` in a gate's line
    was raw HTML in report.md, unlike everywhere else the name appears."""
    assay.evaluate("pipes\n## not a section <b>", data=CASES, task=answer,
                   scorers=["exact_match"], conditions={"<img src=x onerror=y>": {}},
                   gates=[{"scorer": "exact_match", "condition": "<img src=x onerror=y>",
                           "min_pass_rate": 0.5}],
                   store=tmp_path / "assay.db", output=tmp_path / "out")
    text = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert text.startswith("# pipes ## not a section \\<b\\>\n")
    assert not re.search(r"(?<!\\)<(img|b>)", text)  # each escaped: no tag
    assert "- FAIL exact_match@\\<img src=x onerror=y\\> pass rate: 0.0% passed" in text


def test_a_failed_check_of_a_reply_cut_at_max_tokens_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: a model's reply stopped at the request's max_tokens ends mid-word, and its
    failed check read as a plain wrong answer ('contains none of ...') with nothing saying
    the reply was cut."""
    with FakeLLM(default=Reply(text="The largest planet is Jup", stop_reason="length")) as llm:
        point_sdks_at(llm, monkeypatch)
        assay.evaluate("cut", data=[{"id": "c1", "input": "Largest planet?",
                                     "expected": "Jupiter"}],
                       task={"type": "model", "model": "openai/m", "max_tokens": 6},
                       scorers=["contains"], store=tmp_path / "assay.db",
                       output=tmp_path / "out")
    text = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert ("- `c1` · default · contains: contains none of 'Jupiter' (the reply was cut at "
            "max_tokens, stop reason length; the answer scored is the cut text)") in text


def test_the_dataset_path_is_one_code_span_and_the_trial_count_is_separated_in_thousands(
        tmp_path: Path) -> None:
    """Regression: a backtick in the dataset's path closed its code span early, and the
    trial count read `1200 of 1200` where every other view writes 1,200."""
    folder = tmp_path / "data`set"
    folder.mkdir()
    data = folder / "cases.jsonl"
    data.write_text("".join(f'{{"id": "c{i}", "input": "x", "expected": "x"}}\n'
                            for i in range(600)), encoding="utf-8")
    assay.evaluate("sized", data=str(data), task=answer, scorers=["exact_match"],
                   conditions={"a": {}, "b": {}}, store=tmp_path / "assay.db",
                   output=tmp_path / "out")
    text = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert f"- dataset: ``{data}`` (sha256 " in text
    assert "- trials: 1,200 of 1,200\n" in text
