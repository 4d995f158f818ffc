"""Registration of scorer and target kinds by name.

A config names a kind (`type: contains`); the kind is looked up here. Built-in
kinds are imported lazily, the first time they are asked for, so the CLI
starts fast. Third-party packages add kinds through the `assay.scorers` and
`assay.targets` entry-point groups, or by calling the decorators. A plugin
that fails to load is skipped and remembered in `broken`: it breaks neither
`assay schema` nor a run that does not use it, and a config that names a
kind it would have registered is told which plugin failed and why.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from assay.scorers.base import Scorer
    from assay.targets.base import Target

T = TypeVar("T")


class Registry(Generic[T]):
    """Kinds of one sort (scorers or targets), found by name."""

    def __init__(self, sort: str, builtins: dict[str, str]) -> None:
        self.sort = sort
        self._builtins = builtins  # kind name -> module that registers it
        self._kinds: dict[str, type[T]] = {}
        self._entry_points_loaded = False
        self.broken: dict[str, str] = {}
        """Plugins (entry-point name -> why) that failed to load and were skipped."""

    def register(self, name: str) -> Callable[[type[T]], type[T]]:
        """Class decorator: make `name` usable as `type: name` in a config."""

        def decorate(cls: type[T]) -> type[T]:
            self._kinds[name] = cls
            cls.kind = name  # type: ignore[attr-defined]
            return cls

        return decorate

    def get(self, name: str) -> type[T]:
        """The class registered under `name`; KeyError with a suggestion otherwise."""
        if name not in self._kinds and name in self._builtins:
            importlib.import_module(self._builtins[name])
        if name not in self._kinds:
            self._load_entry_points()
        if name not in self._kinds:
            hint = difflib.get_close_matches(name, self.names(), n=1)
            suggestion = f"; did you mean '{hint[0]}'?" if hint else ""
            known = ", ".join(self.names())
            failed = "".join(f"; plugin '{plugin}' failed to load: {why}"
                             for plugin, why in self.broken.items())
            raise KeyError(f"unknown {self.sort} type '{name}'{suggestion} (known: {known})"
                           f"{failed}")
        return self._kinds[name]

    def names(self) -> list[str]:
        return sorted(set(self._builtins) | set(self._kinds))

    def load_all(self) -> dict[str, type[T]]:
        """Import every kind (for the JSON Schema and `assay schema`)."""
        for name in self._builtins:
            self.get(name)
        self._load_entry_points()
        return dict(sorted(self._kinds.items()))

    def _load_entry_points(self) -> None:
        if self._entry_points_loaded:
            return
        self._entry_points_loaded = True
        from importlib.metadata import entry_points

        for entry in entry_points(group=f"assay.{self.sort}s"):
            try:
                entry.load()
            except Exception as exc:  # noqa: BLE001 - a third party's bug must not stop assay
                self.broken[entry.name] = (f"{entry.value}: {type(exc).__name__}: "
                                           f"{str(exc).strip()[:300]}")


scorers: Registry[Scorer] = Registry(
    "scorer",
    {
        "exact_match": "assay.scorers.text",
        "contains": "assay.scorers.text",
        "regex": "assay.scorers.text",
        "token_f1": "assay.scorers.text",
        "numeric": "assay.scorers.numeric",
        "json_valid": "assay.scorers.structured",
        "json_schema": "assay.scorers.structured",
        "tool_calls": "assay.scorers.tool_calls",
        "python": "assay.scorers.custom",
        "judge_score": "assay.scorers.judges.kinds",
        "rubric": "assay.scorers.judges.kinds",
        "traits": "assay.scorers.judges.kinds",
        "judge": "assay.scorers.judges.kinds",
        "pairwise": "assay.scorers.judges.pairwise",
        "vs_recorded": "assay.replay.judge",
    },
)

targets: Registry[Target] = Registry(
    "target",
    {
        "python": "assay.targets.python",
        "command": "assay.targets.command",
        "model": "assay.targets.model",
        "agent": "assay.targets.agent",
        "http": "assay.targets.http",
    },
)


S = TypeVar("S", bound="Scorer")
G = TypeVar("G", bound="Target")


def scorer(name: str) -> Callable[[type[S]], type[S]]:
    """Register a scorer class under `name`."""
    return scorers.register(name)  # type: ignore[return-value]  # narrows to the subclass


def target(name: str) -> Callable[[type[G]], type[G]]:
    """Register a target class under `name`."""
    return targets.register(name)  # type: ignore[return-value]  # narrows to the subclass
