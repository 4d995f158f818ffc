"""The store: one SQLite file with numbered migrations, batched trials, resolvable runs."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from assay.case import Case
from assay.errors import StoreError, UserError
from assay.output import Output
from assay.score import Score
from assay.store import Store
from assay.store.migrations import SCHEMA_VERSION
from assay.trial import TrialResult


def trial(case_id: str, condition: str = "a", *, error: str | None = None,
          passed: bool = True) -> TrialResult:
    output = Output(text="x", error=error)
    scores = {} if error else {"check": Score.binary(passed, "why")}
    return TrialResult(Case(id=case_id, input="q", tags=["t"], difficulty="easy"), condition, 0,
                       output, scores)


def test_a_new_store_is_migrated_and_in_wal_mode(tmp_path: Path) -> None:
    Store(str(tmp_path / "assay.db")).close()
    with sqlite3.connect(tmp_path / "assay.db") as conn:
        versions = conn.execute("select version from schema_migrations").fetchall()
        mode = conn.execute("pragma journal_mode").fetchone()[0]
        tables = {r[0] for r in conn.execute("select name from sqlite_master where type='table'")}
    assert versions == [(v,) for v in range(1, SCHEMA_VERSION + 1)]
    assert mode == "wal"
    assert {"runs", "trials", "scores", "response_cache"} <= tables
    Store(str(tmp_path / "assay.db")).close()  # opening again migrates nothing twice


def test_a_store_made_by_the_first_schema_is_migrated_in_place(tmp_path: Path) -> None:
    from sqlalchemy import create_engine

    from assay.store import schema
    from assay.store.migrations import MIGRATIONS

    engine = create_engine(f"sqlite:///{tmp_path / 'old.db'}")
    with engine.begin() as conn:  # what version 1 created: no scorer usage columns
        schema.schema_migrations.create(conn)
        conn.exec_driver_sql("CREATE TABLE runs (id TEXT PRIMARY KEY, experiment TEXT)")
        conn.exec_driver_sql(
            "CREATE TABLE scores (run_id TEXT, case_id TEXT, condition TEXT, epoch INT, "
            "scorer TEXT, value FLOAT, scale_min FLOAT, scale_max FLOAT, passed INT, "
            "reason TEXT, details_json TEXT, error TEXT)")
        conn.execute(schema.schema_migrations.insert().values(
            version=1, name=MIGRATIONS[0][0], applied_at="then"))
    engine.dispose()
    Store(str(tmp_path / "old.db")).close()
    with sqlite3.connect(tmp_path / "old.db") as conn:
        columns = {row[1] for row in conn.execute("pragma table_info(scores)")}
        columns |= {row[1] for row in conn.execute("pragma table_info(runs)")}
        versions = [v for (v,) in conn.execute("select version from schema_migrations")]
    assert {"input_tokens", "output_tokens", "cost_usd", "options_json"} <= columns
    assert versions == list(range(1, SCHEMA_VERSION + 1))


def test_trials_and_scores_round_trip(store: Store) -> None:
    store.create_run(id="r1", experiment="e")
    store.write_trials("r1", [trial("c1"), trial("c2", error="boom")])
    trials = list(store.iter_trials("r1", batch_size=1))
    assert [t.case_id for t in trials] == ["c1", "c2"]
    assert trials[0].scores["check"].passed is True
    assert trials[1].error == "boom" and trials[1].scores == {}
    assert store.done_keys("r1") == {("c1", "a", 0), ("c2", "a", 0)}
    assert store.count_trials("r1") == (2, 1)


def test_a_trial_cannot_be_stored_twice_and_the_error_shows_no_sql(store: Store) -> None:
    store.create_run(id="r1", experiment="e")
    store.write_trials("r1", [trial("c1")])
    with pytest.raises(StoreError) as raised:
        store.write_trials("r1", [trial("c2"), trial("c1")])
    message = str(raised.value)
    assert "case 'c1'" in message and "could not be stored" in message
    assert "\n" not in message and "INSERT" not in message.upper() and "[SQL" not in message
    assert store.done_keys("r1") == {("c1", "a", 0), ("c2", "a", 0)}  # c2 was kept


def test_errored_trials_can_be_forgotten_for_a_retry(store: Store) -> None:
    store.create_run(id="r1", experiment="e")
    store.write_trials("r1", [trial("c1"), trial("c2", error="boom")])
    assert store.delete_errored_trials("r1") == 1
    assert store.done_keys("r1") == {("c1", "a", 0)}


def test_trials_a_scorer_failed_on_can_be_forgotten_too_and_their_scores_with_them(
        store: Store) -> None:
    store.create_run(id="r1", experiment="e")
    failed = trial("c3")
    failed.scores["check"] = Score.failure("judge call failed: HTTP 500")
    store.write_trials("r1", [trial("c1"), trial("c2", error="boom"), failed])
    assert store.delete_errored_trials("r1", score_errors=True) == 2
    assert store.done_keys("r1") == {("c1", "a", 0)}
    [kept] = store.iter_trials("r1")
    assert kept.scores["check"].passed is True
    store.write_trials("r1", [trial("c3")])  # judged again: its old score is gone
    assert store.count_trials("r1") == (2, 0)


def test_runs_resolve_by_id_prefix_and_latest(store: Store) -> None:
    for run_id, started in (("20260101-aaa", "2026-01-01"), ("20260102-bbb", "2026-01-02")):
        store.create_run(id=run_id, experiment="e", started_at=started, status="completed")
    assert store.resolve_run("latest").id == "20260102-bbb"
    assert store.resolve_run("latest~1").id == "20260101-aaa"
    assert store.resolve_run("20260101").id == "20260101-aaa"
    with pytest.raises(UserError, match="ambiguous"):
        store.resolve_run("2026")
    with pytest.raises(UserError, match="only 2 stored"):
        store.resolve_run("latest~2")
    assert store.previous_run(store.resolve_run("latest")).id == "20260101-aaa"


def test_latest_of_some_kinds_skips_the_runs_of_other_kinds(store: Store) -> None:
    """`assay report` after `assay traces` reports the latest eval run, not the traces run
    started after it (it used to refuse: 'run traces-... is a traces analysis')."""
    store.create_run(id="20260101-aaa", experiment="e", started_at="2026-01-01",
                     status="completed")
    store.create_run(id="traces-bbb", experiment="traces", kind="traces",
                     started_at="2026-01-02", status="finished")
    assert store.resolve_run("latest").id == "20260101-aaa"
    assert store.resolve_run("latest", kinds=None).id == "traces-bbb"
    assert store.resolve_run("latest", kinds=("traces",)).id == "traces-bbb"
    assert store.resolve_run("traces-b").id == "traces-bbb"  # by id, whatever its kind
    with pytest.raises(UserError, match="no eval or rejudge run 'latest~1': only 1 stored"):
        store.resolve_run("latest~1")


def test_an_experiment_named_as_assay_runs_prints_a_rejudge_resolves_its_latest_run(
        store: Store) -> None:
    # issue case: assay runs printed 'planets (rejudge)', and assay compare, report and
    # export -e 'planets (rejudge)' answered "no eval or rejudge run 'latest' ... only 0"
    for index, kind in enumerate(("eval", "rejudge", "eval")):
        store.create_run(id=f"run-{index}", experiment="planets", kind=kind,
                         started_at=f"2026-01-0{index + 1}", status="completed")
    assert store.resolve_run("latest", "planets (rejudge)").id == "run-1"
    assert store.resolve_run("latest", "planets").id == "run-2"
    assert [run.id for run in store.list_runs("planets (rejudge)")] == ["run-1"]
    with pytest.raises(UserError, match="only 0 stored"):  # not a kind `latest` counts
        store.resolve_run("latest", "planets (rejudge)", kinds=("eval",))
    store.create_run(id="run-3", experiment="planets (rejudge)", started_at="2026-01-04",
                     status="completed")  # an experiment literally named so comes first
    assert store.resolve_run("latest", "planets (rejudge)").id == "run-3"


def test_a_malformed_latest_reference_is_a_clear_error(store: Store) -> None:
    store.create_run(id="r1", experiment="e")
    with pytest.raises(UserError, match="latest~N with a whole number"):
        store.resolve_run("latest~abc")


@pytest.mark.parametrize("ref", ["", "  "])
def test_an_empty_run_id_is_refused_not_read_as_the_prefix_of_the_only_run(
        store: Store, ref: str) -> None:
    """Regression: `assay report "$RUN"` with RUN unset reported the store's only run (every
    id starts with ''), and with several runs called '' an ambiguous id."""
    store.create_run(id="20260101-aaa", experiment="e", status="completed")
    with pytest.raises(UserError, match="the run id is empty"):
        store.resolve_run(ref)


def test_judged_scores_carry_the_judge_identity_and_nothing_else(store: Store) -> None:
    store.create_run(id="r1", experiment="e")
    judged = trial("c1")
    judged.scores["judge_score"] = Score(value=8, scale=(0, 10), passed=True, details={
        "judge_model": "openai/gpt-4.1", "prompt_hash": "abc123"})
    store.write_trials("r1", [judged, trial("c2")])
    assert store.judge_identities("r1") == {
        "judge_score": {("openai/gpt-4.1", "abc123")}}


def test_a_run_id_prefix_is_matched_as_written_and_an_ambiguous_one_lists_its_runs(
        store: Store) -> None:
    """Regression: the prefix was a LIKE pattern, so '_0260101' named run 20260101-aaa, and
    two matching runs were listed with a '...' that promised more."""
    for run_id in ("20260101-aaa", "20260101-bbb", "20260102-ccc", "20260103-ddd"):
        store.create_run(id=run_id, experiment="e", status="completed")
    for pattern in ("_0260101-aaa", "%aaa", "2026010_"):
        with pytest.raises(UserError, match=f"no run '{pattern}'"):
            store.resolve_run(pattern)
    with pytest.raises(UserError) as two:
        store.resolve_run("20260101")
    assert str(two.value) == "run id '20260101' is ambiguous: 20260101-aaa, 20260101-bbb"
    with pytest.raises(UserError) as four:
        store.resolve_run("2026")
    assert str(four.value).endswith(": 20260101-aaa, 20260101-bbb, 20260102-ccc, ...")


def test_an_unknown_run_is_named_without_the_stores_password() -> None:
    """'no run 'x' in postgresql+psycopg://assay:PASSWORD@...' printed the password."""
    pytest.importorskip("psycopg")
    from sqlalchemy.engine import make_url

    from tests.conftest import postgres_server_url
    from tests.postgres import scratch_schema

    server = make_url(postgres_server_url())
    if server.password is None:  # a server that trusts its clients ignores it
        server = server.set(password="hunter2-password")
    with scratch_schema(server.render_as_string(hide_password=False)) as url:
        store = Store(url)
        with pytest.raises(UserError, match="no run 'nosuch' in postgresql") as raised:
            store.resolve_run("nosuch")
        store.close()
    assert str(server.password) not in str(raised.value)
    assert "***" in str(raised.value)
