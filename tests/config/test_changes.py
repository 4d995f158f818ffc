"""A refused resume names each field whose value changed, at its line in the config now."""

from __future__ import annotations

from pathlib import Path

from assay.config import load_config
from assay.config.changes import config_changes

STARTED = """\
name: demo
dataset: {path: cases.jsonl}
target:
  type: python
  function: agent:answer
scorers:
  - type: contains
    value: "{{ expected }}"
  - type: token_f1
    threshold: 0.5
run: {concurrency: 4, epochs: 2}
"""


def stored(tmp_path: Path, text: str) -> tuple[dict, object]:
    (tmp_path / "assay.yaml").write_text(text)
    (tmp_path / "cases.jsonl").write_text('{"id": "x", "input": "q", "expected": "a"}\n')
    loaded = load_config(tmp_path / "assay.yaml", env={})
    return loaded.stored, loaded.source


def test_each_changed_field_is_named_with_its_line_and_both_values(tmp_path: Path) -> None:
    before, _ = stored(tmp_path, STARTED)
    after, source = stored(tmp_path, STARTED.replace("threshold: 0.5", "threshold: 0.6")
                           .replace("epochs: 2", "epochs: 3")
                           .replace("function: agent:answer",
                                    "function: agent:answer\n  args: {style: long}"))
    changes = [(p.line, p.field, p.message) for p in config_changes(before, after, source)]
    assert changes == [
        (6, "target.args.style", 'not set when the run started, "long" now'),
        (11, "scorers.1.threshold", "0.5 when the run started, 0.6 now"),
        (12, "run.epochs", "2 when the run started, 3 now"),
    ]


def test_a_pace_setting_is_no_change(tmp_path: Path) -> None:
    before, _ = stored(tmp_path, STARTED)
    after, source = stored(tmp_path, STARTED.replace("concurrency: 4", "concurrency: 1"))
    assert config_changes(before, after, source) == []


def test_a_scorer_removed_is_named_by_the_list_it_left(tmp_path: Path) -> None:
    before, _ = stored(tmp_path, STARTED)
    after, source = stored(tmp_path, STARTED.replace("  - type: token_f1\n    threshold: 0.5\n",
                                                     ""))
    [change] = config_changes(before, after, source)
    assert (change.line, change.field) == (6, "scorers")
    assert change.message.endswith("when the run started, "
                                   '[{"type": "contains", "value": "{{ expected }}"}] now')


def test_a_setting_added_under_a_section_the_run_had_not_is_named_by_its_key(
        tmp_path: Path) -> None:
    """`run: {concurrency: 4}` (pace alone, which a resume may change) then `timeout: 5`
    added: the refusal said `[run]`, not which key of it."""
    before, _ = stored(tmp_path, STARTED.replace("run: {concurrency: 4, epochs: 2}",
                                                 "run: {concurrency: 4}"))
    after, source = stored(tmp_path, STARTED.replace("run: {concurrency: 4, epochs: 2}",
                                                     "run:\n  concurrency: 4\n  timeout: 5"))
    changes = [(p.line, p.field, p.message) for p in config_changes(before, after, source)]
    assert changes == [(13, "run.timeout", "not set when the run started, 5 now")]
