"""Names and text from configs, datasets and targets print as written, never as rich markup."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.cli.evalproject import assay

AGENT = '''
def answer(case):
    if case.id == "[red]q0[/red]":
        raise RuntimeError("closing [/] tag")
    return case.expected if case.id != "q2" else "[bold]no"
'''


def test_brackets_in_names_ids_and_errors_print_literally_and_never_crash_a_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: an experiment, scorer or case id holding `[/]` ended `assay run`,
    `assay runs` and `assay history` in "internal error: MarkupError", and `[red]` in a
    name vanished from the screen (printed as colour)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "200")  # tables at their natural width, names unfolded
    (tmp_path / "agent.py").write_text(AGENT, encoding="utf-8")
    (tmp_path / "cases.jsonl").write_text("".join(
        json.dumps({"id": case, "input": "q", "expected": f"a{i}"}) + "\n"
        for i, case in enumerate(["[red]q0[/red]", "q1", "q2", "q3"])), encoding="utf-8")
    (tmp_path / "assay.yaml").write_text(
        "name: 'support [/] [v2]'\ndataset: {path: cases.jsonl}\n"
        "target: {type: python, function: 'agent.py:answer'}\n"
        "conditions: {'[b]ase': {}, 'new [red]': {}}\n"
        "scorers: [{type: exact_match, name: 'em[/]'}]\n", encoding="utf-8")
    store = str(tmp_path / "s.db")
    for _ in range(2):
        code, printed = assay(capsys, "run", "assay.yaml", "--store", store, "--no-progress")
        assert code == 0, printed
        assert "internal error" not in printed
        assert "support [/] [v2]" in printed and "em[/]" in printed and "new [red]" in printed
        assert "[red]q0[/red]: RuntimeError: closing [/] tag" in printed
    for command in (["runs"], ["history"], ["compare"], ["report", "latest"]):
        code, printed = assay(capsys, *command, "--store", store)
        assert code == 0 and "internal error" not in printed, (command, printed)
        shown = "support \\[/\\] \\[v2\\]" if command == ["report", "latest"] else "support [/] [v2]"
        assert shown in printed or command in (["compare"],), (command, printed)


ESCAPING_AGENT = '''
def answer(case):
    if case.id.startswith("e"):
        raise RuntimeError("boom \\x1b[2J\\x1b[H\\x1b]8;;http://x\\x1b\\\\link\\x1b]8;;\\x1b\\\\ \\u202esdrawkcab")
    return "answer \\x1b[31mred\\r\\x07"
'''


def test_control_characters_from_ids_and_errors_never_reach_the_terminal(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a case id or an error message holding `\\x1b[2J` cleared the screen
    around `assay run`'s summary and `assay compare`'s list of cases, and one ending the
    run printed its escape sequences in the `error:` line; a right-to-left override
    (U+202E) read the rest of its line backwards. Each such character prints as a space."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agent.py").write_text(ESCAPING_AGENT, encoding="utf-8")
    ids = ["e\x1b[2Jcleared", "q\u202edi", "q1", "q\x9b31mc1"]
    (tmp_path / "cases.jsonl").write_text("".join(
        json.dumps({"id": case, "input": "q", "expected": "a"}) + "\n" for case in ids),
        encoding="utf-8")
    config = ("name: controls\ndataset: {path: cases.jsonl}\n"
              "target: {type: python, function: 'agent.py:answer'}\n"
              "conditions: {a: {}, b: {}}\nscorers: [{type: exact_match}]\n")
    (tmp_path / "assay.yaml").write_text(config, encoding="utf-8")
    (tmp_path / "stops.yaml").write_text(config + "run: {max_errors: 1, concurrency: 1}\n", encoding="utf-8")
    store = str(tmp_path / "s.db")
    printed = [assay(capsys, "run", "assay.yaml", "--store", store, "--no-progress")[1],
               assay(capsys, "run", "assay.yaml", "--store", store, "--no-progress")[1],
               assay(capsys, "compare", "--store", store)[1],
               assay(capsys, "run", "stops.yaml", "--store", store, "--no-progress")[1]]
    assert "e [2Jcleared: RuntimeError: boom" in printed[0], printed[0]
    assert "(1): e [2Jcleared" in printed[2], printed[2]
    assert "error:" in printed[3] and "RuntimeError: boom" in printed[3], printed[3]
    for out in printed:
        assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202e]", out), out
