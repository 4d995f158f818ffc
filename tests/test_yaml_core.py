"""Configs and datasets read YAML 1.2's booleans: only `true` and `false`.

Regression: a YAML dataset's `expected: yes` was read as a boolean and
compared as the text "true", so the correct answer "yes" failed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from assay.yaml_core import CoreLoader, UniqueKeyLoader, expanded_size
from tests.cli.evalproject import assay


def test_yes_no_on_off_are_text_and_true_false_are_booleans() -> None:
    text = "[yes, no, on, off, y, n, Yes, NO, true, false, True, FALSE, 1, null]"
    assert yaml.load(text, Loader=CoreLoader) == [
        "yes", "no", "on", "off", "y", "n", "Yes", "NO", True, False, True, False, 1, None]


def test_pyyamls_own_safe_loader_is_left_as_it_is() -> None:
    assert yaml.safe_load("yes") is True


def test_a_yaml_dataset_answer_of_yes_is_scored_as_the_text_yes(capsys, tmp_path: Path) -> None:
    (tmp_path / "echo_answer.py").write_text("def answer(case):\n    return case.input_text\n")
    (tmp_path / "cases.yaml").write_text(
        "- {id: c1, input: 'yes', expected: yes}\n"
        "- {id: c2, input: 'no', expected: no}\n"
        "- {id: c3, input: 'true', expected: true}\n")
    (tmp_path / "assay.yaml").write_text(
        "name: answers\ndataset: {path: cases.yaml}\n"
        "target: {type: python, function: 'echo_answer.py:answer', threaded: no}\n"
        "scorers: [{type: exact_match}]\n")
    code, text = assay(capsys, "run", str(tmp_path / "assay.yaml"), "--store",
                       str(tmp_path / "s.db"), "-o", str(tmp_path / "out"), "--no-progress")
    assert code == 0, text
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    [stats] = results["stats"]["scores"]
    assert (stats["n"], stats["pass_rate"]) == (3, 1.0)


def test_a_key_given_twice_is_refused_at_its_line_and_a_merge_key_is_not() -> None:
    """Regression: a dataset's `expected: x` then `expected: y` kept `y` and lost `x`
    unsaid, and `<<: *base` (in a config too) was refused as 'could not determine a
    constructor for the tag 'tag:yaml.org,2002:merge''."""
    with pytest.raises(yaml.constructor.ConstructorError) as info:
        yaml.load("- id: a\n  expected: x\n  expected: y\n", Loader=UniqueKeyLoader)
    assert "key 'expected' appears twice (first on line 2)" in str(info.value)
    assert info.value.problem_mark is not None and info.value.problem_mark.line + 1 == 3
    merged = yaml.load("- &base {id: a, input: q}\n- <<: *base\n  id: b\n",
                       Loader=UniqueKeyLoader)
    assert merged == [{"id": "a", "input": "q"}, {"id": "b", "input": "q"}]


def test_an_aliased_value_is_counted_at_each_use_but_measured_once() -> None:
    root = yaml.compose("a: &x [1, 2]\nb: *x\nc: *x\n", Loader=CoreLoader)
    measured: list[int] = []
    sizes: dict[int, int] = {}
    # the mapping, its 3 keys, and the list (itself and 2 values) three times
    assert expanded_size(root, sizes, after=lambda node, total: measured.append(total)) == 13
    assert sorted(measured) == [1, 1, 1, 1, 1, 3, 13]  # the list and its items once each


def test_dates_are_read_as_the_text_written() -> None:
    text = "[2024-01-01, 2001-12-14t21:59:43.10-05:00, !!timestamp 2001-12-14, '2024-01-01']"
    assert yaml.load(text, Loader=CoreLoader) == [
        "2024-01-01", "2001-12-14t21:59:43.10-05:00", "2001-12-14", "2024-01-01"]


@pytest.mark.parametrize("value, made", [("!!binary UGFyaXM=", "bytes"), ("!!set {a, b}", "a set")])
def test_a_tag_making_a_value_json_cannot_hold_is_refused_at_its_line(value: str,
                                                                       made: str) -> None:
    with pytest.raises(yaml.constructor.ConstructorError) as info:
        yaml.load(f"- id: a\n  expected: {value}\n", Loader=UniqueKeyLoader)
    assert f"makes {made}, which assay cannot store" in str(info.value)
    assert info.value.problem_mark is not None and info.value.problem_mark.line + 1 == 2


@pytest.mark.parametrize("expected, problem", [
    ("2024-01-01", None),
    ("!!binary UGFyaXM=", "cases.yaml:3: invalid YAML: !!binary makes bytes"),
    ("x\n  metadata: {tags: !!set {a, b}}", "cases.yaml:4: invalid YAML: !!set makes a set"),
])
def test_a_yaml_dataset_with_a_date_validates_and_one_with_bytes_is_refused_at_its_line(
        capsys, tmp_path: Path, expected: str, problem: str | None) -> None:
    """Regression: `expected: 2024-01-01` was read as a date, and `assay validate` stopped
    with 'internal error: TypeError: Object of type date is not JSON serializable', exit 3
    (bytes from `!!binary` too, and a set from `!!set` validated, to fail when stored)."""
    (tmp_path / "echo_answer.py").write_text("def answer(case):\n    return case.input_text\n")
    (tmp_path / "cases.yaml").write_text(f"- id: c1\n  input: When?\n  expected: {expected}\n")
    (tmp_path / "assay.yaml").write_text(
        "name: dates\ndataset: {path: cases.yaml}\n"
        "target: {type: python, function: 'echo_answer.py:answer', threaded: no}\n"
        "scorers: [{type: exact_match}]\n")
    code, text = assay(capsys, "validate", str(tmp_path / "assay.yaml"))
    assert code == (0 if problem is None else 2), text
    assert problem is None or problem in text


@pytest.mark.parametrize("value, problem", [
    ("!!int abc", "'abc' is not a !!int value"),
    ("!!float abc", "'abc' is not a !!float value"),
    ("!!bool maybe", "'maybe' is not a !!bool value"),
    ("!!float", "'' is not a !!float value"),
    ("!!map x", "expected a mapping node, but found scalar"),
])
def test_a_value_its_tag_cannot_make_is_refused_at_its_line(value: str, problem: str) -> None:
    """Regression: `!!int abc` raised ValueError, `!!bool maybe` KeyError, `!!float` with no
    value IndexError and `!!map x` ValueError, each an internal error of `assay validate`."""
    with pytest.raises(yaml.constructor.ConstructorError) as info:
        yaml.load(f"name: x\ndescription: {value}\n", Loader=UniqueKeyLoader)
    assert problem in str(info.value)
    assert info.value.problem_mark is not None and info.value.problem_mark.line + 1 == 2


@pytest.mark.parametrize("tag, shown", [("!!python/object/apply:os.system [x]",
                                         "!!python/object/apply:os.system"),
                                        ("!custom x", "!custom")])
def test_a_tag_no_safe_loader_knows_is_named_as_written_at_its_line(tag: str,
                                                                    shown: str) -> None:
    """Regression: it read 'could not determine a constructor for the tag
    'tag:yaml.org,2002:python/object/apply:os.system'', saying neither the tag as written
    nor what to do."""
    with pytest.raises(yaml.constructor.ConstructorError) as info:
        yaml.load(f"name: x\ndescription: {tag}\n", Loader=UniqueKeyLoader)
    assert f"the tag {shown} is not one assay reads: remove it" in str(info.value)
    assert info.value.problem_mark is not None and info.value.problem_mark.line + 1 == 2
