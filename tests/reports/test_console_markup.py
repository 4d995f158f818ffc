"""Names and text from configs, datasets and targets print as written, never as rich markup."""

from __future__ import annotations

import json
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
        assert "support [/] [v2]" in printed or command in (["compare"],), (command, printed)
