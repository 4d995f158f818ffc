"""Suites on the command line: several configs, globs, or a suite file listing them.

A suite file is a YAML document with a top-level `suite:` list of config
paths or globs, relative to the suite file:

    suite:
      - packs/*/assay.yaml
      - extra/security.yaml
"""

from __future__ import annotations

import glob
from collections.abc import Sequence
from pathlib import Path

from assay.errors import UserError
from assay.input_files import is_regular_file, require_regular_file


def is_suite_file(path: Path) -> bool:
    """True when the YAML file at `path` has a top-level `suite:` key."""
    from assay.config.yaml_source import load_yaml

    try:
        data, _source = load_yaml(path)
    except UserError:
        return False  # not ours to report: loading it as a config says what is wrong
    return isinstance(data, dict) and "suite" in data


def expand_configs(arguments: Sequence[str]) -> tuple[list[Path], bool]:
    """The config files named by paths, globs and suite files; and whether it is a suite."""
    configs: list[Path] = []
    from_suite = False
    for argument in arguments:
        for path in _glob(argument, Path.cwd(), "command line"):
            if is_suite_file(path):
                from_suite = True
                configs += _suite_entries(path, seen={path.resolve()})
            else:
                configs.append(path)
    unique = list(dict.fromkeys(configs))
    return unique, from_suite or len(unique) > 1


def _suite_entries(suite: Path, seen: set[Path]) -> list[Path]:
    from assay.config.yaml_source import load_yaml

    data, _source = load_yaml(suite)
    entries = data.get("suite")
    extra = sorted(set(data) - {"suite", "name", "description"})
    if extra:
        raise UserError(f"{suite}: unknown key '{extra[0]}' in a suite file "
                        "(expected suite, name, description)")
    if not isinstance(entries, list) or not entries or not all(
            isinstance(e, str) for e in entries):
        raise UserError(f"{suite}: `suite:` must be a non-empty list of config paths or globs")
    out: list[Path] = []
    for entry in entries:
        for path in _glob(entry, suite.parent, str(suite)):
            if path.resolve() in seen:
                raise UserError(f"{suite}: suite '{path}' includes itself")
            if is_suite_file(path):
                out += _suite_entries(path, seen | {path.resolve()})
            else:
                out.append(path)
    return out


def _glob(pattern: str, base: Path, where: str) -> list[Path]:
    full = pattern if Path(pattern).is_absolute() else str(base / pattern)
    if glob.has_magic(pattern):
        matches = sorted(Path(p) for p in glob.glob(full, recursive=True)
                         if is_regular_file(Path(p)))
        if not matches:
            raise UserError(f"{where}: no config file matches '{pattern}'")
        return [_relative(p) for p in matches]
    path = Path(full)
    require_regular_file(path, f"{where}: config file")
    return [_relative(path)]


def _relative(path: Path) -> Path:
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return path
