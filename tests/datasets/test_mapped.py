"""Files of any layout read into named fields, with the datasets' readers and located errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.datasets.mapped import read_mapped
from assay.errors import Problem, UserError


def test_dotted_paths_list_indexes_and_a_star_reach_into_nested_records(tmp_path: Path) -> None:
    path = tmp_path / "export.jsonl"
    path.write_text(json.dumps({"task": {"id": 7}, "runs": [{"pick": "A"}, {"pick": "B"}],
                                "notes": [{"by": "ana", "ok": True}, {"by": "ben", "ok": False}]})
                    + "\n")
    [record] = read_mapped(path, {"id": "task.id", "first": "runs.0.pick",
                                  "second": "runs.1.pick", "label": "notes.*.ok"},
                           required=("id", "first", "second", "label"))
    assert record.values == {"id": 7, "first": "A", "second": "B", "label": [True, False]}
    assert record.line == 1


def test_csv_and_json_arrays_are_read_by_the_same_readers(tmp_path: Path) -> None:
    (tmp_path / "labels.csv").write_text("item,gold\nq1,pass\nq2,fail\n")
    (tmp_path / "labels.json").write_text(json.dumps([{"item": "q1", "gold": "pass"}]))
    fields = {"id": "item", "label": "gold"}
    assert [r.values for r in read_mapped(tmp_path / "labels.csv", fields,
                                          required=("id", "label"))] == [
        {"id": "q1", "label": "pass"}, {"id": "q2", "label": "fail"}]
    assert len(read_mapped(tmp_path / "labels.json", fields, required=("id", "label"))) == 1


def test_every_record_missing_a_field_is_named_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text('{"item": "q1", "gold": "pass"}\n{"item": "q2"}\n{"gold": "fail"}\n')
    with pytest.raises(UserError) as raised:
        read_mapped(path, {"id": "item", "label": "gold"}, required=("id", "label"),
                    what="labels")
    problems = raised.value.problems
    assert [(p.line, p.field) for p in problems] == [(2, "gold"), (3, "item")]
    assert "missing key 'gold' (the label)" in problems[0].message


def test_a_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="labels file not found"):
        read_mapped(tmp_path / "nope.jsonl", {}, required=("id",), what="labels")


def test_a_labels_path_too_long_for_the_file_system_is_a_clear_error_not_an_internal_error(
        tmp_path: Path) -> None:
    """Regression: a `labels: {path: ...}` of 300 characters raised OSError (File name too
    long) out of `Path.exists()`: `assay calibrate` ended in an internal error."""
    with pytest.raises(UserError, match="cannot open labels file .*File name too long"):
        read_mapped(tmp_path / ("9" * 300), {}, required=("id", "label"), what="labels")


def test_a_labels_field_that_is_null_empty_or_off_its_path_says_which(tmp_path: Path) -> None:
    """A labels record whose label was null, an empty cell or past the end of its path
    read "missing key 'gold'", so a user looked for a typo in a key that was there."""
    fields = {"id": "item", "label": "gold"}
    (tmp_path / "labels.jsonl").write_text('{"item": "q1", "gold": null}\n'
                                           '{"item": "q2", "gold": ""}\n')
    (tmp_path / "labels.csv").write_text("item,gold\nq1,\n")
    (tmp_path / "nested.jsonl").write_text('{"item": "q1", "notes": []}\n')
    messages = [problem.message for name, mapping in (
        ("labels.jsonl", fields), ("labels.csv", fields),
        ("nested.jsonl", {"id": "item", "label": "notes.0.ok"}))
        for problem in _refusal(tmp_path / name, mapping)]
    assert messages == ["'gold' is null (the label)", "'gold' is empty (the label)",
                        "the 'gold' cell is empty (the label)",
                        "nothing at 'notes.0.ok' (the label): 'notes' has 0 items, so no item 0"]


def test_a_star_path_no_item_has_is_refused_at_its_line_not_read_as_empty_labels(
        tmp_path: Path) -> None:
    """Regression: `label: annotations.*.verdit` (a typo of `verdict`) read as an empty list
    of labels on every record, and `assay calibrate` said 'has no labelled item (48 items
    with an empty label)', as if people had labelled nothing."""
    path = tmp_path / "labels.jsonl"
    path.write_text('{"item": "q1", "notes": [{"ok": "pass"}, {"ok": "fail"}]}\n')
    [problem] = _refusal(path, {"id": "item", "label": "notes.*.okk"})
    assert (problem.line, problem.field) == (1, "notes.*.okk")
    assert problem.message == ("nothing at 'notes.*.okk' (the label): "
                               "no item of 'notes' has 'okk'")


def test_a_star_path_over_no_items_or_null_values_is_an_empty_label(tmp_path: Path) -> None:
    """No rater yet, or raters who left their label null, is an empty label (said as such
    by the calibration), not a path that names nothing."""
    path = tmp_path / "labels.jsonl"
    path.write_text('{"item": "q1", "notes": []}\n{"item": "q2", "notes": [{"ok": null}]}\n')
    records = read_mapped(path, {"id": "item", "label": "notes.*.ok"}, required=("id", "label"))
    assert [record.values for record in records] == [{"id": "q1", "label": []},
                                                      {"id": "q2", "label": []}]


def test_an_optional_field_mapped_to_a_path_no_record_has_is_refused(tmp_path: Path) -> None:
    """Regression: `condition: item.conditon` (a typo) read as no condition, so a case's
    labels under two conditions were joined into one item of six raters, and `assay
    calibrate` measured the judge against labels of two different answers."""
    path = tmp_path / "labels.jsonl"
    path.write_text('{"item": {"id": "q1", "condition": "a"}, "ok": "pass"}\n'
                    '{"item": {"id": "q1", "condition": "b"}, "ok": "fail"}\n')
    [problem] = _refusal(path, {"id": "item.id", "label": "ok", "condition": "item.conditon"})
    assert (problem.line, problem.field) == (1, "item.conditon")
    assert problem.message == ("in no record: nothing at 'item.conditon' (the condition): "
                               "'item' has no key 'conditon'")


def test_an_optional_field_some_records_have_is_read_where_it_is(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text('{"id": "q1", "ok": "pass", "by": "ana"}\n{"id": "q2", "ok": "fail"}\n')
    records = read_mapped(path, {"label": "ok", "rater": "by"}, required=("id", "label"))
    assert [record.values.get("rater") for record in records] == ["ana", None]


def _refusal(path: Path, fields: dict[str, str]) -> list[Problem]:
    with pytest.raises(UserError) as raised:
        read_mapped(path, fields, required=("id", "label"), what="labels")
    return raised.value.problems
