"""A labelled project for calibration tests: items people judged, and a judge with planted flaws.

Each item has its own answer text, so the fake judge's planted true label
(keyed by the answer) applies to that item alone.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import yaml

REFERENCE = "Jupiter is the largest planet of the Solar System, a gas giant."
GOOD = "Jupiter, a gas giant, is the largest planet of the Solar System."
POOR = "It is a planet."


def answer_text(i: int) -> str:
    return f"Answer {i}: the largest planet is probably Jupiter or Saturn."


def pass_fail_labels(n: int, seed: int = 0) -> list[dict[str, Any]]:
    """Items with people's pass/fail verdict (half pass), in another tool's layout."""
    draw = random.Random(seed)
    return [{"item": {"key": f"c{i:03d}", "question": f"Which planet is largest? ({i})",
                      "reference": REFERENCE, "answer": answer_text(i)},
             "human": {"verdict": "pass" if draw.random() < 0.5 else "fail"}}
            for i in range(n)]


def truth_of(labels: list[dict[str, Any]]) -> dict[str, str]:
    """The planted truth for the fake judge: each answer's people's verdict."""
    return {row["item"]["answer"]: row["human"]["verdict"] for row in labels}


def preference_labels(n: int) -> list[dict[str, Any]]:
    """Pairs where people prefer the better answer; the better one is A in half of them."""
    rows = []
    for i in range(n):
        better_first = i % 2 == 0
        rows.append({"id": f"p{i:03d}", "question": f"Which planet is the largest? (v{i})",
                     "reference": REFERENCE, "a": GOOD if better_first else POOR,
                     "b": POOR if better_first else GOOD,
                     "preferred": "A" if better_first else "B"})
    return rows


def write_project(root: Path, labels: list[dict[str, Any]], *, scorers: list[dict[str, Any]],
                  calibration: dict[str, Any], extra: dict[str, Any] | None = None) -> Path:
    """Labels, a dataset of the labelled cases (whose target answers each with its labelled
    answer) and a config; returns the config path."""
    (root / "labels.jsonl").write_text("".join(json.dumps(row) + "\n" for row in labels))
    items = [row["item"] for row in labels if "item" in row] or [
        {"key": "q0", "question": "Which planet is largest?"}]
    (root / "questions.jsonl").write_text("".join(json.dumps(
        {"id": item["key"], "input": item["question"], "expected": REFERENCE}) + "\n"
        for item in items))
    (root / "agent.py").write_text(  # answers each labelled case with its labelled answer
        "def answer(case):\n"
        "    return f'Answer {int(case.id[1:])}: the largest planet is probably Jupiter or "
        "Saturn.'\n")
    config = {"name": "calibrated", "dataset": {"path": "questions.jsonl"},
              "target": {"type": "python", "function": "agent.py:answer"},
              "judge": {"model": "openai/gpt-judge"}, "scorers": scorers,
              "calibration": calibration, "run": {"concurrency": 16}, **(extra or {})}
    path = root / "assay.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


PASS_FAIL_FIELDS = {"id": "item.key", "input": "item.question", "expected": "item.reference",
                    "output": "item.answer", "label": "human.verdict"}
PREFERENCE_FIELDS = {"id": "id", "input": "question", "expected": "reference",
                     "output_a": "a", "output_b": "b", "label": "preferred"}
