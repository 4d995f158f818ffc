"""Options and helpers shared by the subcommands."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


class OutputFile(click.Path):
    """A file to write. A name ending in `/` names a folder, but pathlib drops the slash,
    so `--junit out/` wrote a file named `out`: such a name is refused (exit 2)."""

    def __init__(self, example: str, path_type: type[Any] | None = None) -> None:
        super().__init__(dir_okay=False, path_type=path_type)
        self.example = example
        """A file name for the hint, e.g. `junit.xml`."""

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        if isinstance(value, str) and value.endswith(("/", os.sep)):
            self.fail(f"{value} ends in '/', so it names a folder, not a file to write; "
                      f"name the file, e.g. {value}{self.example}", param, ctx)
        return super().convert(value, param, ctx)


def store_option(function: F) -> F:
    return click.option(
        "--store", "store_url", envvar="ASSAY_STORE", default=None, metavar="URL",
        help="Store URL or SQLite path (default .assay/assay.db; env ASSAY_STORE).",
    )(function)


def check_output_file(output: str | Path | None, option: str = "--output") -> None:
    """Refuse an `-o FILE` (or the file of another `option`) whose folder cannot be made (a
    file in the way, no permission) before any work, exit 2 as for `assay run -o`: not exit 3
    after the work (or a judge) is done."""
    if output is not None:
        from assay.reports.atomic import ensure_writable_folder

        ensure_writable_folder(Path(output).parent, option)


def check_output_folder(folder: Path) -> None:
    """Refuse an `-o FOLDER` that files cannot go into (a file in the way, no permission)
    before any work, exit 2: a folder that is there must be writable; one that is not yet
    is made only when written to, so its parent is checked."""
    from assay.reports.atomic import ensure_writable_folder

    ensure_writable_folder(folder if folder.is_dir() else folder.parent, "--output")


def open_store(url: str | None, *, existing: bool = False) -> Any:
    """The store at `url`. `existing`: for commands that only read runs, a SQLite file that is
    not there is an error (exit 2), not a new empty store saying "no runs stored yet", and
    one this process cannot write is opened read-only."""
    from assay.store import Store
    from assay.store.store import missing_file, unwritable_file

    if existing and (missing := missing_file(url)) is not None:
        from assay.errors import UserError

        raise UserError(f"no store at {missing}: run an eval first, or name the store "
                        "with --store (or ASSAY_STORE)")
    # a store on a read-only mount is read as such; a command that writes to it is told so
    return Store(url, read_only=existing and unwritable_file(url))


def console(stderr: bool = False) -> Any:
    """A console that wraps on a terminal and never wraps or cuts in a log or a pipe."""
    from assay.reports.console import make_console

    return make_console(stderr=stderr)
