"""Writing an export: an earlier export's files of the same run are found to be replaced."""

from __future__ import annotations

import json
from pathlib import Path

from assay.export.writing import earlier_file_ids


def aggregate(folder: Path, file_id: str, run_id: str, condition: str) -> None:
    details = {"assay_run_id": run_id, "condition": condition}
    (folder / f"{file_id}.json").write_text(json.dumps(
        {"source_metadata": {"additional_details": details}}), encoding="utf-8")


def test_one_read_of_a_folder_finds_the_earlier_file_of_every_condition_of_the_run(
        tmp_path: Path) -> None:
    aggregate(tmp_path, "b-first", "r1", "baseline")
    aggregate(tmp_path, "c-later", "r1", "baseline")  # the first by name is the one kept
    aggregate(tmp_path, "d-pack", "r1", "pack")
    aggregate(tmp_path, "a-other-run", "r2", "pack")
    (tmp_path / "notes.json").write_text("[1, 2]", encoding="utf-8")  # someone else's
    (tmp_path / "broken.json").write_text("{", encoding="utf-8")
    assert earlier_file_ids(tmp_path, "r1") == {"baseline": "b-first", "pack": "d-pack"}
    assert earlier_file_ids(tmp_path / "absent", "r1") == {}
