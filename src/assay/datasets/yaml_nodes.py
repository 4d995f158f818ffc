"""What a YAML dataset's node tree tells that its values do not: how far its aliases
expand (an alias bomb is refused before its values are walked), the line of a case
written as an alias (`- *base`), and an id as the file writes it (`007`, not 7).
"""

from __future__ import annotations

from typing import Any

import yaml

from assay.yaml_core import UniqueKeyLoader, expanded_size


class CaseLoader(UniqueKeyLoader):
    """The loader of YAML datasets: `UniqueKeyLoader`, noting the line of each alias that
    stands as an item of a list (`- *base`), where composing keeps only its anchor's node."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.alias_lines: dict[tuple[int, int], int] = {}
        """(id of the list's items, index) -> the line of the alias there."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        node = super().compose_node(parent, index)
        if (isinstance(event, yaml.AliasEvent) and isinstance(parent, yaml.SequenceNode)
                and event.start_mark is not None):
            self.alias_lines[id(parent.value), index] = event.start_mark.line + 1
        return node


_NUMBER_TAGS = frozenset(f"tag:yaml.org,2002:{kind}" for kind in ("int", "float", "timestamp"))


def id_as_written(node: Any, item: Any, id_key: str) -> None:
    """Put back the text of an id YAML read as a number or a date: `id: 007` is the case
    '007', not 7, and `1.10` is not `1.1` (nor `0x1F` 31)."""
    if not isinstance(item, dict) or not isinstance(node.value, list):
        return
    for key, value in node.value:
        if (getattr(key, "value", None) == id_key and getattr(value, "tag", None)
                in _NUMBER_TAGS and isinstance(value.value, str) and id_key in item):
            item[id_key] = value.value


MAX_ALIASED_VALUES = 1_000_000
"""How many values a YAML dataset's aliases may add to those its text writes out. Each
alias stands for its anchor's whole value, so nine lines of nine aliases each ("billion
laughs") stand for a billion strings, which every case's checks and storing would walk."""


def alias_bomb(nodes: list[Any]) -> int | None:
    """The index of the case at which aliases have added more than `MAX_ALIASED_VALUES`
    values to the dataset, or None. Each node is measured once, so this stays linear in
    the file however far its aliases expand."""
    sizes: dict[int, int] = {}  # id(node) -> values it stands for, aliases expanded
    total = 0
    for index, node in enumerate(nodes):
        total += expanded_size(node, sizes)
        if total - len(sizes) > MAX_ALIASED_VALUES:
            return index
    return None
