"""Bounding the parts of an answer besides its text: metadata, tool calls, transcript.

A target may hand back a 30 MB string in its metadata or in a tool call's
arguments; stored whole it would swell the store and every report by as much.
Each part is kept to roughly `max_output_bytes` (its size counted as JSON):
strings past the budget are cut, and entries after it are dropped. The
output's metadata records each cut part under `truncated_parts`, as the text's
cut is recorded under `truncated`.

Most answers carry a few small values: `size_over` counts and stops as soon as
the budget is passed, so a normal output costs one short walk and no copy.

A part that contains itself (a dict holding a reference to itself) has no size
and no JSON: it raises `SelfReference`, which the trial records as its error.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Any

from assay.output import Output, ToolCall
from assay.valid_text import cut_to_bytes

NESTING_LIMIT = 200
"""Deeper containers in a part that is being cut are replaced by a marker."""
DEEP = "<nested too deep>"
SCALAR_BYTES = 8
"""What a number, a boolean, None or another object counts for (roughly its JSON)."""


class SelfReference(ValueError):
    """A part of the answer contains itself: it cannot be measured, cut or stored."""


def bound_parts(output: Output, max_bytes: int) -> None:
    """Cut `output`'s metadata, tool calls and transcript to about `max_bytes` each; a
    `SelfReference` naming the part that contains itself."""
    notes: dict[str, dict[str, Any]] = {}
    part = "metadata"
    try:
        if output.metadata and size_over(output.metadata, max_bytes):
            output.metadata, notes["metadata"] = _cut_part(output.metadata, max_bytes)
        part = "tool_calls"
        if output.tool_calls and size_over(
                [(c.name, c.arguments, c.result, c.error) for c in output.tool_calls],
                max_bytes):
            output.tool_calls, notes["tool_calls"] = _cut_calls(output.tool_calls, max_bytes)
        part = "transcript"
        if output.transcript and size_over(output.transcript, max_bytes):
            output.transcript, notes["transcript"] = _cut_part(output.transcript, max_bytes)
    except SelfReference:
        raise SelfReference(f"the target's {part} refers to itself (a dict or list that "
                            "contains itself), which JSON cannot hold") from None
    if notes:
        output.metadata["truncated_parts"] = notes


def size_over(value: Any, limit: int) -> bool:
    """Whether `value` is larger than `limit` bytes as JSON (roughly); stops once it is."""
    return _size(value, limit) > limit


def _cut_part(value: Any, limit: int) -> tuple[Any, dict[str, Any]]:
    budget = _Budget(limit)
    kept = budget.cut(value, 0)
    return kept, _note(budget, limit)


def _cut_calls(calls: list[ToolCall], limit: int) -> tuple[list[ToolCall], dict[str, Any]]:
    budget = _Budget(limit)
    kept: list[ToolCall] = []
    for call in calls:
        if budget.room <= 0:
            budget.total += _full_size((call.name, call.arguments, call.result, call.error))
            continue
        budget.spend(_text_size(call.name) + 2)
        arguments = budget.cut(call.arguments, 0)
        result = budget.cut(call.result, 0)
        error = budget.cut(call.error, 0)
        kept.append(replace(call, arguments=arguments, result=result, error=error))
    note = _note(budget, limit)
    if len(kept) < len(calls):
        note["calls"], note["kept_calls"] = len(calls), len(kept)
    return kept, note


def _note(budget: _Budget, limit: int) -> dict[str, Any]:
    return {"bytes": budget.total, "kept_bytes": min(budget.used, limit),
            "limit": "run.max_output_bytes"}


class _Budget:
    """A copy of a value within `limit` bytes; `total` counts the original, `used` the copy."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0
        self.total = 0

    @property
    def room(self) -> int:
        return self.limit - self.used

    def spend(self, size: int) -> None:
        self.used += size
        self.total += size

    def cut(self, value: Any, depth: int) -> Any:
        if isinstance(value, str):
            size = _text_size(value)
            self.total += size + 2
            if size + 2 <= self.room:
                self.used += size + 2
                return value
            kept, _ = cut_to_bytes(value, max(self.room - 2, 0))
            self.used = self.limit
            return kept
        if isinstance(value, dict | list | tuple | set | frozenset):
            if depth >= NESTING_LIMIT:
                self.total += _full_size(value)
                self.used += len(DEEP) + 2
                return DEEP
            return self._cut_container(value, depth)
        size = _scalar_size(value)
        self.spend(size)
        return value

    def _cut_container(self, value: Any, depth: int) -> Any:
        self.spend(2)
        if isinstance(value, dict):
            kept: dict[Any, Any] = {}
            for key, item in value.items():
                if self.room <= 0:
                    self.total += _full_size(key) + _full_size(item)
                    continue
                kept[key] = self.cut(item, depth + 1)
                self.spend(_full_size(key) if not isinstance(key, str) else _text_size(key) + 3)
            return kept
        items: list[Any] = []
        for item in value:
            if self.room <= 0:
                self.total += _full_size(item)
                continue
            items.append(self.cut(item, depth + 1))
            self.spend(1)
        return items


def _full_size(value: Any) -> int:
    """The whole size (of what is dropped, so the note is true)."""
    return _size(value, sys.maxsize)


_LEFT = object()
"""On `_size`'s stack: the container under it has been walked."""


def _size(value: Any, stop: int) -> int:
    """Roughly the bytes of `value` as JSON, counted until they pass `stop`; a
    `SelfReference` when a container is met again inside itself (a value shared by two
    branches is fine, as in JSON)."""
    total = 0
    stack = [value]
    inside: set[int] = set()
    while stack and total <= stop:
        item = stack.pop()
        if item is _LEFT:
            inside.discard(stack.pop())
        elif isinstance(item, str):
            total += _text_size(item) + 2
        elif isinstance(item, dict | list | tuple | set | frozenset):
            if id(item) in inside:
                raise SelfReference
            inside.add(id(item))
            stack += (id(item), _LEFT)
            total += 2 + len(item)
            if isinstance(item, dict):
                stack.extend(item.keys())
                stack.extend(item.values())
            else:
                stack.extend(item)
        else:
            total += _scalar_size(item)
    return total


def _text_size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", errors="surrogatepass"))


def _scalar_size(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return max(value.bit_length() // 3, SCALAR_BYTES)
    return SCALAR_BYTES
