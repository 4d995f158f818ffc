"""YAML whose booleans are only `true` and `false` and whose dates are text, as in YAML 1.2.

PyYAML reads YAML 1.1, where `yes`, `no`, `on`, `off`, `y` and `n` are
booleans too: a dataset's `expected: yes` became `True` and was compared as
the text "true", so a correct answer "yes" failed. YAML 1.2 (2009) dropped
those; every config and dataset assay reads follows it. Where a boolean is
wanted, pydantic still accepts `yes`/`no` for a `bool` field.

YAML 1.1's dates (`2024-01-01`) are text too, as written: a date is no JSON
value, and a case's `expected: 2024-01-01` stopped `assay validate` with an
internal error when the case was written out. `!!binary` and `!!set`, which
make bytes and sets, are refused at their line for the same reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import yaml

BOOL_TAG = "tag:yaml.org,2002:bool"
MERGE_TAG = "tag:yaml.org,2002:merge"
TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
NOT_JSON_TAGS = {"tag:yaml.org,2002:binary": "bytes", "tag:yaml.org,2002:set": "a set"}
"""Tags whose values JSON cannot hold, so no case or config could be stored with them."""


class CoreLoader(yaml.SafeLoader):
    """PyYAML's safe loader with YAML 1.2's booleans, and dates read as text."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        """Refuse, at its line, a value its tag cannot make (`!!int abc`, `!!bool maybe`),
        which PyYAML raised as a ValueError, KeyError or IndexError: an internal error."""
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, LookupError, TypeError):
            value = node.value if isinstance(node.value, str) else ""
            shown = value if len(value) <= 40 else value[:39] + "…"
            raise yaml.constructor.ConstructorError(
                None, None, f"'{shown}' is not a {_short(node.tag)} value: remove the tag, or "
                "write a value of its type", node.start_mark) from None

    def construct_as_written(self, node: yaml.Node) -> Any:
        """A `!!timestamp` value as its text, as an untagged date reads."""
        return self.construct_scalar(node)  # type: ignore[arg-type]

    def refuse_unknown_tag(self, node: yaml.Node) -> Any:
        """Refuse a tag no safe loader knows (`!!python/object/apply:os.system`), at its line,
        in words: PyYAML's 'could not determine a constructor for the tag
        'tag:yaml.org,2002:python/object/apply:os.system'' named neither what to do nor the
        tag as written."""
        raise yaml.constructor.ConstructorError(
            None, None, f"the tag {_short(node.tag)} is not one assay reads: remove it (a "
            "value is text, a number, true or false, null, a list or a mapping)",
            node.start_mark)

    def refuse_not_json(self, node: yaml.Node) -> Any:
        """Refuse a tag whose value JSON cannot hold, at its line."""
        made = NOT_JSON_TAGS[node.tag]
        raise yaml.constructor.ConstructorError(
            None, None, f"{_short(node.tag)} makes {made}, which assay cannot store: write the "
            "value as text, a list or a mapping", node.start_mark)


def _short(tag: str) -> str:
    """A tag as it is written in YAML: `!!int`, not `tag:yaml.org,2002:int`."""
    return tag.replace("tag:yaml.org,2002:", "!!")


CoreLoader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag not in (BOOL_TAG, TIMESTAMP_TAG)]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
CoreLoader.add_implicit_resolver(
    BOOL_TAG, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
CoreLoader.add_constructor(TIMESTAMP_TAG, CoreLoader.construct_as_written)
CoreLoader.add_constructor(None, CoreLoader.refuse_unknown_tag)
for _tag in NOT_JSON_TAGS:
    CoreLoader.add_constructor(_tag, CoreLoader.refuse_not_json)


class UniqueKeyLoader(CoreLoader):
    """`CoreLoader` that refuses a key given twice in one mapping, as YAML 1.2 does: PyYAML
    keeps the last, so a case's `expected: x` then `expected: y` lost `x` unsaid."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        if not isinstance(node, yaml.MappingNode):  # `!!map x`: PyYAML refuses it at its line
            return super().construct_mapping(node, deep=deep)
        seen: dict[Any, int] = {}
        for key_node, _value in node.value:
            if key_node.tag == MERGE_TAG:  # `<<: *base` brings keys a later one may override
                continue
            key = self.construct_object(key_node, deep=deep)
            line = key_node.start_mark.line + 1
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"key '{key}' appears twice (first on line {seen[key]})",
                    key_node.start_mark)
            seen[key] = line
        return super().construct_mapping(node, deep=deep)


NodeCheck = Callable[[Any, int], None]
"""Called with a node and a number (its depth before its values are measured, the values
it stands for after); it raises to refuse the node."""


def expanded_size(node: Any, sizes: dict[int, int], depth: int = 0, *,
                  before: NodeCheck | None = None, after: NodeCheck | None = None) -> int:
    """How many values `node` stands for once its aliases are expanded: itself and all it
    holds. Each node is measured once (`sizes`, by `id(node)`), so the walk stays linear in
    the file however far its aliases expand ("billion laughs"). `before` and `after`
    see each node measured, for a reader's own refusals, each naming the node's line."""
    known = sizes.get(id(node))
    if known is not None:
        return known
    if before is not None:
        before(node, depth)
    if isinstance(node.value, list):  # a sequence (nodes) or a mapping ((key, value) pairs)
        total = 1 + sum(expanded_size(part, sizes, depth + 1, before=before, after=after)
                        for child in node.value
                        for part in (child if isinstance(child, tuple) else (child,)))
    else:
        total = 1
    if after is not None:
        after(node, total)
    sizes[id(node)] = total
    return total


def yaml_problem(exc: yaml.YAMLError, text: str) -> tuple[str, int | None]:
    """What is wrong with YAML `text`, and on which line. PyYAML names a character its
    reader refuses (a NUL, a control character) by its offset, 'in "<unicode string>",
    position 578', which no one can find; here it is named by its line."""
    if isinstance(exc, yaml.MarkedYAMLError):
        mark = exc.problem_mark or exc.context_mark
        return exc.problem or exc.context or "invalid YAML", mark.line + 1 if mark else None
    if isinstance(exc, yaml.reader.ReaderError) and isinstance(exc.character, int):
        line = text.count("\n", 0, exc.position) + 1
        if exc.character == 0:
            return ("a NUL character (U+0000), which YAML does not allow: is this a binary "
                    "file, or UTF-16 text? save it as UTF-8"), line
        return (f"the character U+{exc.character:04X}, which YAML does not allow: remove it",
                line)
    return str(exc), None
