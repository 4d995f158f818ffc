"""The Case: one golden item of a dataset."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

Message = dict[str, Any]
"""A chat message: {"role": ..., "content": ...}."""


@dataclass(slots=True)
class Case:
    """One golden item: what to ask and what a good answer looks like.

    `input` is either a string or a list of chat messages. `expected` is the
    ground truth in whatever shape the scorers need (text, number, JSON).
    """

    id: str
    input: str | list[Message]
    expected: Any = None
    expected_tool_calls: list[dict[str, Any]] | None = None
    expected_traits: list[str] | None = None
    reference: Any = None
    tags: list[str] = field(default_factory=list)
    difficulty: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def input_text(self) -> str:
        """The input as plain text: the last user message for a chat input."""
        if isinstance(self.input, str):
            return self.input
        for message in reversed(self.input):
            if message.get("role") == "user":
                return content_text(message.get("content"))
        return content_text(self.input[-1].get("content")) if self.input else ""

    @property
    def messages(self) -> list[Message]:
        """The input as chat messages."""
        if isinstance(self.input, str):
            return [{"role": "user", "content": self.input}]
        return list(self.input)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict, dropping empty optional fields."""
        data: dict[str, Any] = {"id": self.id, "input": self.input}
        for name in ("expected", "expected_tool_calls", "expected_traits", "reference",
                     "difficulty"):
            value = getattr(self, name)
            if value is not None:
                data[name] = value
        if self.tags:
            data["tags"] = self.tags
        if self.metadata:
            data["metadata"] = self.metadata
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Case:
        return cls(
            id=str(data["id"]),
            input=data["input"],
            expected=data.get("expected"),
            expected_tool_calls=data.get("expected_tool_calls"),
            expected_traits=data.get("expected_traits"),
            reference=data.get("reference"),
            tags=list(data.get("tags") or []),
            difficulty=data.get("difficulty"),
            metadata=dict(data.get("metadata") or {}),
        )


def content_text(content: Any) -> str:
    """The text of a chat message's content: a string, or its text blocks joined by newlines.

    Content may be a list of blocks, as the OpenAI and Anthropic APIs and agent
    logs write it: text blocks give their text, images a `[image]` placeholder,
    bare strings themselves; other blocks (tool calls, thinking) carry no text.
    """
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict):
                kind, text = block.get("type"), block.get("text")
                if isinstance(text, str) and kind in TEXT_BLOCKS:
                    parts.append(text)
                elif kind in IMAGE_BLOCKS:
                    parts.append("[image]")
        return "\n".join(parts)
    return str(content)


TEXT_BLOCKS = (None, "text", "input_text", "output_text")
IMAGE_BLOCKS = ("image", "image_url", "input_image")


CASE_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Case))
"""The fields of a Case, in order: what a dataset's `fields:` mapping may name."""
