"""YAML whose booleans are only `true` and `false`, as in YAML 1.2.

PyYAML reads YAML 1.1, where `yes`, `no`, `on`, `off`, `y` and `n` are
booleans too: a dataset's `expected: yes` became `True` and was compared as
the text "true", so a correct answer "yes" failed. YAML 1.2 (2009) dropped
those; every config and dataset assay reads follows it. Where a boolean is
wanted, pydantic still accepts `yes`/`no` for a `bool` field.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

BOOL_TAG = "tag:yaml.org,2002:bool"
MERGE_TAG = "tag:yaml.org,2002:merge"


class CoreLoader(yaml.SafeLoader):
    """PyYAML's safe loader with YAML 1.2's booleans."""


CoreLoader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag != BOOL_TAG]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
CoreLoader.add_implicit_resolver(
    BOOL_TAG, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))


class UniqueKeyLoader(CoreLoader):
    """`CoreLoader` that refuses a key given twice in one mapping, as YAML 1.2 does: PyYAML
    keeps the last, so a case's `expected: x` then `expected: y` lost `x` unsaid."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
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
