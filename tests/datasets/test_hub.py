"""Hugging Face datasets by `hf:`: a folder `save_to_disk` wrote or a folder of data files
(the Hub itself is out of reach here), a split chosen, the revision and fingerprint recorded."""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # before `datasets` reads its settings

import datasets
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from assay.datasets.hub import open_hub_dataset
from assay.errors import UserError

TRAIN = [{"question": "What is 2 + 2?", "answer": "4"}]
TEST = [{"question": "Capital of France?", "answer": "Paris"},
        {"question": "Capital of Italy?", "answer": "Rome"}]


def saved(tmp_path: Path) -> Path:
    folder = tmp_path / "capitals"
    datasets.DatasetDict({"train": datasets.Dataset.from_list(TRAIN),
                          "test": datasets.Dataset.from_list(TEST)}).save_to_disk(str(folder))
    return folder


def test_a_split_saved_to_disk_reads_as_cases(tmp_path):
    saved(tmp_path)
    dataset = open_hub_dataset("capitals", base_dir=tmp_path, split="test")
    scan = dataset.scan()
    cases = list(dataset)
    assert (scan.layout, scan.count) == ("k-eval", 2)
    assert [(c.id, c.input, c.expected) for c in cases] == [
        ("0", "Capital of France?", "Paris"), ("1", "Capital of Italy?", "Rome")]
    assert str(dataset.path) == "hf:capitals:test"


def test_a_single_saved_split_needs_no_split_key(tmp_path):
    datasets.Dataset.from_list(TEST).save_to_disk(str(tmp_path / "one"))
    assert len(open_hub_dataset("one", base_dir=tmp_path)) == 2


@pytest.mark.parametrize("split, words", [
    (None, "has the splits train, test: choose one with `split:`"),
    ("validation", "has no split 'validation' (it has train, test)"),
])
def test_a_missing_or_unknown_split_is_a_clear_error(tmp_path, split, words):
    saved(tmp_path)
    with pytest.raises(UserError, match=words.replace("(", r"\(").replace(")", r"\)")):
        open_hub_dataset("capitals", base_dir=tmp_path, split=split).scan()


def test_a_folder_of_parquet_files_loads_through_load_dataset(tmp_path):
    folder = tmp_path / "files"
    folder.mkdir()
    pq.write_table(pa.Table.from_pylist(TEST), folder / "test-00000.parquet")
    dataset = open_hub_dataset(str(folder), base_dir=tmp_path, split="test")
    assert [c.expected for c in dataset] == ["Paris", "Rome"]
    with pytest.raises(UserError, match='Unknown split "train"'):
        open_hub_dataset(str(folder), base_dir=tmp_path, split="train").scan()


def test_the_hash_follows_the_data_and_the_revision(tmp_path):
    folder = saved(tmp_path)
    first = open_hub_dataset("capitals", base_dir=tmp_path, split="test").scan().sha256
    again = open_hub_dataset("capitals", base_dir=tmp_path, split="test").scan().sha256
    pinned = open_hub_dataset("capitals", base_dir=tmp_path, split="test", revision="v2")
    assert first == again != pinned.scan().sha256
    assert str(pinned.path) == "hf:capitals:test@v2"
    datasets.DatasetDict({"test": datasets.Dataset.from_list(TEST[:1])}).save_to_disk(
        str(folder))
    assert open_hub_dataset("capitals", base_dir=tmp_path, split="test").scan().sha256 != first


def test_a_rows_problems_name_the_dataset_and_row(tmp_path):
    datasets.Dataset.from_list([{"id": "x", "input": "q"}, {"id": "x", "input": "r"}]
                               ).save_to_disk(str(tmp_path / "dupes"))
    with pytest.raises(UserError) as caught:
        open_hub_dataset("dupes", base_dir=tmp_path).scan()
    assert "hf:dupes[row 1] [id]: duplicate id 'x' (first at row 0)" in str(caught.value)


def test_a_dataset_that_cannot_be_found_is_a_clear_error(tmp_path):
    with pytest.raises(UserError, match="cannot load the Hugging Face dataset 'nobody/nothing'"):
        open_hub_dataset("nobody/nothing", base_dir=tmp_path).scan()


def test_without_the_datasets_library_the_error_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(UserError, match=r"pip install 'assay-eval\[hf\]'"):
        open_hub_dataset("capitals", base_dir=tmp_path).scan()
