"""`${VAR}` and `${VAR:-default}` from the environment, every missing name reported at once.

A value taken from the environment becomes a known secret (see
`assay.redaction`) when it is used as a credential: the variable's name says
so (`SEARCH_API_KEY`, `GITHUB_TOKEN`), or it lands under a secret-looking key
(`api_key`, `Authorization`) or in a `headers:` or `env:` mapping, which is
how secrets reach services and servers. Such a value is masked wherever assay
prints or stores text. A default (`${VAR:-text}`) is written in the file and
is not a secret. `$${` is a literal `${`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from assay.errors import Problem
from assay.redaction import is_secret_name, register

_PATTERN = re.compile(r"\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$\{")
"""`$${` (a literal `${`), a reference `${NAME}` / `${NAME:-default}`, or a `${` that starts
none: the last is an error, never text taken as it is."""
MALFORMED = ""
"""The name recorded for a `${` that is not a reference."""


def interpolate(value: Any, env: Mapping[str, str] | None = None, *,
                path: tuple[Any, ...] = ()) -> tuple[Any, list[tuple[tuple[Any, ...], str]]]:
    """Replace `${VAR}` in every string; return the new value and the (path, name) missing."""
    environ = os.environ if env is None else env
    missing: list[tuple[tuple[Any, ...], str]] = []

    def walk(item: Any, where: tuple[Any, ...]) -> Any:
        if isinstance(item, str):
            def replace(match: re.Match[str]) -> str:
                name, default = match.group(1), match.group(2)
                if match.group(0) == "$${":
                    return "${"
                if name is None:
                    missing.append((where, MALFORMED))
                    return match.group(0)
                if name in environ:
                    if is_credential(name, where):
                        register(environ[name])
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
        Problem(f"environment variable ${{{name}}} is not set" if name != MALFORMED else
                "`${` starts no `${NAME}` reference (a name of letters, digits and _, then "
                "`}`); write `$${` for a literal `${`", file, line_of(where),
                ".".join(str(p) for p in where))
        for where, name in missing
    ]


CREDENTIAL_MAPPINGS = frozenset({"headers", "env"})
"""Mappings whose every value is a credential as far as masking goes."""


def is_credential(variable: str, where: tuple[Any, ...]) -> bool:
    """True when `${variable}` at config path `where` carries a secret (see the module doc)."""
    if is_secret_name(variable):
        return True
    keys = [part for part in where if isinstance(part, str)]
    if keys and is_secret_name(keys[-1]):
        return True
    return len(keys) >= 2 and keys[-2] in CREDENTIAL_MAPPINGS
