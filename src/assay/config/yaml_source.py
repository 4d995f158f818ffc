"""Read YAML while remembering where every value came from.

Errors in a config must name the line. PyYAML's composed node tree knows
the line of every key and value; `SourceMap.line(path)` walks it.

The node tree is also checked before any value is built from it (`check_nodes`):
aliases that would expand past `MAX_NODES` values ("billion laughs": each
level repeats the one below, 9 aliases deep is a billion strings), nesting past
`MAX_DEPTH`, and integers too large to store are refused with their line. A
file that is not a regular file (a directory, a FIFO that would block) or not
text is refused before it is read.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from assay.errors import Problem, UserError
from assay.input_files import UTF16_TEXT, NotUtf8Text, require_regular_file, utf8_text
from assay.yaml_core import UniqueKeyLoader, expanded_size, yaml_problem


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
            elif (isinstance(node, yaml.SequenceNode) and isinstance(part, int)
                  and 0 <= part < len(node.value)):
                child = node.value[part]
                best = child.start_mark.line + 1
            if child is None:
                break
            node = child
        return best


_EventLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""Parses for `check_depth` in C where PyYAML has libyaml: the events are the same, and
this pass only counts nesting (a text the C parser refuses is left to the composer, whose
error names the line)."""

MAX_NODES = 100_000
"""Values a config may hold once its aliases are expanded."""
MAX_DEPTH = 100
"""How deeply a config's mappings and lists may nest."""
MAX_INT_DIGITS = 18
"""Integers up to 18 digits fit the store's 64-bit columns."""


def read_text_file(path: Path, what: str) -> str:
    """The text of a regular UTF-8 file (a BOM is allowed); a `UserError` saying why not."""
    require_regular_file(path, what)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UserError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    try:
        return utf8_text(raw)
    except NotUtf8Text as exc:
        if exc.byte is None:
            raise UserError(f"{what} {path} is {UTF16_TEXT}") from None
        raise UserError(f"{what} {path} is not UTF-8 text",
                        [Problem(str(exc), str(path), exc.line)]) from None


def load_yaml(path: Path) -> tuple[Any, SourceMap]:
    """Parse a YAML file; a syntax error is a `UserError` naming the line."""
    text = read_text_file(path, "config file")
    try:
        check_depth(text, str(path))
        loader = UniqueKeyLoader(text)
        try:  # compose once; the values are built from that same node tree
            node = loader.get_single_node()
            check_nodes(node, str(path))
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        what, line = yaml_problem(exc, text)
        raise UserError("invalid YAML", [Problem(what, str(path), line)]) from None
    except RecursionError:
        raise UserError("invalid YAML", [Problem(f"nested too deeply (more than {MAX_DEPTH} "
                                                 "levels)", str(path))]) from None
    return data, SourceMap(str(path), node)


def check_depth(text: str, file: str) -> None:
    """Refuse nesting past `MAX_DEPTH` before composing, which recurses once per level."""
    depth = 0
    try:
        for event in yaml.parse(text, Loader=_EventLoader):
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > MAX_DEPTH:
                    raise UserError("invalid YAML", [Problem(
                        f"nested too deeply (more than {MAX_DEPTH} levels)", file,
                        event.start_mark.line + 1 if event.start_mark else None)])
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
    except yaml.YAMLError:
        if _EventLoader is yaml.SafeLoader:
            raise
        # the composer parses the text again and reports the error as it always has


def check_nodes(root: Any, file: str) -> None:
    """Refuse a document that would expand past `MAX_NODES` values, nest past `MAX_DEPTH`, or
    hold an integer too large to store; each named with its line. Shared (aliased) nodes
    are measured once, so the check itself stays linear in the file."""
    def before(node: Any, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise UserError("invalid YAML", [Problem(
                f"nested too deeply (more than {MAX_DEPTH} levels)", file, _line(node))])
        if (isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:int"
                and _digits(node.value) > MAX_INT_DIGITS):
            raise UserError("invalid config", [Problem(
                f"the integer {node.value[:20]}... ({_digits(node.value)} digits) is too "
                f"large: at most {MAX_INT_DIGITS} digits", file, _line(node))])

    def after(node: Any, total: int) -> None:
        if total > MAX_NODES:
            raise UserError("invalid YAML", [Problem(
                f"this value expands to more than {MAX_NODES:,} values through aliases "
                "(an alias bomb?)", file, _line(node))])

    if root is not None:
        expanded_size(root, {}, before=before, after=after)


def _line(node: Any) -> int:
    return int(node.start_mark.line) + 1


def _digits(value: str) -> int:
    return sum(ch.isdigit() for ch in value)
