"""Building exchanges: an exchange is final once handed on."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from assay.traces.sessions import load_session


def test_a_tool_result_after_the_next_question_is_counted_not_attached(
        write_jsonl: Callable[..., Path]) -> None:
    rows = [
        {"role": "user", "content": "q1"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "name": "read_file", "arguments": {"path": "docs/a.md"}}]},
        {"role": "user", "content": "q2"},
        {"role": "tool", "tool_call_id": "c1", "content": "late body"},
        {"role": "assistant", "content": "a2"},
    ]
    session, exchanges = load_session(write_jsonl("chat.jsonl", rows))
    first, second = exchanges
    assert first.files_read == [] and first.tool_calls[0].result is None
    assert second.files_read == []
    assert session.meta.stats is not None
    assert session.meta.stats.ignored["tool-result:after-the-next-question"] == 1


def test_questions_that_share_a_line_have_ids_of_their_own(
        write_jsonl: Callable[..., Path], tmp_path: Path) -> None:
    """Regression: in the fine-tuning layout (a whole conversation per line) every question
    of a line had the id `<file>:<line>`, so `assay traces export` wrote a dataset with
    duplicate ids, which the dataset loader refuses."""
    from assay.datasets import open_dataset
    from assay.traces.export import write_dataset

    conversation = [{"role": "user", "content": "q1"}, {"role": "assistant", "content": "a1"},
                    {"role": "user", "content": "q2"}, {"role": "assistant", "content": "a2"}]
    path = write_jsonl("finetune.jsonl", [{"messages": conversation}] * 2)
    _, exchanges = load_session(path)
    ids = [exchange.id for exchange in exchanges]
    assert len(ids) == 4 and len(set(ids)) == 4
    assert ids[0].endswith(":1") and ids[2].endswith(":2")  # the first of a line keeps its id
    write_dataset(exchanges, tmp_path / "cases.jsonl")
    assert [case.id for case in open_dataset(tmp_path / "cases.jsonl")] == ids
