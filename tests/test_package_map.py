"""The package map holds: each package imports only the layers its docstring names, one way.

An import inside `if TYPE_CHECKING:` names a type for an annotation and loads nothing, so it
is not a dependency here; every other import counts, at the top of a module or inside a
function (the CLI and the providers import lazily, and a lazy import is still a layer
reached into).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "assay"
ROOT = "(root)"
"""The core nouns at the top of the package (Case, Output, Score, Trial, errors, registry)."""

MAY_IMPORT: dict[str, set[str]] = {
    "config": set(),
    "datasets": set(),
    "store": set(),
    "user_code": set(),
    "knowledge_packs": set(),
    "analysis": {"knowledge_packs"},
    "providers": {"config"},
    "context": {"config", "providers"},
    "scorers": {"config", "providers", "user_code"},
    "targets": {"config", "context", "providers", "user_code"},
    "replay": {"scorers"},
    "calibration": {"analysis", "config", "datasets", "scorers", "store"},
    "judging": {"analysis", "config", "datasets", "providers", "scorers", "store"},
    "runner": {"calibration", "config", "context", "datasets", "judging", "providers",
               "scorers", "store", "targets", "user_code"},
    "reports": {"analysis", "knowledge_packs"},
    "review": {"analysis", "config", "knowledge_packs", "reports", "store"},
    "rejudge": {"config", "datasets", "judging", "providers", "review", "runner", "scorers",
                "store"},
    "traces": {"providers", "reports", "scorers", "store"},
    "view": {"analysis", "reports", "review", "store"},
    "export": {"analysis", "config", "reports", "review", "store"},
    "api": {"config", "datasets", "reports", "review", "runner", "store", "user_code"},
    "pytest_plugin": {"analysis", "api", "config", "reports", "review", "runner", "store",
                      "user_code"},
    "testing": {"config", "store", "view"},
    "cli": {"analysis", "api", "calibration", "config", "context", "export", "judging",
            "knowledge_packs", "providers", "rejudge", "reports", "review", "runner", "store",
            "traces", "view"},
    ROOT: set(),  # the public names load lazily, through `__getattr__`
}
"""Every package may import the root nouns too."""


def package_of(module: str) -> str | None:
    """`assay.runner.session` -> "runner"; a root module -> ROOT; not assay -> None."""
    parts = module.split(".")
    if parts[0] != "assay":
        return None
    return parts[1] if len(parts) > 1 and (SRC / parts[1]).is_dir() else ROOT


class _RunTimeImports(ast.NodeVisitor):
    """The modules a file imports when it runs, lazily or not; not those for type checking."""

    def __init__(self) -> None:
        self.modules: list[str] = []

    def visit_If(self, node: ast.If) -> None:
        test = node.test
        if getattr(test, "id", None) == "TYPE_CHECKING" or getattr(test, "attr", None) == (
                "TYPE_CHECKING"):
            for statement in node.orelse:
                self.visit(statement)
            return
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.module and node.level == 0:
            self.modules.append(node.module)

    def visit_Import(self, node: ast.Import) -> None:
        self.modules.extend(alias.name for alias in node.names)


@cache
def imports() -> list[tuple[str, str, str]]:
    """(importing package, imported package, where) for every import across packages;
    `python -m assay` (`__main__`) is the command line's door, not a root noun."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        parts = path.relative_to(SRC).parts
        if parts == ("__main__.py",):
            continue
        package = parts[0] if len(parts) > 1 else ROOT
        visitor = _RunTimeImports()
        visitor.visit(ast.parse(path.read_text(encoding="utf-8")))
        for module in visitor.modules:
            imported = package_of(module)
            if imported is not None and imported != package:
                found.append((package, imported, f"{'/'.join(parts)} imports {module}"))
    return found


def test_every_package_is_on_the_map() -> None:
    packages = {path.parent.name for path in SRC.glob("*/__init__.py")}
    assert packages == set(MAY_IMPORT) - {ROOT}


@pytest.mark.parametrize("package", sorted(MAY_IMPORT))
def test_a_package_imports_only_the_layers_it_may(package: str) -> None:
    allowed = MAY_IMPORT[package] | {ROOT}
    assert [where for importer, imported, where in imports()
            if importer == package and imported not in allowed] == []


def test_the_map_runs_one_way() -> None:
    """No two packages import each other, however far round: the data flows one way."""
    visiting: list[str] = []
    done: set[str] = set()

    def walk(package: str) -> None:
        assert package not in visiting, " -> ".join([*visiting, package])
        if package in done:
            return
        visiting.append(package)
        for imported in sorted(MAY_IMPORT[package]):
            walk(imported)
        visiting.pop()
        done.add(package)

    for package in sorted(MAY_IMPORT):
        walk(package)


def test_each_package_docstring_says_what_it_may_import() -> None:
    """The map lives in the code: every package's `__init__` says what it owns."""
    silent = [path.parent.name for path in SRC.glob("*/__init__.py")
              if not ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))]
    assert silent == []
