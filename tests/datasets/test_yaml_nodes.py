"""A YAML dataset's node tree: built from libyaml's events where PyYAML has them, each case
on its line, errors worded and located as PyYAML's own parser words them."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest
import yaml

from assay.datasets import yaml_nodes
from assay.datasets.files import yaml_records
from assay.errors import ProblemList

needs_libyaml = pytest.mark.skipif(not yaml.__with_libyaml__,
                                   reason="PyYAML was built without libyaml")


def _records(tmp_path: Path, text: str) -> tuple[list[tuple[int, Any]], list[str]]:
    path = tmp_path / "cases.yaml"
    path.write_text(text, encoding="utf-8")
    problems = ProblemList()
    records = list(yaml_records(path, problems))
    return records, [f"{p.line}: {p.message}" for p in problems.problems]


def test_no_collection_walks_the_nodes_while_a_yaml_dataset_is_read(tmp_path: Path) -> None:
    """Regression: reading 200,000 cases took two minutes and 3 GB, the cycle collector
    walking the millions of nodes and values again and again as they were made (none of
    them garbage), on top of PyYAML's scanner and parser in Python."""
    path = tmp_path / "cases.yaml"
    path.write_text("".join(f"- id: c{i}\n  input: question {i}\n  tags: [a, b]\n"
                            for i in range(3000)), encoding="utf-8")
    collections: list[str] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(phase)

    gc.callbacks.append(seen)
    try:
        line, first = next(iter(yaml_records(path, ProblemList())))
    finally:
        gc.callbacks.remove(seen)
    assert (line, first["id"]) == (1, "c0")
    assert len(collections) <= 1, len(collections)


@needs_libyaml
def test_a_yaml_dataset_is_read_from_libyamls_events() -> None:
    assert yaml_nodes._LibyamlCaseLoader is not None
    document = yaml_nodes._read(yaml_nodes._LibyamlCaseLoader("- id: 007\n  input: q\n"))
    assert document.data == [{"id": 7, "input": "q"}]
    assert document.root.value[0].start_mark.line == 0


def test_a_case_written_as_an_alias_is_on_the_line_of_the_alias(tmp_path: Path) -> None:
    records, problems = _records(tmp_path, "base: &b {id: x, input: q}\ncases:\n"
                                           "- {id: a, input: r}\n- *b\n")
    assert problems == []
    assert [(line, record["id"]) for line, record in records] == [(3, "a"), (4, "x")]


@pytest.mark.parametrize(("text", "expected"), [
    ("- input: [a, b\n- input: c\n", "2: invalid YAML: expected ',' or ']', but got ':'"),
    ("- input: x\n  expected: y\n expected: z\n",
     "3: invalid YAML: expected <block end>, but found '<block mapping start>'"),
    ("- input: x\n  input: y\n", "2: invalid YAML: key 'input' appears twice (first on line 1)"),
])
def test_a_malformed_file_is_refused_in_pyyamls_words_at_its_line(
        tmp_path: Path, text: str, expected: str) -> None:
    """libyaml words some errors otherwise ("did not find expected '-' indicator"): the
    file is read again by PyYAML's own parser, so the problem reads as it always did."""
    records, problems = _records(tmp_path, text)
    assert (records, problems) == ([], [expected])


def test_a_file_nested_forty_thousand_deep_is_refused_not_a_crash(tmp_path: Path) -> None:
    """libyaml's own composer recurses without a bound and kills the process with a
    segmentation fault at this depth; PyYAML's composer, which builds the tree from its
    events, stops at Python's recursion limit."""
    records, problems = _records(tmp_path, "- input: " + "[" * 40_000 + "\n")
    assert records == []
    assert len(problems) == 1 and "invalid YAML" in problems[0]


def test_a_case_nested_too_deeply_is_named_by_its_line(tmp_path: Path) -> None:
    """Regression: it read 'invalid YAML: nested too deeply', with no line."""
    text = "- {id: a, input: q}\n- id: b\n  input: q\n  expected: " + "[" * 5_000 + "\n"
    records, problems = _records(tmp_path, text)
    assert (records, problems) == ([], ["4: invalid YAML: nested too deeply"])


@needs_libyaml
def test_a_tab_inside_a_plain_value_is_read_as_yaml_reads_it(tmp_path: Path) -> None:
    """PyYAML's own scanner refused `input: a<tab>b` ('found character that cannot start
    any token'); YAML allows a tab inside a plain value, and libyaml reads it."""
    records, problems = _records(tmp_path, "- input: a\tb\n")
    assert problems == []
    assert records == [(1, {"input": "a\tb"})]
