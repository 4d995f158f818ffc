"""The fake model under test: it answers from what it is shown, and knows nothing else.

`FakeAnswerer` plays the target of an eval on the fake server. It has no
knowledge of its own, so a difference between conditions comes only from
the context a condition gives it, which is what an eval of context
(knowledge packs, MCP servers, retrieval) is meant to show:

- a scripted answer, when one of `answers`' keys is in the question (see
  `load_answers` for a file of them);
- offered tools and no tool result yet: it calls the tool that fits the
  question best (a search-like tool first), its text parameter set to the
  question;
- context in the prompt (the text before a "Question:" heading, or a
  `<passages>`-like block) or tool results: it answers with the sentences of
  that context that share the most words with the question;
- nothing relevant: "I don't know." (or `unknown`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from assay.testing.labels import load_mapping
from assay.testing.script import FakeRequest, Reply
from assay.testing.similarity import best_sentences, word_set

_QUESTION = re.compile(r"^\s*(?:#+\s*)?\**question\**\s*:\s*", re.IGNORECASE | re.MULTILINE)
_BLOCK = re.compile(r"<([A-Za-z][\w-]{0,40})>(.*?)</\1>", re.DOTALL)
_SOURCE_HEADER = re.compile(r"^\s*\[[^\]\n]+\][^\n]*$", re.MULTILINE)
_SEARCH_LIKE = ("search", "query", "find", "lookup", "look_up", "retrieve", "ask")
_TEXT_PARAMETERS = ("query", "q", "question", "text", "search", "keywords", "prompt", "input")


class FakeAnswerer:
    """Answers questions from the context in front of it. Use as `FakeLLM(default=...)`."""

    def __init__(self, answers: Mapping[str, str] | None = None, *,
                 unknown: str = "I don't know.", sentences: int = 2) -> None:
        self.answers = dict(answers or {})
        self.unknown = unknown
        self.sentences = sentences
        self._keys = sorted(self.answers, key=len, reverse=True)

    def __call__(self, request: FakeRequest) -> Reply:
        question, context = split_question(request.last_user)
        scripted = next((key for key in self._keys if key in question), None)
        if scripted is not None:
            return Reply(text=self.answers[scripted])
        results = tool_results(request)
        if request.tools and not results and request.forced_tool is None:
            call = tool_call(request, question)
            if call is not None:
                return Reply(tool_calls=[call])
        chosen = best_sentences(question, [context, *results], self.sentences)
        return Reply(text=" ".join(chosen) if chosen else self.unknown)


ANSWER_KEYS = ("key", "input", "question", "id")
ANSWER_FIELDS = ("answer", "output", "expected", "reply")


def load_answers(path: str | Path) -> dict[str, str]:
    """Scripted answers by question text: a JSON object `{question: answer}`, or records
    (JSON array, JSONL or CSV) with `input` or `question` and `answer`, `output` or
    `expected`: a dataset file makes a model that always answers as expected."""
    loaded = load_mapping(path, ANSWER_KEYS, ANSWER_FIELDS)
    return {key: value if isinstance(value, str) else
            "; ".join(map(str, value)) if isinstance(value, list) else json.dumps(value)
            for key, value in loaded.items()}


def split_question(message: str) -> tuple[str, str]:
    """(question, context) of a user message: the context is what precedes "Question:".

    A tagged block in the context (`<passages>...</passages>`) stands for the
    whole context, so instructions around it are not taken for facts.
    """
    headings = list(_QUESTION.finditer(message))
    if not headings:
        return message.strip(), ""
    last = headings[-1]
    context = message[: last.start()]
    blocks = [body for _, body in _BLOCK.findall(context)]
    if blocks:
        context = "\n\n".join(blocks)
    return message[last.end():].strip(), _SOURCE_HEADER.sub("", context)


def tool_results(request: FakeRequest) -> list[str]:
    """The tool results since the last user message, source headers dropped."""
    results: list[str] = []
    for message in reversed(request.messages):
        if message["role"] == "user":
            break
        if message["role"] == "tool":
            results.append(_SOURCE_HEADER.sub("", message["content"]))
    return results[::-1]


def tool_call(request: FakeRequest, question: str) -> dict[str, Any] | None:
    """A call of the offered tool that fits `question` best, or None when none fits."""
    tools = offered_tools(request)
    asked = word_set(question)

    def fit(tool: dict[str, Any]) -> int:
        name = tool["name"].lower()
        searchable = 100 if any(word in name for word in _SEARCH_LIKE) else 0
        return searchable + len(asked & word_set(f"{name} {tool['description']}"))

    ranked = sorted(tools, key=fit, reverse=True)
    if not ranked or fit(ranked[0]) == 0:
        return None
    tool = ranked[0]
    return {"name": tool["name"], "arguments": _arguments(tool["schema"], question)}


def offered_tools(request: FakeRequest) -> list[dict[str, Any]]:
    """The tools offered: name, description and input schema, whichever protocol sent them."""
    tools: list[dict[str, Any]] = []
    for raw in request.body.get("tools") or []:
        spec = raw.get("function", raw)
        schema = spec.get("parameters") or spec.get("input_schema") or {}
        tools.append({"name": spec.get("name", ""), "description": spec.get("description") or "",
                      "schema": schema})
    return tools


def _arguments(schema: dict[str, Any], question: str) -> dict[str, Any]:
    properties: dict[str, Any] = schema.get("properties") or {}
    required = list(schema.get("required") or [])
    strings = [name for name, spec in properties.items() if spec.get("type") == "string"]
    text = next((name for name in _TEXT_PARAMETERS if name in strings), None)
    if text is None:
        text = next((name for name in required if name in strings), None)
    if text is None and strings:
        text = strings[0]
    arguments: dict[str, Any] = {} if text is None else {text: question}
    for name in required:
        if name not in arguments:
            arguments[name] = _plain_value(properties.get(name) or {})
    return arguments


def _plain_value(spec: dict[str, Any]) -> Any:
    if "default" in spec:
        return spec["default"]
    if spec.get("enum"):
        return spec["enum"][0]
    kind = spec.get("type")
    if kind in ("integer", "number"):
        return spec.get("minimum", 1)
    return {"boolean": False, "array": [], "object": {}}.get(str(kind), "")
