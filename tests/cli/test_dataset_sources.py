"""A Parquet file and a Hugging Face dataset saved to disk run like any dataset file."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .conftest import Cli

ROWS = [{"question": "Capital of France?", "answer": "Paris"},
        {"question": "Capital of Italy?", "answer": "Rome"}]
AGENT = ("CAPITALS = {'France': 'Paris', 'Italy': 'Rome'}\n"
         "def answer(case):\n"
         "    return next(c for k, c in CAPITALS.items() if k in case.input)\n")


def config(tmp_path: Path, dataset: str) -> None:
    (tmp_path / "agent.py").write_text(AGENT)
    (tmp_path / "assay.yaml").write_text(
        f"name: capitals\ndataset: {dataset}\n"
        "target: {type: python, function: 'agent:answer'}\n"
        "scorers: [{type: contains, value: '{{ expected }}'}]\n")


def scores(tmp_path: Path) -> dict:
    return json.loads((tmp_path / "out" / "results.json").read_text())["stats"]["scores"][0]


def test_a_parquet_dataset_runs(cli: Cli, tmp_path: Path) -> None:
    pq.write_table(pa.Table.from_pylist(ROWS), tmp_path / "capitals.parquet")
    config(tmp_path, "{path: capitals.parquet}")
    assert cli("validate", "assay.yaml").returncode == 0
    ran = cli("run", "assay.yaml", "-o", "out", "--no-progress")
    assert ran.returncode == 0, ran.stderr
    assert (scores(tmp_path)["n"], scores(tmp_path)["mean"]) == (2, 1.0)


def test_a_hugging_face_dataset_saved_to_disk_runs(cli: Cli, tmp_path: Path) -> None:
    import datasets

    datasets.DatasetDict({"test": datasets.Dataset.from_list(ROWS)}).save_to_disk(
        str(tmp_path / "capitals"))
    config(tmp_path, "{hf: capitals, split: test}")
    ran = cli("run", "assay.yaml", "-o", "out", "--no-progress")
    assert ran.returncode == 0, ran.stderr
    assert (scores(tmp_path)["n"], scores(tmp_path)["mean"]) == (2, 1.0)
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert "hf:capitals:test" in json.dumps(results["run"])


def test_a_dataset_with_both_a_path_and_hf_is_a_located_error(cli: Cli, tmp_path: Path) -> None:
    config(tmp_path, "{path: cases.jsonl, hf: capitals}")
    checked = cli("validate", "assay.yaml")
    assert checked.returncode == 2 and "Traceback" not in checked.stderr
    assert "assay.yaml:2 [dataset]: " in checked.stderr
    assert "either `path:` (a file) or `hf:`" in checked.stderr
