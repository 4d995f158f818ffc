"""A batch the database refuses a row of is written row by row: the others kept, the bad
one stored as an errored trial saying why, nothing lost silently."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from assay.case import Case
from assay.errors import StoreError
from assay.output import Output
from assay.score import Score
from assay.store import Store
from assay.trial import TrialResult


def finished(index: int, answer: str = "fine", details: dict[str, object] | None = None,
             ) -> TrialResult:
    return TrialResult(Case(id=f"c{index:03d}", input="q", expected="fine"), "a", 0,
                       Output(text=answer),
                       {"exact": Score(value=1.0, passed=True, details=details or {})})


def refuse_answers(store: Store, answer: str) -> None:
    """A trigger that refuses any trial row whose answer is `answer`: a row the database
    cannot hold, whatever the reason."""
    with store.engine.begin() as conn:
        if store.engine.dialect.name == "sqlite":
            conn.execute(text(
                f"CREATE TRIGGER refuse BEFORE INSERT ON trials WHEN NEW.output_text = '{answer}' "
                "BEGIN SELECT RAISE(ABORT, 'this row is refused'); END"))
        else:
            conn.execute(text(
                "CREATE FUNCTION refuse() RETURNS trigger AS $$ BEGIN "
                f"IF NEW.output_text = '{answer}' THEN RAISE EXCEPTION 'this row is refused' "
                "USING ERRCODE = '22000'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql"))
            conn.execute(text("CREATE TRIGGER refuse BEFORE INSERT ON trials FOR EACH ROW "
                              "EXECUTE FUNCTION refuse()"))


def test_one_refused_row_does_not_lose_the_other_299_of_its_batch(store: Store) -> None:
    store.create_run(id="r1", experiment="e")
    refuse_answers(store, "poison")
    batch = [finished(i, "poison" if i == 150 else "fine") for i in range(300)]
    written = store.write_trials("r1", batch)
    assert written.stored == 300
    assert list(written.refused) == [("c150", "a", 0)]
    assert "this row is refused" in written.refused[("c150", "a", 0)]
    trials = {t.case_id: t for t in store.iter_trials("r1")}
    assert len(trials) == 300 and store.count_trials("r1") == (300, 1)
    refused = trials["c150"]
    assert refused.error is not None and refused.error.startswith(
        "not stored: the database refused its row: ") and refused.scores == {}
    assert trials["c149"].scores["exact"].passed is True and trials["c149"].error is None


def test_a_value_that_cannot_even_be_printed_makes_its_trial_an_error_not_the_batch(
        store: Store) -> None:
    class Unprintable:
        def __str__(self) -> str:
            raise RuntimeError("no text for this")

    store.create_run(id="r1", experiment="e")
    batch = [finished(i, details={"odd": Unprintable()} if i == 3 else None) for i in range(10)]
    written = store.write_trials("r1", batch)
    assert written.stored == 10 and list(written.refused) == [("c003", "a", 0)]
    errored = next(t for t in store.iter_trials("r1") if t.case_id == "c003")
    assert errored.error is not None and "no text for this" in errored.error


def test_a_trial_that_cannot_be_stored_even_as_an_error_is_named_after_the_rest_is_kept(
        store: Store) -> None:
    store.create_run(id="r1", experiment="e")
    store.write_trials("r1", [finished(5)])
    with pytest.raises(StoreError, match="case 'c005'.*not even as an error"):
        store.write_trials("r1", [finished(i) for i in range(10)])  # c005 is stored already
    assert store.count_trials("r1") == (10, 0)
