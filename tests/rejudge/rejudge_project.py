"""A small judged project for `assay rejudge` tests: ten cases, one whose target fails.

The target answers from a fixed list and reports what each answer cost, so a
rejudge that copied the answers' cost would show a target cost it never paid.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from assay.store import Store
from assay.testing import FakeJudge, FakeLLM
from tests.fake_sdks import point_sdks_at

CASES = 10
BROKEN = "q03"
"""The case whose target raises: its trial has no answer to judge."""
AGENT = f'''
def answer(case):
    if case.id == "{BROKEN}":
        raise RuntimeError("the target broke")
    return {{"text": "Jupiter is the largest planet.",
             "usage": {{"input_tokens": 10, "output_tokens": 5, "cost_usd": 0.01}}}}
'''


def write_config(root: Path, name: str = "planets", providers: dict[str, Any] | None = None,
                 **run: Any) -> Path:
    """The project's agent, cases and config (with `run` settings); the config's path."""
    (root / "agent.py").write_text(AGENT)
    (root / "questions.jsonl").write_text("".join(json.dumps(
        {"id": f"q{i:02d}", "input": f"Which planet is the largest? ({i})",
         "expected": "Jupiter"}) + "\n" for i in range(CASES)))
    config = {"name": name, "dataset": {"path": "questions.jsonl"},
              "target": {"type": "python", "function": "agent.py:answer", "threaded": False},
              "judge": {"model": "openai/gpt-judge"}, "scorers": [{"type": "judge_score"}],
              "run": {"concurrency": 2, **run}, "providers": providers or {}}
    path = root / f"{name}.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


@pytest.fixture
def judged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, FakeLLM]]:
    """The project written in a temp dir with its store, the SDKs pointed at a fake judge."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ASSAY_STORE", str(tmp_path / "assay.db"))
    monkeypatch.setenv("COLUMNS", "200")
    with FakeLLM(judge=FakeJudge()) as llm:
        point_sdks_at(llm, monkeypatch)
        yield write_config(tmp_path), llm


def runs(tmp_path: Path) -> list[Any]:
    """Every run in the project's store, newest first."""
    store = Store(str(tmp_path / "assay.db"))
    try:
        return store.list_runs(limit=None)
    finally:
        store.close()
