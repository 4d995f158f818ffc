"""The pages over HTTP: live progress of a run in flight, paging through cases, and a bad
address answered with a page that says what is wrong, never a traceback."""

from __future__ import annotations

import html
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest

from tests.view.page_text import page_text
from tests.view.stores import AGENT, CASES, Browsable, case_id

if TYPE_CHECKING:
    from assay.output import Output
    from assay.score import Score


def test_progress_reports_done_and_total_of_runs_in_flight(viewer: str,
                                                           browsable: Browsable) -> None:
    response = httpx.get(f"{viewer}api/progress",
                         params=[("run", browsable.running), ("run", "no-such-run")])
    assert response.json() == {browsable.running: {"status": "running",
                                                    "shown_status": "running", "done": 3,
                                                    "total": 40, "stalled": None}}
    assert response.headers["cache-control"] == "no-store"


def test_a_run_in_flight_shows_what_is_stored_so_far_and_follows_its_progress(
        viewer: str, browsable: Browsable) -> None:
    page = httpx.get(f"{viewer}runs/{browsable.running}").text
    assert "Still running" in page
    assert f'data-progress-run="{browsable.running}"' in page
    assert "3/40" in page


def test_cases_page_through_the_run_and_back(viewer: str, browsable: Browsable,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("assay.view.cases_page.PAGE_SIZE", 4)
    first = httpx.get(f"{viewer}runs/{browsable.run_b}/cases").text
    assert _cases(first) == [case_id(i) for i in range(4)]
    assert 'rel="prev"' not in first
    second = httpx.get(viewer.rstrip("/") + html.unescape(_link(first, "next"))).text
    assert _cases(second) == [case_id(i) for i in range(4, CASES)]
    assert 'rel="next"' not in second
    back = httpx.get(viewer.rstrip("/") + html.unescape(_link(second, "prev"))).text
    assert _cases(back) == _cases(first)


def test_regression_a_short_input_is_shown_whole_without_an_ellipsis(
        viewer: str, browsable: Browsable) -> None:
    """Every input in cases side by side ended in '…', as if cut short."""
    page = httpx.get(f"{viewer}runs/{browsable.run_b}/cases").text
    inputs = re.findall(r'<div class="input">(.*?)</div>', page, re.DOTALL)
    assert len(inputs) == CASES
    assert not [text for text in inputs if text.endswith("…")]


def test_regression_a_page_past_the_last_says_so_beside_the_count(
        viewer: str, browsable: Browsable) -> None:
    """`/?page=5` over 4 runs read '4 runs' above 'No runs match.', with a link to page 4."""
    page = page_text(httpx.get(viewer, params={"page": 5}).text)
    assert "4 runs · page 5 of 1" in page
    assert "No runs on page 5: the 4 that match fit on 1 page. Go to page 1" in page
    assert "No runs match" not in page and "newer" not in page


def _cases(page: str) -> list[str]:
    return [html.unescape(c) for c in re.findall(r'<tr class="case-row[^"]*" data-case="([^"]*)"',
                                                 page)]


def _link(page: str, rel: str) -> str:
    found = re.search(rf'<a rel="{rel}" href="([^"]*)"', page)
    assert found, f"no {rel} link"
    return found.group(1)


@pytest.mark.parametrize(("path", "status", "message"), [
    ("runs/nope", 404, "no run &#39;nope&#39;"),
    ("runs/nope/trial?case=case-1&condition=none&epoch=0", 404, "no run &#39;nope&#39;"),
    ("runs/traces-1/cases", 404, "run &#39;traces-1&#39; is a traces run, which has no cases"),
    ("runs/traces-1/review", 404, "run &#39;traces-1&#39; is a traces run, which has no cases"),
    ("runs/run-b/cases?show=sideways", 400, "show=&#39;sideways&#39;: use one of"),
    ("runs/run-b/trial?case=case-1", 400, "a trial is named by case, condition and epoch"),
    ("runs/run-b/trial?case=case-1&condition=x&epoch=-1", 400, "epoch="),
    ("runs/run-b/trial?case=case-1&condition=none", 404, "has no trial of case"),
    ("runs/run-b/trial?case=case-1&condition=none&epoch=%C2%B2", 400, "epoch=&#39;²&#39;"),
    ("?page=%C2%B2", 400, "page=&#39;²&#39;: use a whole number"),
    ("compare?a=run-a", 400, "compare two runs"),
    ("compare?a=run-a&b=run-a", 400, "the same run"),
    ("compare?a=run-a&b=traces-1", 400, "only eval and rejudge runs compare"),
    ("?since=yesterday", 400, "write a date like"),
    ("?kind=evals", 400, "kind=&#39;evals&#39;: use one of eval, rejudge, traces"),
    ("?status=done", 400, "status=&#39;done&#39;: use one of running, reviewing, completed"),
    ("history", 400, "name the experiment"),
])
def test_a_bad_address_gets_a_page_saying_what_is_wrong(viewer: str, path: str, status: int,
                                                        message: str) -> None:
    response = httpx.get(viewer + path)
    assert response.status_code == status
    assert message in response.text
    assert "Traceback" not in response.text


def test_a_fault_of_the_viewer_is_a_page_naming_it_not_a_bare_internal_server_error(
        viewer: str, browsable: Browsable, viewed_store: object,
        monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("summary")

    monkeypatch.setattr(viewed_store, "trial_keys", broken)
    response = httpx.get(f"{viewer}runs/{browsable.run_b}/trial",
                         params={"case": case_id(1), "condition": AGENT, "epoch": 0})
    assert response.status_code == 500
    assert "assay view failed on this page: KeyError: &#39;summary&#39;" in response.text


def test_a_trial_page_names_its_case_and_condition(viewer: str, browsable: Browsable) -> None:
    response = httpx.get(f"{viewer}runs/{browsable.run_b}/trial",
                         params={"case": case_id(5), "condition": AGENT, "epoch": 0})
    assert response.status_code == 200
    assert "Trajectory" in response.text


def test_a_traces_analysis_lists_each_finding_with_its_question(viewer: str,
                                                               browsable: Browsable) -> None:
    page = html.unescape(httpx.get(f"{viewer}runs/{browsable.traces}").text)
    assert "How do refunds work?" in page
    assert "2025-03-04T09:01:00" in page
    assert "1 citation" in page


def test_regression_a_traces_analysis_reads_its_metrics_as_its_report_does(
        viewer: str, browsable: Browsable) -> None:
    """The metrics read as stored: 'tool_error_rate 0.04859813084112149', 'cost_usd
    30.330197700000006', where eval-report.md reads 'tool error rate 5%' and '$30.3302'."""
    page = page_text(httpx.get(f"{viewer}runs/{browsable.traces}").text)
    for row in ("questions 2 (2 answered)", "tool calls 1,070", "tool error rate 5%",
                "turns per question 2.5", "tokens per question 529,001", "cost $30.3302"):
        assert row in page, row
    assert "0.0485" not in page and "30.3301977" not in page


def test_regression_a_run_that_stopped_part_way_shows_how_many_of_its_trials_ran(
        tmp_path: Path) -> None:
    """An aborted run with 3 of its 40 trials stored read "aborted · ... · 40 trials" on its
    page and "40" in the run list, where `assay runs` says "3 of 40"."""
    from assay.store import Store
    from assay.testing.viewer import serving
    from tests.view.stores import trial

    url = str(tmp_path / "assay.db")
    store = Store(url)
    store.create_run(id="run-stopped", experiment="stopped", status="aborted",
                     started_at="2025-03-03T09:00:00+00:00", total_trials=40,
                     config={"name": "stopped"}, error="error budget reached")
    store.write_trials("run-stopped", [trial(i, "baseline", passed=True) for i in range(3)])
    store.close()
    with serving(url) as viewer:
        page = page_text(httpx.get(f"{viewer}runs/run-stopped").text)
        listed = page_text(httpx.get(viewer).text)
    assert "3 of 40 trials" in page and " 40 trials" not in page.replace("3 of 40", ""), page
    assert "3 of 40" in listed, listed


def test_regression_a_rejudge_run_shows_its_review_its_cases_and_compares(
        tmp_path: Path) -> None:
    """A rejudge run's page fetched its review, and linked its cases side by side, from
    addresses that answered 404 'no eval run ... in this store' (the page read 'Could not
    load this section'); its 'compare the two runs' link, and `compare?a=latest~1&b=latest`
    after a rejudge, answered 'only eval runs compare', though `assay compare` compares it.
    The run list had no kind 'rejudge' to filter by and no A/B buttons on it."""
    from assay.store import Store
    from assay.testing.viewer import serving
    from tests.view.stores import write_run

    url = str(tmp_path / "assay.db")
    store = Store(url)
    write_run(store, "run-a", started="2025-03-01T09:00:00+00:00", flips=set())
    write_run(store, "run-a-again", started="2025-03-01T10:00:00+00:00", flips=set(),
              kind="rejudge", options={"rejudge_of": "run-a"})
    store.close()
    with serving(url) as viewer:
        review = _ready(f"{viewer}runs/run-a-again/review")
        cases = httpx.get(f"{viewer}runs/run-a-again/cases")
        compared = _ready(f"{viewer}compare/review?a=run-a&b=run-a-again")
        history = httpx.get(f"{viewer}compare?a=run-a&b=run-a-again").text
        listed = httpx.get(viewer, params={"kind": "rejudge"}).text
    assert review.status_code == 200 and 'id="verdict"' in review.text, review.text
    assert cases.status_code == 200 and _cases(cases.text) == [case_id(i) for i in range(CASES)]
    assert compared.status_code == 200 and 'id="verdict"' in compared.text, compared.text
    assert "A drawn larger; B is not drawn: it is a rejudge run." in page_text(history)
    assert "<option selected>rejudge</option>" in listed
    assert 'name="b" value="run-a-again"' in listed and "1 run<" in listed


def _ready(url: str) -> httpx.Response:
    """The section at `url` once it is computed (it answers 202 until then)."""
    for _ in range(600):
        response = httpx.get(url)
        if response.status_code != 202:
            return response
        time.sleep(0.05)
    raise AssertionError(f"{url} still computing after 30 s")


@pytest.mark.parametrize("change", ["deleted", "replaced by another file"])
def test_regression_a_store_deleted_or_replaced_while_viewed_is_said_on_every_page(
        tmp_path: Path, change: str) -> None:
    """With .assay/assay.db deleted under a running viewer, pages still read the old file
    through the connections already open, and a page that opened a new one was a bare
    'Internal Server Error' (a StoreError traceback in the terminal); replaced, pages mixed
    the two files' runs."""
    from assay.store import Store
    from assay.testing.viewer import serving
    from tests.view.stores import write_run

    url = str(tmp_path / "assay.db")
    store = Store(url)
    write_run(store, "run-a", started="2025-03-01T09:00:00+00:00", flips=set())
    store.close()
    with serving(url) as viewer:
        assert httpx.get(f"{viewer}runs/run-a").status_code == 200
        for stale in tmp_path.glob("assay.db*"):
            stale.unlink()
        if change != "deleted":
            Store(url).close()
        pages = [httpx.get(f"{viewer}{path}") for path in ("", "runs/run-a")]
        stylesheet = httpx.get(f"{viewer}static/view.css")
    for page in pages:
        assert page.status_code == 503
        assert f"the store {url} was {change} while assay view showed it" in page.text
        assert "start it again" in page.text
    assert stylesheet.status_code == 200


def test_a_store_that_cannot_be_read_is_a_page_in_its_own_words(
        viewer: str, browsable: Browsable, viewed_store: object,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from assay.errors import StoreError

    def unreadable(*args: object, **kwargs: object) -> None:
        raise StoreError("cannot read the store: the server closed the connection")

    monkeypatch.setattr(viewed_store, "get_run", unreadable)
    response = httpx.get(f"{viewer}runs/{browsable.run_b}")
    assert response.status_code == 503
    assert "cannot read the store: the server closed the connection" in response.text


def test_regression_a_killed_run_reads_running_with_why_not_still_running(
        tmp_path: Path) -> None:
    """After kill -9, `assay runs` said 'running? RUN (the process that ran it is gone:
    killed? resume with --resume RUN)', while the viewer said 'Still running: the verdict
    comes when every trial is stored' and polled its progress for ever."""
    from datetime import UTC, datetime, timedelta

    from assay.store import Store, schema
    from assay.testing.viewer import serving
    from tests.view.stores import trial

    def ago(**delta: float) -> str:
        return (datetime.now(UTC) - timedelta(**delta)).isoformat()

    url = str(tmp_path / "assay.db")
    store = Store(url)
    for run_id, beat in (("run-killed", ago(minutes=2)), ("run-live", ago(seconds=5))):
        store.create_run(id=run_id, experiment="agent", status="running",
                         started_at=ago(minutes=3), total_trials=40, config={"name": "agent"})
        store.write_trials(run_id, [trial(i, "baseline", passed=True) for i in range(3)])
        with store.engine.begin() as conn:
            conn.execute(schema.run_locks.insert().values(
                run_id=run_id, owner=run_id, pid=1, host="another-machine", pid_scope="x",
                taken_at=ago(minutes=3), heartbeat_at=beat))
    store.close()
    with serving(url) as viewer:
        killed = httpx.get(f"{viewer}runs/run-killed").text
        live = httpx.get(f"{viewer}runs/run-live").text
        listed = httpx.get(viewer).text
        progress = httpx.get(f"{viewer}api/progress",
                             params=[("run", "run-killed"), ("run", "run-live")]).json()
    why = "the process that ran it is gone: killed? resume with --resume run-killed"
    assert "Still running" not in killed and "data-reload-when-done" not in killed
    assert f"probably not running: {why}" in page_text(killed)
    assert "3 of 40 trials" in page_text(killed)
    assert "Still running" in live
    assert f"running? run-killed ({why})" in page_text(listed)
    assert 'data-progress-run="run-killed"' not in listed
    assert 'data-progress-run="run-live"' in listed
    assert progress["run-killed"]["stalled"] == why
    assert progress["run-killed"]["shown_status"] == "running?"  # the page shows it as sent
    assert progress["run-live"]["stalled"] is None


def test_regression_the_change_since_the_previous_run_says_the_run_stopped_part_way(
        tmp_path: Path) -> None:
    """An interrupted run's page compared it with the run before on the one case it reached
    ('100.0% → 100.0%, n=1') and left out the note report.md and the compare page give:
    'run X is interrupted: 2 of its 12 trials ran, so it is compared on the cases it
    reached'."""
    from assay.review.summary import summarize_run
    from assay.store import Store
    from assay.testing.viewer import serving
    from tests.view.stores import CONDITIONS, EXACT, EXPERIMENT, JUDGE, trial, write_run

    url = str(tmp_path / "assay.db")
    store = Store(url)
    write_run(store, "run-a", started="2025-03-01T09:00:00+00:00", flips=set())
    store.create_run(id="run-b", experiment=EXPERIMENT, status="running", dataset_hash="d1",
                     started_at="2025-03-02T09:00:00+00:00", total_trials=12,
                     config={"name": EXPERIMENT, "conditions": {c: {} for c in CONDITIONS}})
    store.write_trials("run-b", [trial(0, name, passed=True) for name in CONDITIONS])
    summary = summarize_run(store, "run-b", scorers=[EXACT, JUDGE], conditions=list(CONDITIONS))
    store.update_run("run-b", status="interrupted", summary=summary.to_dict(),
                     finished_at="2025-03-02T09:01:00+00:00")
    store.close()
    with serving(url) as viewer:
        page = page_text(_ready(f"{viewer}runs/run-b/review").text)
    assert ("run run-b is compared on the cases it reached: 2 of its 12 trials ran, and it "
            "is interrupted") in page


def test_regression_a_judge_that_failed_reads_its_usage_as_unknown_and_its_one_repeat(
        tmp_path: Path) -> None:
    """A judge whose every call failed read 'judge openai/gpt-4.1 · 1 repeats' and 'judge
    usage: 0 in / 0 out · cost unknown', where the trial's own line reads tokens nothing
    reported as unknown, never 0/0."""
    from assay.output import Output, Usage
    from assay.score import Score

    error = "judge call failed: ProviderError: HTTP 500 (gave up after 5 attempts)"
    failed = Score.failure(error, usage=Usage(), details={
        "judge_model": "openai/gpt-4.1", "repeats": 1, "judgements": [{"error": error}]})
    page = one_trial_page(tmp_path, Output(text="a"), {"judge": failed})
    assert "judge openai/gpt-4.1 · 1 repeat " in page
    assert "judge tokens in/out unknown · judge cost unknown" in page
    assert "0 in / 0 out" not in page


def test_regression_a_verdict_from_the_cache_reads_0_tokens_beside_its_0_cost(
        tmp_path: Path) -> None:
    """A verdict (or an answer) read from the response cache showed 'judge tokens in/out
    unknown · judge cost $0.0000' on the trial page: a cost known to be nothing beside tokens
    said to be unknown."""
    from assay.output import Output, Usage
    from assay.score import Score

    cached = Score(value=9.0, scale=(0.0, 10.0), passed=True,
                   usage=Usage(cost_usd=0.0, calls=1, cache_hits=1),
                   details={"judge_model": "openai/gpt-4.1", "cached": True})
    answer = Output(text="a", usage=Usage(cost_usd=0.0, calls=1, cache_hits=1))
    page = one_trial_page(tmp_path, answer, {"judge": cached})
    assert "judge tokens in/out 0/0 · judge cost $0.0000" in page
    assert "tokens in/out 0/0 · cost $0.0000 · 1 cached" in page


def one_trial_page(tmp_path: Path, output: Output, scores: dict[str, Score]) -> str:
    """The text of the viewer's page of the one trial of a run: case c1 under `base`."""
    from assay.case import Case
    from assay.store import Store
    from assay.testing.viewer import serving
    from assay.trial import TrialResult

    url = str(tmp_path / "assay.db")
    store = Store(url)
    store.create_run(id="run-a", experiment="exp", status="completed",
                     started_at="2025-03-01T09:00:00+00:00", total_trials=1)
    store.write_trials("run-a", [TrialResult(Case(id="c1", input="q"), "base", 0, output,
                                             scores)])
    store.close()
    with serving(url) as viewer:
        return page_text(httpx.get(f"{viewer}runs/run-a/trial",
                                   params={"case": "c1", "condition": "base"}).text)


def test_a_bidirectional_override_in_any_text_cannot_reverse_the_words_around_it() -> None:
    """Regression: a case id holding U+202E made a trial page's heading read
    'Case id<... esab rednu' (the condition's name and 'under' backwards). Every text a
    page shows has such characters as spaces; the page's own markup is kept."""
    from markupsafe import Markup

    from assay.view.pages import environment

    page = environment().from_string("<h1>Case {{ case }} under {{ condition }}</h1>{{ raw }}")
    shown = page.render(case="q\u202eid", condition="base\u2066x",
                        raw=Markup("<b>kept\u202e</b>"))
    assert shown == "<h1>Case q id under base x</h1><b>kept </b>"
