"""Fuzz: 400 damaged calibration files, labels files and recorded verdicts go through
`assay calibrate` with no internal error and no hang.

The seeds are three calibrations a user writes: MT-bench pairwise judgments with raters,
pass/fail labels in another tool's nested layout, and 1-5 scores with several raters in one
record. Each input damages the spec, the labels or the verdicts (a value of another type, a
key dropped, a file cut short or not UTF-8); it either measures the judge or raises a
UserError (exit 2, a located message). Anything else is a bug reported with its index.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from assay.calibration.session import CalibrationRequest, run_calibration
from assay.errors import AssayError
from assay.store import Store
from tests.fuzzing import Mutator, Tally, records_text, run_input

INPUTS = 400


def _preference() -> dict[str, Any]:
    winners = ["model_a", "model_b", "tie", "model_b", "model_a", "model_b"]
    labels = [{"question_id": 81 + i, "winner": w, "judge": f"expert_{i % 3}", "turn": 1}
              for i, w in enumerate(winners)]
    verdicts = [{"question_id": 81 + i, "g1_winner": "model_2" if i % 2 else "model_1",
                 "g2_winner": "model_2", "judge": ["gpt-4", "pair-v2"]}
                for i in range(len(winners))]
    spec = {"labels": {"path": "labels.jsonl",
                       "fields": {"id": "question_id", "label": "winner", "rater": "judge"}},
            "verdicts": {"path": "verdicts.jsonl",
                         "fields": {"id": "question_id", "a_first": "g1_winner",
                                    "b_first": "g2_winner", "judge_model": "judge.0"}},
            "min_agreement": 0.7}
    return {"spec": spec, "labels": labels, "verdicts": verdicts}


def _pass_fail() -> dict[str, Any]:
    labels = [{"item": {"key": f"c{i}"}, "human": {"verdict": "pass" if i % 3 else "fail"}}
              for i in range(8)]
    verdicts = [{"id": f"c{i}", "verdict": "pass" if i % 2 else "fail"} for i in range(8)]
    spec = {"labels": {"path": "labels.jsonl",
                       "fields": {"id": "item.key", "label": "human.verdict"}},
            "verdicts": {"path": "verdicts.jsonl"}, "kind": "pass_fail",
            "judge": {"model": "openai/gpt-4.1", "prompt_hash": "abc"}, "min_kappa": 0.2}
    return {"spec": spec, "labels": labels, "verdicts": verdicts}


def _scores() -> dict[str, Any]:
    labels = [{"id": f"s{i}", "scores": [1 + i % 5, 1 + (i + 1) % 5]} for i in range(8)]
    verdicts = [{"id": f"s{i}", "verdict": 1 + (i * 2) % 5} for i in range(8)]
    spec = {"labels": {"path": "labels.jsonl", "fields": {"label": "scores"}},
            "verdicts": {"path": "verdicts.jsonl"}, "kind": "score", "scale": [1, 5],
            "min_agreement": None}
    return {"spec": spec, "labels": labels, "verdicts": verdicts}


def _input(mutator: Mutator) -> tuple[Any, dict[str, bytes]]:
    """The spec and the files' bytes (by name) of one damaged calibration."""
    seed = mutator.random.choice([_preference, _pass_fail, _scores])()
    spec, files = seed["spec"], {"labels": seed["labels"], "verdicts": seed["verdicts"]}
    target = mutator.random.choice(["spec", "labels", "verdicts", "labels", "verdicts"])
    if target == "spec":
        spec = mutator.mutate(spec, mutator.random.randint(1, 2))
    else:
        rows = list(files[target])
        for _ in range(mutator.random.randint(1, 3)):
            at = mutator.random.randrange(len(rows))
            rows[at] = mutator.mutate(rows[at])
        files[target] = rows
    form = mutator.random.choice(["jsonl", "jsonl", "json", "csv"])
    if form != "jsonl" and isinstance(spec, dict):
        for key in ("labels", "verdicts"):
            if isinstance(spec.get(key), dict) and spec[key].get("path") == f"{key}.jsonl":
                spec[key] = {**spec[key], "path": f"{key}.{form}"}
    if form == "csv" and isinstance(spec, dict) and isinstance(spec.get("verdicts"), dict):
        fields = spec["verdicts"].get("fields")
        if isinstance(fields, dict) and fields.get("judge_model") == "judge.0":
            # a CSV cell holds text, which no path walks into: the judge's name is the cell
            spec["verdicts"] = {**spec["verdicts"], "fields": {**fields, "judge_model": "judge"}}
    written = {f"{name}.{form}": records_text(rows, form) for name, rows in files.items()}
    if mutator.random.random() < 0.25:
        name = mutator.random.choice(list(written))
        written[name] = mutator.damage(written[name])
    return spec, written


def _json_or_deep_text(spec: Any) -> bytes:
    """The spec as JSON; one nested past what a writer recurses through (two mutations can
    put 500 levels inside 500 more) as the text it stands for, brackets 1,000 deep."""
    try:
        return json.dumps(spec, default=str).encode()
    except RecursionError:
        return b"kind: " + b"[" * 1000 + b"]" * 1000


def test_four_hundred_damaged_calibrations_measure_or_fail_with_located_problems(
        tmp_path: Path) -> None:
    mutator = Mutator(seed=11)
    store = Store(str(tmp_path / "assay.db"))
    tally = Tally(INPUTS, accepted="measured")
    for index in range(INPUTS):
        folder = tmp_path / f"calibration-{index}"
        folder.mkdir()
        spec, files = _input(mutator)
        try:
            text = yaml.safe_dump(spec, allow_unicode=False, sort_keys=False).encode()
        except (yaml.YAMLError, RecursionError, ValueError):
            text = _json_or_deep_text(spec)
        if mutator.random.random() < 0.15:
            text = mutator.damage(text)
        (folder / "calibration.yaml").write_bytes(text)
        for name, content in files.items():
            (folder / name).write_bytes(content)
        tally.record(f"input {index}", run_input(AssayError, run_calibration, CalibrationRequest(
            spec=folder / "calibration.yaml", save=False), store))
    tally.check({"measured": 40, "clear error": 40})
