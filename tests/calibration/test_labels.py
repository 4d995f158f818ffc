"""Reading people's labels: an item whose label is empty is counted and named, not dropped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.analysis.judge_agreement import JudgeAgreement
from assay.calibration.labels import read_labels
from assay.calibration.measure import Calibration
from assay.config.calibration import LabelsFile
from assay.errors import UserError
from assay.reports.calibration import calibration_json, problem_lines

FIELDS = {"id": "item.id", "label": "annotations.*.verdict"}


def write(tmp_path: Path, records: list[dict[str, object]]) -> LabelsFile:
    (tmp_path / "labels.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return LabelsFile(path="labels.jsonl", fields=FIELDS)


def labelled(case_id: str, *verdicts: object) -> dict[str, object]:
    return {"item": {"id": case_id},
            "annotations": [{"verdict": verdict} for verdict in verdicts]}


def test_regression_items_whose_label_is_empty_are_counted_not_dropped_silently(
        tmp_path: Path) -> None:
    """Items whose raters left the verdict null or blank (or that had no annotation) were
    left out of the calibration with nothing said: 48 labelled items read as 45."""
    spec = write(tmp_path, [labelled("c1", "pass", "pass"), labelled("c2", None, None),
                            labelled("c3"), labelled("c4", "  "), labelled("c5", "fail", None)])
    labels = read_labels(spec, tmp_path)
    assert labels.kind == "pass_fail"  # a blank verdict is no label, not a label of its own
    assert sorted(labels.items) == ["c1", "c5"]
    assert labels.items["c5"].values == [False]  # its other rater left no verdict
    assert labels.unlabelled == ["c2", "c3", "c4"]


def test_a_labels_file_whose_every_label_is_empty_says_so(tmp_path: Path) -> None:
    spec = write(tmp_path, [labelled("c1", None), labelled("c2", "")])
    with pytest.raises(UserError, match=r"has no labelled item \(2 items with an empty label\)"):
        read_labels(spec, tmp_path)


def test_the_calibration_report_names_the_items_left_out_for_an_empty_label() -> None:
    from assay.analysis.judge_agreement import judge_agreement, rated_items
    from assay.config.calibration import JudgeIdentity

    items, _, _ = rated_items({"c1": [True], "c4": [False], "c5": [True]},
                              {"c1": True, "c4": False, "c5": False})
    measures: JudgeAgreement = judge_agreement(items, "pass_fail", categories=[False, True])
    cal = Calibration(kind="pass_fail", identity=JudgeIdentity(model="m"), source="s",
                      labels_path="labels.jsonl", measures=measures, min_agreement=0.8,
                      min_kappa=None, unlabelled=["c2", "c3"])
    assert ("left out, an empty label: 2 items of the labels file (c2, c3)"
            in problem_lines(cal))
    assert json.loads(calibration_json(cal))["unlabelled"] == ["c2", "c3"]


def test_a_yaml_labels_file_whose_mapped_id_is_007_labels_the_case_007(tmp_path: Path) -> None:
    """A YAML labels file mapping `id: item` read `item: 007` as the number 7, so its label
    matched no case '007'; the id is now read as written, as a dataset's is."""
    (tmp_path / "labels.yaml").write_text("- {item: 007, gold: pass}\n- {item: 1.10, gold: fail}\n")
    labels = read_labels(LabelsFile(path="labels.yaml", fields={"id": "item", "label": "gold"}),
                         tmp_path)
    assert sorted(labels.items) == ["007", "1.10"]
