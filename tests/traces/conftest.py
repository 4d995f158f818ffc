"""Shared helpers: where the real session fixtures live, and writing small session files."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from assay.output import Usage
from assay.providers.base import ChatRequest, ChatResponse
from assay.traces.exchanges import Exchange, FileRead, SessionMeta


@pytest.fixture
def sessions_dir(shared_fixtures: Path) -> Path:
    """The real session logs in `shared/fixtures/sessions` (see tests/conftest.py), referenced
    in place, never copied into the repository."""
    return shared_fixtures / "sessions"


@pytest.fixture
def write_jsonl(tmp_path: Path) -> Callable[..., Path]:
    """Write rows (dicts, or raw strings for broken lines) as a JSONL file under tmp_path."""

    def write(name: str, rows: Sequence[dict[str, Any] | str]) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [row if isinstance(row, str) else json.dumps(row) for row in rows]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path

    return write


def _make_exchange(question: str = "q", answer: str = "a", reads: tuple[str, ...] = (),
                   line: int = 1, path: str = "/logs/s.jsonl") -> Exchange:
    exchange = Exchange(SessionMeta(path, format="pi"), index=1, line=line, question=question,
                        answer=answer)
    exchange.files_read = [FileRead(p, f"content of {p}", line + 1) for p in reads]
    return exchange


@pytest.fixture
def make_exchange() -> Callable[..., Exchange]:
    """Build an exchange by hand, for tests of what comes after reading."""
    return _make_exchange


class EchoJudge:
    """A provider that finds one wiki gap per question, naming the question, after a delay.

    Later questions are answered faster (`delay` shrinks with each request), so calls
    finish out of order; it records how many calls were in flight at once.
    """

    name = "echo-judge"

    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay
        self.questions: list[str] = []
        self.cache_asked: list[bool] = []
        self.finished: list[str] = []
        self.cancelled = 0
        self.in_flight = 0
        self.max_in_flight = 0

    async def chat(self, request: ChatRequest, *, use_cache: bool = True) -> ChatResponse:
        question = request.messages[0]["content"].split("\n")[1]
        self.questions.append(question)
        self.cache_asked.append(use_cache)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay / len(self.questions))
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        finally:
            self.in_flight -= 1
        self.finished.append(question)
        finding = {"type": "wiki-gap", "severity": "warning", "detail": f"gap: {question}",
                   "recommendation": "add it"}
        return ChatResponse(text=json.dumps({"findings": [finding]}),
                            usage=Usage(input_tokens=10, output_tokens=5, calls=1))

    async def aclose(self) -> None:
        pass


@pytest.fixture
def echo_judge() -> Callable[..., EchoJudge]:
    """Make an EchoJudge: `echo_judge(delay=0.05)`."""
    return EchoJudge
