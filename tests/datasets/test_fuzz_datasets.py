"""Fuzz: 1,000 damaged copies of real datasets are scanned and read with no internal error
and no hang.

The seeds are the datasets in shared/fixtures/datasets (Knowledge Packs questions as
JSONL and as a JSON array, k-eval sets), each also written as YAML and CSV. Every input
either loads or raises a UserError listing located problems; anything else is a bug.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import yaml

from assay.datasets.dataset import open_dataset
from assay.errors import UserError
from tests.fuzzing import Mutator, dump_json, run_input

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


def _write(records: list[object], form: str) -> bytes:
    if form == "jsonl":
        return "".join(dump_json(r) + "\n" for r in records).encode()
    if form == "json":
        return dump_json(records).encode()
    if form == "yaml":
        return yaml.safe_dump(records, allow_unicode=False).encode()
    out = io.StringIO()
    keys = sorted({k for r in records if isinstance(r, dict) for k in r})
    writer = csv.DictWriter(out, fieldnames=keys or ["input"])
    writer.writeheader()
    for record in records:
        if isinstance(record, dict):
            writer.writerow({k: v if isinstance(v, str) else dump_json(v)
                             for k, v in record.items()})
    return out.getvalue().encode("utf-8", errors="surrogatepass")


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
    failures: list[str] = []
    outcomes = {"loaded": 0, "problems": 0}
    for index in range(INPUTS):
        rows = mutator.random.choice(sets)
        start = mutator.random.randrange(max(1, len(rows) - RECORDS))
        records: list[object] = list(rows[start:start + RECORDS])
        for _ in range(mutator.random.randint(1, 3)):
            at = mutator.random.randrange(len(records))
            records[at] = mutator.mutate(records[at])
        form = mutator.random.choice(["jsonl", "json", "yaml", "csv"])
        try:
            content = _write(records, form)
        except (yaml.YAMLError, ValueError, RecursionError):
            content = _write(rows[start:start + RECORDS], form)  # type: ignore[arg-type]
        if mutator.random.random() < 0.3:
            content = mutator.damage(content)
        path = tmp_path / f"cases-{index}.{form}"
        path.write_bytes(content)
        ended = run_input(UserError, _load, path, mutator.random.choice([None, 3]))
        if ended.failure:
            failures.append(f"input {index} ({form}): {ended.failure}")
        else:
            outcomes["problems" if ended.refused is not None else "loaded"] += 1
        path.unlink()
    assert not failures, f"{len(failures)} of {INPUTS} inputs failed:\n" + "\n".join(failures[:20])
    assert outcomes["loaded"] > 100 and outcomes["problems"] > 100, outcomes
