"""What a YAML dataset's node tree tells that its values do not: how far its aliases
expand (an alias bomb is refused before its values are walked), the line of a case
written as an alias (`- *base`), and an id as the file writes it (`007`, not 7).

The tree is built from libyaml's events when PyYAML has it: PyYAML's own scanner
and parser, in Python, took two minutes over 200,000 cases. Its composer, in
Python too, builds the tree either way (libyaml's, in C, recurses without a
bound and crashes the process on a file nested some 40,000 deep).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.resolver import Resolver

from assay.collector import collector_paused
from assay.datasets.written_ids import id_place
from assay.yaml_core import UniqueKeyLoader, expanded_size


class CaseLoader(UniqueKeyLoader):
    """The loader of YAML datasets: `UniqueKeyLoader`, noting the line of each alias that
    stands as an item of a list (`- *base`), where composing keeps only its anchor's node."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.alias_lines: AliasLines = {}
        self.aliased = False
        """Whether the text holds an alias anywhere."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        node = super().compose_node(parent, index)
        if isinstance(event, yaml.AliasEvent):
            self.aliased = True
            if isinstance(parent, yaml.SequenceNode) and event.start_mark is not None:
                self.alias_lines[id(parent.value), index] = event.start_mark.line + 1
        return node


AliasLines = dict[tuple[int, int], int]
"""(id of a list's items, index) -> the line of the alias there (`CaseLoader.alias_lines`)."""


@dataclass
class Document:
    """A YAML text read: its node tree and value, and what composing it noted."""

    root: Any
    data: Any
    alias_lines: AliasLines
    """(id of a list's items, index) -> the line of the alias there."""
    aliased: bool
    """Whether the text holds an alias anywhere (else no value is shared, none expands)."""


@dataclass
class Cases:
    """A YAML dataset's cases, read, with what only its node tree told."""

    items: list[Any] | None
    """The cases, or None when the file is not a list of them (nor has `cases:`)."""
    lines: list[int]
    """Each case's line (a case written `- *name` is on that line, not its anchor's)."""
    bomb: int | None
    """The index of the case at which its aliases expand too far (`alias_bomb`), or None."""


def read_cases(text: str, id_key: str) -> Cases:
    """The cases of a YAML list (or of its `cases:`), their `id_key` read as written.

    Python's cycle collector is off meanwhile: the millions of nodes and values of a big
    dataset, none of them garbage, made it walk them all again and again (more time than
    the reading). The node tree is let go before the cases are handed on."""
    with collector_paused():
        document = read_document(text)
        root, data = document.root, document.data
        nodes = root.value if isinstance(root, yaml.SequenceNode) else None
        if (isinstance(data, dict) and isinstance(data.get("cases"), list)
                and isinstance(root, yaml.MappingNode)):
            for key, value in root.value:
                if getattr(key, "value", None) == "cases":
                    nodes = value.value
            data = data["cases"]
        if not isinstance(data, list) or nodes is None:
            return Cases(None, [], None)
        lines = [document.alias_lines.get((id(nodes), index), node.start_mark.line + 1)
                 for index, node in enumerate(nodes)]
        bomb = alias_bomb(nodes) if document.aliased else None
        if bomb is None:
            for node, item in zip(nodes, data, strict=True):
                id_as_written(node, item, id_key)
        return Cases(data, lines, bomb)


def read_document(text: str) -> Document:
    """The YAML text's node tree and value. Text that libyaml's events cannot build (text
    it refuses, or nested deeper than Python follows) is read again by PyYAML's own
    parser, so that its error reads as it always did, with its line."""
    if _LibyamlCaseLoader is not None:
        with contextlib.suppress(Exception):
            return _read(_LibyamlCaseLoader(text))
    return _read(CaseLoader(text))


def _read(loader: CaseLoader) -> Document:
    """Compose once; the values are built from that same node tree."""
    try:
        try:
            root = loader.get_single_node()
        except RecursionError:  # said with no line, where the scanner knows the line it is on
            raise yaml.composer.ComposerError(
                None, None, "nested too deeply", _reading_at(loader)) from None
        data = loader.construct_document(root) if root is not None else None
    finally:
        loader.dispose()
    return Document(root, data, loader.alias_lines, loader.aliased)


def _reading_at(loader: CaseLoader) -> Any:
    """Where composing stopped: the first token scanned and not yet composed (PyYAML's
    scanner), or where its reader is."""
    tokens = getattr(loader, "tokens", None)
    return tokens[0].start_mark if tokens else loader.get_mark()


def _libyaml_loader() -> type[CaseLoader] | None:
    """`CaseLoader` reading libyaml's events, or None when PyYAML was built without it."""
    try:
        from yaml._yaml import CParser
    except ImportError:
        return None

    class LibyamlCaseLoader(CParser, CaseLoader):
        """libyaml's scanner and parser (`CParser`) under `CaseLoader`'s composer and
        constructor: CParser's own composer is replaced by PyYAML's."""

        check_node = Composer.check_node
        get_node = Composer.get_node
        get_single_node = Composer.get_single_node

        def __init__(self, text: str) -> None:
            CParser.__init__(self, text)
            Composer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)
            self.alias_lines: AliasLines = {}
            self.aliased = False

    return LibyamlCaseLoader


_LibyamlCaseLoader = _libyaml_loader()


_NUMBER_TAGS = frozenset(f"tag:yaml.org,2002:{kind}" for kind in ("int", "float", "timestamp"))


def id_as_written(node: Any, item: Any, id_key: str) -> None:
    """Put back the text of an id YAML read as a number or a date: `id: 007` is the case
    '007', not 7, and `1.10` is not `1.1` (nor `0x1F` 31); at its key, or at the path
    `fields:` maps it to (`item.key`)."""
    place = id_place(item, id_key)
    if place is None:
        return
    for part in place.steps:
        node = _child_node(node, part)
        if node is None:
            return
    if node.tag in _NUMBER_TAGS and isinstance(node.value, str):
        place.container[place.key] = node.value


def _child_node(node: Any, part: str) -> Any:
    """The node at `part` of a mapping's or a sequence's node, or None."""
    if isinstance(node, yaml.MappingNode):
        return next((value for key, value in node.value
                     if getattr(key, "value", None) == part), None)
    if isinstance(node, yaml.SequenceNode) and part.isdigit() and int(part) < len(node.value):
        return node.value[int(part)]
    return None


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
