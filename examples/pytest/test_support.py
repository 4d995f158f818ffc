"""The support bot's evals as pytest tests: each passes or fails on its thresholds.

`assay_eval` comes with assay (a pytest plugin); tests that use it carry the
`assay` marker, so `pytest -m assay` runs the evals alone. Every run is
stored like `assay run`'s, so `assay history support-bot` lists them.
"""

from __future__ import annotations

from support import answer


def test_version_2_answers_most_questions(assay_eval):
    result = assay_eval("assay.yaml", thresholds={"contains@v2": 0.8, "answered@v2": 0.8})
    assert result.summary.get("contains", "v2").pass_rate > \
        result.summary.get("contains", "v1").pass_rate


def test_every_answer_names_its_topic(assay_eval):
    assay_eval(experiment="support-bot-smoke",
               data=[{"input": "How long does a refund take?", "expected": "Refunds"},
                     {"input": "Is shipping free?", "expected": "Shipping"}],
               task=answer, scorers=[{"type": "contains", "value": "{{ expected }}"}],
               thresholds={"contains": 1.0})


def test_version_1_is_not_good_enough(assay_eval):
    """Fails on purpose: version 1 misses the questions asked in other words."""
    assay_eval("assay.yaml", thresholds={"contains@v1": 0.8})
