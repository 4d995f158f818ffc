"""Read YAML while remembering where every value came from.

Errors in a config must name the line. PyYAML's composed node tree knows
the line of every key and value; `SourceMap.line(path)` walks it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from assay.errors import Problem, UserError


@dataclass
class SourceMap:
    """Line numbers (1-based) of the values in one YAML document."""

    file: str
    root: Any  # yaml.Node | None

    def written(self, path: tuple[Any, ...]) -> str | None:
        """The text of the value at `path` as written in the file (before `${VAR}`), if any."""
        node = self._node(path)
        if node is None:
            return None
        if isinstance(node, yaml.ScalarNode):
            return str(node.value)
        start, end = node.start_mark, node.end_mark
        buffer = getattr(start, "buffer", None)
        return buffer[start.index:end.index] if buffer else None

    def _node(self, path: tuple[Any, ...]) -> Any:
        node = self.root
        for part in path:
            if isinstance(node, yaml.MappingNode):
                node = next((v for k, v in node.value if getattr(k, "value", None) == str(part)),
                            None)
            elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and (
                    0 <= part < len(node.value)):
                node = node.value[part]
            else:
                return None
            if node is None:
                return None
        return node

    def line(self, path: tuple[Any, ...]) -> int | None:
        """The line of the value at `path`, or of its nearest ancestor we can find."""
        node = self.root
        best = node.start_mark.line + 1 if node is not None else None
        for part in path:
            child = None
            if isinstance(node, yaml.MappingNode):
                for key, value in node.value:
                    if getattr(key, "value", None) == str(part):
                        child = value
                        best = key.start_mark.line + 1
                        break
            elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
                if 0 <= part < len(node.value):
                    child = node.value[part]
                    best = child.start_mark.line + 1
            if child is None:
                break
            node = child
        return best


class _UniqueKeyLoader(yaml.SafeLoader):
    """A SafeLoader that refuses a key given twice in one mapping (YAML would keep the last)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _value in node.value:
            key = self.construct_object(key_node, deep=deep)
            line = key_node.start_mark.line + 1
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key '{key}' appears twice (first on line {seen[key]})",
                    key_node.start_mark)
            seen[key] = line
        return super().construct_mapping(node, deep=deep)


def load_yaml(path: Path) -> tuple[Any, SourceMap]:
    """Parse a YAML file; a syntax error is a `UserError` naming the line."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"config file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read config file {path}: {exc}") from None
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        what = exc.problem or exc.context or "invalid YAML"
        raise UserError("invalid YAML", [Problem(what, str(path), line)]) from None
    except yaml.YAMLError as exc:
        raise UserError("invalid YAML", [Problem(str(exc), str(path))]) from None
    return data, SourceMap(str(path), node)
