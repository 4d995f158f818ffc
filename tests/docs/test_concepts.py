"""Every name docs/concepts.md gives "in the code" is there.

The glossary sends a reader from a word to the class or module that holds it
(`analysis.paired.PairedComparison`); a class renamed or moved would leave
the word pointing at nothing.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

from assay.registry import scorers

PAGE = Path(__file__).resolve().parents[2] / "docs" / "concepts.md"


def in_the_code() -> list[str]:
    """The dotted names in the last column of the glossary's tables, config keys
    (`run.epochs`, checked with the other keys the docs name) left out."""
    rows = re.findall(r"^\|[^|\n]*\|[^|\n]*\|([^|\n]*)\|\s*$", PAGE.read_text(encoding="utf-8"),
                      re.MULTILINE)
    return [name for row in rows for name in re.findall(r"`([A-Za-z_][\w.]*)`", row)
            if not name.startswith("run.")]


def found(name: str) -> Any:
    """The module, class or function `name` (relative to `assay` unless it says so)."""
    parts = (name if name.startswith("assay") else f"assay.{name}").split(".")
    for cut in range(len(parts), 0, -1):
        try:
            thing = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for part in parts[cut:]:
            thing = getattr(thing, part)
        return thing
    raise ModuleNotFoundError(name)


def test_the_glossary_names_code() -> None:
    assert len(in_the_code()) > 25


def test_every_name_the_glossary_gives_in_the_code_is_there() -> None:
    missing = []
    for name in in_the_code():
        if name in scorers.names():  # `vs_recorded`: a scorer by its registered name
            continue
        try:
            found(name)
        except (ImportError, AttributeError) as exc:
            missing.append(f"`{name}`: {exc}")
    assert not missing, "docs/concepts.md names code that is not there:\n" + "\n".join(missing)
