"""Fuzz: 1,000 damaged copies of real datasets are scanned and read with no internal error
and no hang.

The seeds are the datasets in shared/fixtures/datasets (Knowledge Packs questions as
JSONL and as a JSON array, k-eval sets), each also written as YAML and CSV. Every input
either loads or raises a UserError listing located problems; anything else is a bug.
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from assay.datasets.dataset import open_dataset
from assay.errors import UserError
from tests.fuzzing import Mutator, Tally, records_text, run_input

INPUTS = 1_000
RECORDS = 12


def _records(shared_fixtures: Path) -> list[list[dict[str, object]]]:
    sets = []
    for path in sorted((shared_fixtures / "datasets").rglob("*.jsonl")):
        rows = []
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(row, dict):
                rows.append(row)
        if rows:
            sets.append(rows)
    return sets


def _load(path: Path, sample: int | None) -> None:
    """Open, scan and read every case, each as JSON a report could write."""
    dataset = open_dataset(path, sample=sample)
    dataset.scan()
    for case in dataset:
        json.dumps(case.to_dict(), ensure_ascii=False).encode("utf-8")


def test_a_thousand_damaged_datasets_load_or_fail_with_located_problems(
        shared_fixtures: Path, tmp_path: Path) -> None:
    sets = _records(shared_fixtures)
    mutator = Mutator(seed=5)
    tally = Tally(INPUTS, accepted="loaded", refused="problems")
    for index in range(INPUTS):
        rows = mutator.random.choice(sets)
        start = mutator.random.randrange(max(1, len(rows) - RECORDS))
        records: list[object] = list(rows[start:start + RECORDS])
        for _ in range(mutator.random.randint(1, 3)):
            at = mutator.random.randrange(len(records))
            records[at] = mutator.mutate(records[at])
        form = mutator.random.choice(["jsonl", "json", "yaml", "csv"])
        try:
            content = records_text(records, form)
        except (yaml.YAMLError, ValueError, RecursionError):
            content = records_text(rows[start:start + RECORDS], form)  # type: ignore[arg-type]
        if mutator.random.random() < 0.3:
            content = mutator.damage(content)
        path = tmp_path / f"cases-{index}.{form}"
        path.write_bytes(content)
        tally.record(f"input {index} ({form})",
                     run_input(UserError, _load, path, mutator.random.choice([None, 3])))
        path.unlink()
    tally.check({"loaded": 100, "problems": 100})
