"""docs/config.md, written from the config's own models: every key of every section, its
default and the field doc under it, so the page cannot say other than the code does.

    uv run python -m tests.docs.config_reference > docs/config.md

writes it again; `test_written_pages.py` fails when the page and the models differ.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from assay.config.schema import config_schema
from tests.docs.markdown_text import cell, one_line

HEAD = """\
# Config reference

Every key an assay config takes, section by section, with its default and what
it does: the same text `assay schema` gives an editor for completion and hover
docs. A key not listed here is refused, with a did-you-mean. The
[README](../README.md) shows the keys at work, in the order a config is
written.
"""

Schema = dict[str, Any]


def refs(node: Schema) -> Iterator[str]:
    """The names of the definitions `node` takes as a value, as a list's items or as the
    values of a mapping of names (`conditions.NAME`), in the order it gives them."""
    if "$ref" in node:
        yield node["$ref"].rsplit("/", 1)[1]
    for union in ("anyOf", "oneOf", "allOf"):
        for member in node.get(union, []):
            yield from refs(member)
    for inner in ("items", "additionalProperties"):
        if isinstance(node.get(inner), dict):
            yield from refs(node[inner])


def heading(key: str, node: Schema, definition: Schema) -> str:
    """What a definition reached under `key` is called: `conditions.NAME`,
    `scorers, type: contains`."""
    if isinstance(node.get("additionalProperties"), dict):
        key += ".NAME"
    kind = definition.get("properties", {}).get("type", {}).get("const")
    return f"{key}, `type: {kind}`" if kind else key


def default(name: str, field: Schema, required: list[str]) -> str:
    if name in required:
        return "required"
    if "default" not in field:
        return ""
    return f"`{cell(json.dumps(field['default'], ensure_ascii=False))}`"


def table(section: Schema) -> list[str]:
    required = section.get("required", [])
    rows = ["| key | default | what it does |", "| --- | --- | --- |"]
    rows += [f"| `{name}` | {default(name, field, required)} | {cell(field.get('description', ''))} |"
             for name, field in section.get("properties", {}).items()]
    return rows


def sections(schema: Schema, section: Schema, seen: set[str],
             level: int = 2) -> Iterator[str]:
    """The Markdown of each section `section` holds, each definition once, a section's own
    sections (a judge's `output:`, a gate's `regression:`) under it, a level deeper."""
    for key, field in section.get("properties", {}).items():
        for ref in refs(field):
            if ref in seen:
                continue
            seen.add(ref)
            definition = schema["$defs"][ref]
            yield f"{'#' * level} {heading(key, field, definition)}\n"
            if definition.get("description"):
                yield one_line(definition["description"]) + "\n"
            yield "\n".join(table(definition)) + "\n"
            yield from sections(schema, definition, seen, level + 1)


def reference() -> str:
    schema = config_schema()
    top = ["## The top level\n", "\n".join(table(schema)) + "\n"]
    return "\n".join([HEAD, *top, *sections(schema, schema, set())])


if __name__ == "__main__":
    print(reference(), end="")
