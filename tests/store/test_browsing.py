"""Browsing the store a page at a time: which cases a filter keeps, in id order, paged both
ways; the trials of a page with their texts cut short; and a store opened read-only."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.case import Case
from assay.errors import UserError
from assay.output import Output
from assay.score import Score
from assay.store import Store
from assay.store.filters import CaseFilter, RunFilter
from assay.store.rows import PREVIEW_CHARS
from assay.trial import TrialResult

CASES = 40
IDS = [f"c{i:03d}" for i in range(CASES)]
BETTER = {"c003", "c017", "c029"}
"""Fail under `base`, pass under `new` in run B."""
WORSE = {"c008", "c031"}
"""Pass under `base`, fail under `new` in run B (and so also worse than run A)."""
ERRORED = {"c012"}
"""The target failed under `new` in run B."""
EPOCH_FLIP = {"c020"}
"""Passes in epoch 0, fails in epoch 1 under `base` in run B (its only two-epoch case)."""
RARE_TAG = {"c037"}


def _trial(case_id: str, condition: str, *, passed: bool, epoch: int = 0,
           error: str | None = None, text: str = "answer") -> TrialResult:
    tags = ["rare"] if case_id in RARE_TAG else [f"group-{int(case_id[1:]) % 3}"]
    case = Case(id=case_id, input=f"question {case_id}", expected="answer", tags=tags)
    if error:
        return TrialResult(case, condition, epoch, Output(error=error))
    return TrialResult(case, condition, epoch, Output(text=text),
                       {"check": Score.binary(passed, "compared")})


def _write(store: Store) -> None:
    for run_id, started in (("A", "2025-01-01T10:00:00+00:00"), ("B", "2025-01-02T10:00:00+00:00")):
        store.create_run(id=run_id, experiment="exp", status="completed", started_at=started,
                         total_trials=2 * CASES)
        trials = []
        for case_id in IDS:
            b = run_id == "B"
            trials.append(_trial(case_id, "base", passed=not (b and case_id in BETTER)))
            if b and case_id in ERRORED:
                trials.append(_trial(case_id, "new", passed=False, error="TimeoutError"))
            else:
                trials.append(_trial(case_id, "new", passed=not (b and case_id in WORSE)))
            if b and case_id in EPOCH_FLIP:
                trials.append(_trial(case_id, "base", passed=False, epoch=1))
        store.write_trials(run_id, trials)
    store.create_run(id="T", experiment="sessions", kind="traces", status="finished",
                     started_at="2025-02-01T10:00:00+00:00")


@pytest.fixture
def browsed(store: Store) -> Store:
    _write(store)
    return store


def every_page(store: Store, runs: list[str], wanted: CaseFilter, size: int) -> list[list[str]]:
    pages, after = [], None
    while True:
        page = store.case_page(runs, wanted, after=after, limit=size)
        pages.append(page.case_ids)
        if page.after is None:
            return pages
        after = page.after


@pytest.mark.parametrize(("wanted", "expected"), [
    (CaseFilter(show="flipped"), BETTER | WORSE | EPOCH_FLIP),
    (CaseFilter(show="regressed"), WORSE),  # below the first condition, `base`
    (CaseFilter(show="regressed", baseline="new"), BETTER | EPOCH_FLIP),
    (CaseFilter(show="errored"), ERRORED),
    (CaseFilter(show="unstable"), EPOCH_FLIP),
    (CaseFilter(show="flipped", scorer="other"), set()),
])
def test_a_run_lists_the_cases_each_filter_keeps_across_its_conditions(
        browsed: Store, wanted: CaseFilter, expected: set[str]) -> None:
    assert browsed.case_page(["B"], wanted, limit=100).case_ids == sorted(expected)


def test_two_runs_list_the_cases_whose_verdict_changed_from_a_to_b(browsed: Store) -> None:
    flipped = browsed.case_page(["A", "B"], CaseFilter(show="flipped"), limit=100)
    regressed = browsed.case_page(["A", "B"], CaseFilter(show="regressed"), limit=100)
    assert flipped.case_ids == sorted(BETTER | WORSE | EPOCH_FLIP)
    assert regressed.case_ids == sorted(BETTER | WORSE | EPOCH_FLIP)
    improved = browsed.case_page(["B", "A"], CaseFilter(show="regressed"), limit=100)
    assert improved.case_ids == []


def test_tag_and_id_text_narrow_the_cases(browsed: Store) -> None:
    assert browsed.case_page(["B"], CaseFilter(tag="rare"), limit=100).case_ids == ["c037"]
    assert browsed.case_page(["B"], CaseFilter(text="03"), limit=100).case_ids == [
        i for i in IDS if "03" in i]
    assert browsed.case_page(["B"], CaseFilter(text="%"), limit=100).case_ids == []
    group = browsed.case_page(["B"], CaseFilter(show="flipped", tag="group-2"), limit=100)
    assert group.case_ids == sorted(i for i in BETTER | WORSE | EPOCH_FLIP
                                    if int(i[1:]) % 3 == 2)


def test_pages_forward_cover_every_case_once_and_pages_back_retrace_them(
        browsed: Store) -> None:
    pages = every_page(browsed, ["B"], CaseFilter(), size=7)
    assert [i for page in pages for i in page] == IDS
    assert all(len(page) == 7 for page in pages[:-1])
    last = browsed.case_page(["B"], CaseFilter(), after=pages[-2][-1], limit=7)
    assert last.before == pages[-1][0]
    back = browsed.case_page(["B"], CaseFilter(), before=last.before, limit=7)
    assert back.case_ids == pages[-2]
    first = browsed.case_page(["B"], CaseFilter(), before=pages[1][0], limit=7)
    assert first.case_ids == pages[0] and first.before is None


def test_a_search_out_of_time_says_how_far_it_got_and_goes_on_from_there(
        browsed: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """A filter matching only the last case, searched 10 trial rows at a time with no time
    to spare: each page stops after one window, and following `after` finds the case."""
    monkeypatch.setattr("assay.store.browsing.FIRST_WINDOW_ROWS", 10)
    wanted, after, windows = CaseFilter(tag="rare"), None, 0
    while True:
        page = browsed.case_page(["B"], wanted, after=after, limit=5, budget_s=0)
        windows += 1
        if page.case_ids:
            break
        assert page.searched_to is not None and page.after == page.searched_to
        after = page.after
    assert page.case_ids == ["c037"]
    assert windows > 3


def test_regression_a_preview_is_marked_cut_only_when_it_was_cut(store: Store) -> None:
    """Every input in cases side by side ended in '…', as if cut: its stored JSON (with
    quotes and escapes) was compared with its decoded text, always shorter. A cut expected
    answer had no '…'."""
    store.create_run(id="R", experiment="exp", status="completed",
                     started_at="2025-01-01T10:00:00+00:00")
    short = Case(id="c1", input='say "hi"\n', expected="hi")
    long = Case(id="c2", input="word " * 1000, expected="word " * 1000)
    store.write_trials("R", [TrialResult(case, "base", 0, Output(text="hi"))
                             for case in (short, long)])
    previews = {p.case_id: p for p in store.trial_previews(["R"], ["c1", "c2"])}
    assert (previews["c1"].input, previews["c1"].input_cut) == ('say "hi"\n', False)
    assert not previews["c1"].expected_cut
    assert previews["c2"].input_cut and previews["c2"].expected_cut


def test_previews_cut_long_texts_and_say_how_long_they_were(store: Store) -> None:
    store.create_run(id="R", experiment="exp", status="completed",
                     started_at="2025-01-01T10:00:00+00:00")
    long = "word " * 1000
    store.write_trials("R", [_trial("c1", "base", passed=True, text=long),
                             _trial("c2", "base", passed=False)])
    previews = {p.case_id: p for p in store.trial_previews(["R"], ["c1", "c2"])}
    assert previews["c1"].output == long[:PREVIEW_CHARS]
    assert previews["c1"].output_cut and not previews["c2"].output_cut
    assert previews["c1"].input == "question c1"
    assert previews["c2"].scores["check"].passed is False


@pytest.mark.parametrize("text", ["ab\x00cd" * 200, "é\x00" * 400, "ü" * PREVIEW_CHARS])
def test_a_preview_reads_past_a_nul_character_and_is_cut_where_the_text_is(
        store: Store, text: str) -> None:
    """Regression: SQLite's substr() and length() stop at a NUL, so an answer of 1,000
    characters starting `ab\x00` showed in `assay view` as `ab`, whole, with no `…`."""
    store.create_run(id="R", experiment="exp", status="completed",
                     started_at="2025-01-01T10:00:00+00:00")
    store.write_trials("R", [_trial("c1", "base", passed=True, text=text)])
    [preview] = store.trial_previews(["R"], ["c1"])
    stored = store.get_trial("R", ("c1", "base", 0))
    assert stored is not None
    # PostgreSQL's text columns hold no NUL: the store wrote U+FFFD there
    assert preview.output.replace("\ufffd", "\x00") == stored.output.text[:PREVIEW_CHARS]
    assert preview.output_cut == (len(stored.output.text) > PREVIEW_CHARS)


def test_runs_are_listed_newest_first_and_filtered(browsed: Store) -> None:
    assert [r.id for r in browsed.runs_page(RunFilter())] == ["T", "B", "A"]
    assert [r.id for r in browsed.runs_page(RunFilter(kind="eval"), limit=1, offset=1)] == ["A"]
    assert [r.id for r in browsed.runs_page(RunFilter(until="2025-01-01"))] == ["A"]
    assert [r.id for r in browsed.runs_page(RunFilter(since="2025-01-02"))] == ["T", "B"]
    assert browsed.count_runs(RunFilter(experiment="exp")) == 2
    assert browsed.experiments() == ["exp", "sessions"]


def test_a_store_opened_read_only_refuses_writes(tmp_path: Path) -> None:
    path = str(tmp_path / "assay.db")
    _write(Store(path))
    reader = Store(path, read_only=True)
    try:
        assert reader.get_run("B") is not None
        with pytest.raises(Exception, match="readonly|read-only|read only"):
            reader.update_run("B", status="failed")
    finally:
        reader.close()
    assert Store(path).get_run("B").status == "completed"  # type: ignore[union-attr]


def test_opening_a_missing_store_read_only_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no store at"):
        Store(str(tmp_path / "nowhere" / "assay.db"), read_only=True)
    assert not (tmp_path / "nowhere").exists()
