"""Scores added to stored trials (pairwise judging, `assay rejudge`, `assay calibrate --run`)
are stored like the runner's: storable, known secrets masked."""

from __future__ import annotations

import pytest

from assay.case import Case
from assay.output import Output
from assay.score import Score
from assay.store import Store
from assay.trial import TrialResult

SECRET = "sk-test-SCORES-0123456789"


def test_a_judge_reason_cut_mid_emoji_and_quoting_a_key_is_stored_cleaned(
        store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: scores written after the run bypassed the store's cleaning, so a lone
    surrogate failed the whole write and a quoted key reached the store."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    store.create_run(id="r1", experiment="e")
    store.write_trials("r1", [TrialResult(Case(id="c1", input="q"), "a", 0, Output(text="x"))])
    judged = Score(value=0.5, passed=False, reason=f"it said \ud83d and {SECRET}",
                   details={"quote": f"key {SECRET} \udfff"}, error=None)
    assert store.write_scores("r1", [(("c1", "a", 0), "judge", judged)]) == 1

    [(key, name, stored)] = store.iter_scores("r1", "judge")
    assert (key, name, stored.value) == (("c1", "a", 0), "judge", 0.5)
    assert stored.reason == "it said \ufffd and ***"
    assert stored.details == {"quote": "key *** \ufffd"}
