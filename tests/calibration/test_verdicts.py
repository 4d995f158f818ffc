"""Verdicts recorded by another tool, both presentation orders of a pair, loaded by `fields:`
mapping alone; and verdicts read from a stored run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from assay.calibration.session import CalibrationRequest, run_calibration
from assay.errors import UserError
from assay.store import Store

# Human judgments and GPT-4 pair judgments shaped as MT-bench publishes them: winners named
# `model_a`/`model_b`, each judge's game in both orders with the second mapped back to models.
HUMAN = [
    {"question_id": 81, "model_a": "alpaca-13b", "model_b": "gpt-4", "winner": "model_b",
     "judge": "expert_0", "turn": 1},
    {"question_id": 81, "model_a": "alpaca-13b", "model_b": "gpt-4", "winner": "model_b",
     "judge": "expert_1", "turn": 1},
    {"question_id": 82, "model_a": "alpaca-13b", "model_b": "gpt-4", "winner": "model_a",
     "judge": "expert_0", "turn": 1},
    {"question_id": 83, "model_a": "alpaca-13b", "model_b": "gpt-4", "winner": "tie",
     "judge": "expert_2", "turn": 1},
    {"question_id": 84, "model_a": "alpaca-13b", "model_b": "gpt-4", "winner": "model_b",
     "judge": "expert_0", "turn": 1},
]
JUDGE = [
    {"question_id": 81, "model_1": "alpaca-13b", "model_2": "gpt-4", "g1_winner": "model_2",
     "g2_winner": "model_2", "judge": ["gpt-4", "pair-v2"], "turn": 1},
    {"question_id": 82, "model_1": "alpaca-13b", "model_2": "gpt-4", "g1_winner": "model_1",
     "g2_winner": "model_2", "judge": ["gpt-4", "pair-v2"], "turn": 1},
    {"question_id": 83, "model_1": "alpaca-13b", "model_2": "gpt-4", "g1_winner": "tie",
     "g2_winner": "tie", "judge": ["gpt-4", "pair-v2"], "turn": 1},
    {"question_id": 84, "model_1": "alpaca-13b", "model_2": "gpt-4", "g1_winner": "model_2",
     "g2_winner": "model_2", "judge": ["gpt-4", "pair-v2"], "turn": 1},
]


def write(path: Path, rows: list[dict[str, object]]) -> None:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(str(tmp_path / "assay.db"))


def spec(tmp_path: Path, **verdicts: object) -> Path:
    write(tmp_path / "human.jsonl", HUMAN)
    write(tmp_path / "gpt4_pair.jsonl", JUDGE)
    document = {
        "labels": {"path": "human.jsonl",
                   "fields": {"id": "question_id", "label": "winner", "rater": "judge"}},
        "verdicts": {"path": "gpt4_pair.jsonl",
                     "fields": {"id": "question_id", "a_first": "g1_winner",
                                "b_first": "g2_winner", "judge_model": "judge.0"},
                     **verdicts},
        "min_agreement": 0.7,
    }
    path = tmp_path / "calibration.yaml"
    path.write_text(yaml.safe_dump(document))
    return path


def test_mt_bench_pair_judgments_in_both_orders_load_through_fields_alone(
        tmp_path: Path, store: Store) -> None:
    result = run_calibration(CalibrationRequest(spec=spec(tmp_path)), store)
    assert result.kind == "preference" and result.n == 4
    measures = result.measures
    assert measures.positions.items == 4 and measures.positions.consistent == 3
    # 82: model_1 with it shown first, model_2 after the swap: a position-inconsistent tie
    assert measures.disagreements == ("82",)
    assert measures.a_first.rate == 1.0 and measures.b_first.rate == 0.75
    assert result.identity.model == "gpt-4"
    assert result.source.startswith("file ") and result.passed  # 3 of 4 >= 0.7
    assert store.calibrations.list()[0].judge_model == "gpt-4"


def test_a_swapped_order_recorded_by_position_is_read_as_the_other_answer(
        tmp_path: Path, store: Store) -> None:
    positional = [dict(row, g2_winner={"model_1": "A", "model_2": "B"}.get(
        str(row["g2_winner"]), row["g2_winner"])) for row in JUDGE]
    path = spec(tmp_path, order_labels="position")
    write(tmp_path / "gpt4_pair.jsonl", positional)
    result = run_calibration(CalibrationRequest(spec=path, save=False), store)
    # "B" with model_2 shown first names model_1 (a): now 81 and 84 are inconsistent, 82 not
    assert result.measures.disagreements == ("81", "84")


def test_an_unreadable_verdict_names_its_file_line_and_field(tmp_path: Path,
                                                             store: Store) -> None:
    path = spec(tmp_path)
    rows = [dict(JUDGE[0]), dict(JUDGE[1], g1_winner="maybe")]
    write(tmp_path / "gpt4_pair.jsonl", rows)
    with pytest.raises(UserError) as raised:
        run_calibration(CalibrationRequest(spec=path), store)
    [problem] = raised.value.problems
    assert problem.line == 2 and "'maybe' names neither answer nor a tie" in problem.message
    assert problem.field == "g1_winner"
    assert store.calibrations.list() == []
