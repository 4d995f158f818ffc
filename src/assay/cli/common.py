"""Options and helpers shared by the subcommands."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


def store_option(function: F) -> F:
    return click.option(
        "--store", "store_url", envvar="ASSAY_STORE", default=None, metavar="URL",
        help="Store URL or SQLite path (default .assay/assay.db; env ASSAY_STORE).",
    )(function)


def open_store(url: str | None) -> Any:
    from assay.store import Store

    return Store(url)


def console(stderr: bool = False) -> Any:
    """A console that wraps on a terminal and never wraps or cuts in a log or a pipe."""
    from assay.reports.console import make_console

    return make_console(stderr=stderr)
