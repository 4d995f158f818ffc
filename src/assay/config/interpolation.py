"""`${VAR}` and `${VAR:-default}` from the environment, every missing name reported at once."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from assay.errors import Problem

_PATTERN = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def interpolate(value: Any, env: Mapping[str, str] | None = None, *,
                path: tuple[Any, ...] = ()) -> tuple[Any, list[tuple[tuple[Any, ...], str]]]:
    """Replace `${VAR}` in every string; return the new value and the (path, name) missing."""
    environ = os.environ if env is None else env
    missing: list[tuple[tuple[Any, ...], str]] = []

    def walk(item: Any, where: tuple[Any, ...]) -> Any:
        if isinstance(item, str):
            def replace(match: re.Match[str]) -> str:
                name, default = match.group(1), match.group(2)
                if name in environ:
                    return environ[name]
                if default is not None:
                    return default
                missing.append((where, name))
                return match.group(0)

            return _PATTERN.sub(replace, item)
        if isinstance(item, dict):
            return {key: walk(sub, (*where, key)) for key, sub in item.items()}
        if isinstance(item, list):
            return [walk(sub, (*where, index)) for index, sub in enumerate(item)]
        return item

    return walk(value, path), missing


def missing_problems(missing: list[tuple[tuple[Any, ...], str]], file: str,
                     line_of: Any) -> list[Problem]:
    return [
        Problem(f"environment variable ${{{name}}} is not set", file, line_of(where),
                ".".join(str(p) for p in where))
        for where, name in missing
    ]


_SECRET_KEY = re.compile(r"(api[_-]?key|token|secret|password|authorization|auth)", re.I)


def redact(value: Any) -> Any:
    """A copy safe to store: values under secret-looking keys are replaced.

    The stored config is the one *before* interpolation, so `${VAR}`
    references stay references; this catches literal secrets typed in.
    """
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, sub in value.items():
            if (isinstance(key, str) and _SECRET_KEY.search(key) and isinstance(sub, str)
                    and not key.endswith("_env") and not _PATTERN.fullmatch(sub.strip())):
                out[key] = "***"
            else:
                out[key] = redact(sub)
        return out
    if isinstance(value, list):
        return [redact(sub) for sub in value]
    return value
