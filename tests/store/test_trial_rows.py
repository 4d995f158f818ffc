"""Text no database can hold is made storable at the store's edge, and the trial says so."""

from __future__ import annotations

from assay.case import Case
from assay.output import Output
from assay.score import Score
from assay.store import Store
from assay.store.trial_rows import NOTE_KEY
from assay.trial import TrialResult

CUT_EMOJI = "the answer is \ud83d"
"""A reply cut in the middle of an emoji: the first half of a surrogate pair, alone."""


def trial(index: int) -> TrialResult:
    case = Case(id=f"c{index:03d}", input="q", expected="a")
    output = Output(text="a")
    scores = {"exact": Score(value=1.0, passed=True)}
    if index == 7:  # a dataset field read by a caller that did not clean it
        case = Case(id="c007", input="half \ud800 of a pair", expected={"k\udfff": "v"})
    if index == 8:  # a model's reply cut mid-emoji, in its text, transcript and metadata
        output = Output(text=CUT_EMOJI, transcript=[{"role": "assistant", "content": CUT_EMOJI}],
                        metadata={"raw": CUT_EMOJI})
    if index == 9:  # NUL, which PostgreSQL's text columns refuse
        output = Output(text="a\x00b")
        scores = {"exact": Score(value=0.0, passed=False, reason="saw \x00 and \ud83d")}
    return TrialResult(case, "a", 0, output, scores)


def test_300_finished_trials_with_unstorable_text_are_all_stored_with_a_note(
        store: Store) -> None:
    store.create_run(id="r1", experiment="e")
    written = store.write_trials("r1", [trial(i) for i in range(300)])
    assert written.stored == 300 and not written.refused
    trials = {t.case_id: t for t in store.iter_trials("r1")}
    assert len(trials) == 300 and store.count_trials("r1") == (300, 0)

    surrogate = trials["c007"]
    assert surrogate.input == "half \ufffd of a pair" and surrogate.expected == {"k\ufffd": "v"}
    assert surrogate.output.metadata[NOTE_KEY] == {"input": {"lone_surrogates": 1},
                                                   "expected": {"lone_surrogates": 1}}
    cut = trials["c008"]
    assert cut.output.text == "the answer is \ufffd"
    assert cut.output.transcript == [{"role": "assistant", "content": "the answer is \ufffd"}]
    assert cut.output.metadata["raw"] == "the answer is \ufffd"
    assert cut.output.metadata[NOTE_KEY] == {"output_text": {"lone_surrogates": 1},
                                             "output": {"lone_surrogates": 3}}
    nul = trials["c009"]
    reason_note = nul.output.metadata[NOTE_KEY]["scores.exact.reason"]
    if store.engine.dialect.name == "postgresql":
        assert nul.scores["exact"].reason == "saw \ufffd and \ufffd"
        assert reason_note == {"lone_surrogates": 1, "nul_characters": 1}
    else:
        assert nul.scores["exact"].reason == "saw \x00 and \ufffd"
        assert reason_note == {"lone_surrogates": 1}
    assert nul.output.text == "a\x00b"  # the answer itself is kept whole in its JSON
    assert NOTE_KEY not in trials["c010"].output.metadata


def test_a_difficulty_too_long_for_its_column_is_cut_and_noted(store: Store) -> None:
    store.create_run(id="r1", experiment="e")
    case = Case(id="c1", input="q", difficulty="hard: " + "x" * 60)
    store.write_trials("r1", [TrialResult(case, "a", 0, Output(text="a"))])
    [stored] = store.iter_trials("r1")
    assert stored.difficulty == ("hard: " + "x" * 60)[:40]
    assert stored.output.metadata[NOTE_KEY] == {"difficulty": {"characters_cut": 26}}
