"""Records held in memory behave as a dataset file does: checked, hashed, sampled, streamed."""

from __future__ import annotations

import pytest

from assay.case import Case
from assay.datasets.memory import memory_dataset, records_sha256
from assay.errors import UserError


def test_cases_go_through_unchanged_and_dicts_are_read_like_a_file() -> None:
    case = Case(id="full", input=[{"role": "user", "content": "hi"}], expected={"a": 1},
                expected_tool_calls=[{"name": "search", "args": {"q": "hi"}}],
                expected_traits=["polite"], reference="doc", tags=["chat"],
                difficulty="easy", metadata={"source": "test"})
    dataset = memory_dataset([case, {"input": "plain", "expected": "text", "lang": "en"}])
    assert list(dataset) == [case, Case(id="1", input="plain", expected="text",
                                        metadata={"lang": "en"})]
    assert len(dataset) == 2 and dataset.scan().layout == "assay"


def test_a_known_layout_is_detected_as_for_files() -> None:
    dataset = memory_dataset([{"question": "Capital of France?", "ground_truth": "Paris"}])
    [case] = list(dataset)
    assert dataset.scan().layout == "knowledge-packs"
    assert (case.input, case.expected) == ("Capital of France?", "Paris")


def test_the_hash_covers_content_not_key_order() -> None:
    records = [{"id": "a", "input": "x", "expected": "X"}]
    reordered = [{"expected": "X", "input": "x", "id": "a"}]
    changed = [{"id": "a", "input": "x", "expected": "Y"}]
    assert memory_dataset(records).scan().sha256 == records_sha256(reordered)
    assert records_sha256(records) != records_sha256(changed)


def test_every_problem_names_its_record_by_index() -> None:
    dataset = memory_dataset([{"id": "a", "input": "ok"}, "not a record",
                              {"id": "a", "input": "again"}, {"input": {"not": "text"}}])
    with pytest.raises(UserError) as raised:
        dataset.scan()
    assert [str(p) for p in raised.value.problems] == [
        "data[1]: each record must be an object",
        "data[2] [id]: duplicate id 'a' (first at index 0)",
        "data[3] [input]: input must be text or a list of {role, content} messages",
    ]


def test_a_sample_is_seeded_and_stable() -> None:
    records = [{"id": f"c{i}", "input": str(i)} for i in range(50)]
    first = [c.id for c in memory_dataset(records, sample=5, seed=1)]
    again = [c.id for c in memory_dataset(records, sample=5, seed=1)]
    other_seed = [c.id for c in memory_dataset(records, sample=5, seed=2)]
    assert len(first) == 5 and first == again and first != other_seed
    assert len(memory_dataset(records, sample=5, seed=1)) == 5


@pytest.mark.parametrize("data", ["one string", {"input": "one record"}])
def test_a_single_string_or_record_is_not_mistaken_for_data(data: object) -> None:
    with pytest.raises(UserError, match="list of records"):
        memory_dataset(data)  # type: ignore[arg-type]


def test_ids_that_differ_only_by_spaces_name_the_other_records_index() -> None:
    with pytest.raises(UserError) as info:
        memory_dataset([{"id": "a", "input": "q"}, {"id": "a ", "input": "q"}]).scan()
    assert [str(problem) for problem in info.value.problems] == [(
        "data[1] [id]: id 'a ' differs from 'a' at index 0 only by spaces at its ends, so the "
        "two cases would read alike in every report: remove the spaces, or give each an id of "
        "its own")]


def test_a_dataframe_is_told_how_to_give_its_rows() -> None:
    """Iterating a DataFrame gives its column names: 'data[0]: each record must be an
    object' named the column 'input' as a bad record."""
    pandas = pytest.importorskip("pandas")
    table = pandas.DataFrame([{"input": "2+2", "expected": "4"}])
    with pytest.raises(UserError, match=r"data is a table \(DataFrame\).*to_dict\('records'\)"):
        memory_dataset(table)
    assert len(memory_dataset(table.to_dict("records"))) == 1
