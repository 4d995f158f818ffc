"""What changed between the config a run started with and the config given now.

A resume of a run whose config changed is refused; a bare "the config changed" leaves the
user to diff two files by hand. Each change is named here by its field and its line in the
file given now, so they know which key to put back. The settings that only pace a run
(`PACE_SETTINGS`) are left out: a resume may change them.
"""

from __future__ import annotations

import json
from typing import Any

from assay.config.loading import without_pace
from assay.config.yaml_source import SourceMap
from assay.errors import Problem

_MISSING = object()


def config_changes(started: Any, now: Any, source: SourceMap | None,
                   limit: int = 5) -> list[Problem]:
    """One problem per field whose value differs between `started` (the stored config) and
    `now` (as the store would keep it), at most `limit`; empty when they are the same.
    `source` locates each in the file (None: a config built in code, named by field only)."""
    if not isinstance(started, dict) or not isinstance(now, dict):
        return []  # a run stored without its config: nothing to hold the file against
    found: list[tuple[tuple[Any, ...], Any, Any]] = []
    _differences(without_pace(started), without_pace(now), (), found)
    return [Problem(f"{_shown(before)} when the run started, {_shown(after)} now",
                    source.file if source else None, source.line(path) if source else None,
                    ".".join(map(str, path)) or None)
            for path, before, after in found[:limit]]


def _differences(before: Any, after: Any, path: tuple[Any, ...],
                 found: list[tuple[tuple[Any, ...], Any, Any]]) -> None:
    if before is _MISSING and isinstance(after, dict) and after:  # `run:` added: its keys
        before = {}
    elif after is _MISSING and isinstance(before, dict) and before:
        after = {}
    if isinstance(before, dict) and isinstance(after, dict):
        for key in [*before, *(k for k in after if k not in before)]:
            _differences(before.get(key, _MISSING), after.get(key, _MISSING), (*path, key),
                         found)
    elif (isinstance(before, list) and isinstance(after, list)
          and len(before) == len(after)):
        for index, (old, new) in enumerate(zip(before, after, strict=True)):
            _differences(old, new, (*path, index), found)
    elif before != after:
        found.append((path, before, after))


def _shown(value: Any) -> str:
    """A value as a short line: `7`, `"Answer briefly."`, `not set`."""
    if value is _MISSING:
        return "not set"
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else text[:57] + "..."
