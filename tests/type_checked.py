"""A user's script type-checked against assay's public names, as `mypy --strict` checks it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path


def mypy_errors(folder: Path, script: str, *packages: str) -> list[str]:
    """The errors `mypy --strict` finds in `script`, written to `folder`, with `packages` read
    from their own source and whatever they import in turn taken as given (`Any`)."""
    from mypy import api

    (folder / "user_script.py").write_text(script, encoding="utf-8")
    sources = []
    for package in packages:
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.origin is not None, package
        sources.append(spec.origin)
    limit = sys.getrecursionlimit()
    try:
        out, _, _ = api.run(["--strict", "--follow-imports=skip", "--no-error-summary",
                             "--cache-dir", str(folder / "cache"),
                             str(folder / "user_script.py"), *sources])
    finally:  # mypy raises the process's recursion limit for good: tests after it in this
        sys.setrecursionlimit(limit)  # worker read 5,000-deep JSON that should be refused
    return [line.split(": error: ", 1)[1] for line in out.splitlines() if ": error: " in line]
