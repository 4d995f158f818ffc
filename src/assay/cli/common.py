"""Options and helpers shared by the subcommands."""

from __future__ import annotations

import math
import os
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from assay.runner.progress import ReviewProgress

F = TypeVar("F", bound=Callable[..., Any])


class GivenText(click.types.StringParamType):
    """Text that is not empty. `--judge-model "$MODEL"` with MODEL unset gives '', which the
    commands read as no option at all (no judge, the default store, a new run in place of
    --resume, every experiment's runs): an empty value is refused (exit 2)."""

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> str:
        text = super().convert(value, param, ctx)
        if text == "":
            self.fail("the value is empty (an unset shell variable?): give one, or leave it "
                      "out", param, ctx)
        return text


GIVEN_TEXT = GivenText()


class GivenPath(click.Path):
    """A path that is not empty. `-o "$OUT"` with OUT unset gives '', which pathlib reads as
    '.': the files went to the working folder, or the option counted as not given. An empty
    name is refused (exit 2)."""

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        if value == "":
            kind = "folder" if not self.file_okay else "file" if not self.dir_okay else "path"
            self.fail(f"the {kind} name is empty (an unset shell variable?): name a {kind}",
                      param, ctx)
        return super().convert(value, param, ctx)


class OutputFile(GivenPath):
    """A file to write. A name ending in `/` names a folder, but pathlib drops the slash,
    so `--junit out/` wrote a file named `out`: such a name is refused (exit 2). `-` is
    standard output where the command prints there without the option (`stdout`), and
    refused elsewhere, not written as a file named `-`."""

    def __init__(self, example: str, path_type: type[Any] | None = None,
                 stdout: bool = False) -> None:
        super().__init__(dir_okay=False, path_type=path_type)
        self.example = example
        """A file name for the hint, e.g. `junit.xml`."""
        self.stdout = stdout
        """`-` means standard output: the option's value is then None, as when not given."""

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        if value == "-":
            if self.stdout:
                return None
            self.fail(f"'-' would be a file named '-': this option does not write to "
                      f"standard output; name the file, e.g. {self.example}", param, ctx)
        if isinstance(value, str) and value.endswith(("/", os.sep)):
            self.fail(f"{value} ends in '/', so it names a folder, not a file to write; "
                      f"name the file, e.g. {value}{self.example}", param, ctx)
        return super().convert(value, param, ctx)


class OutputFolder(GivenPath):
    """A folder to write files into. `-` would be a folder named `-`, where a user asking
    for standard output meant none: it is refused (exit 2)."""

    def __init__(self, path_type: type[Any] | None = None) -> None:
        super().__init__(file_okay=False, path_type=path_type)

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        if value == "-":
            self.fail("'-' would be a folder named '-': this option names the folder the "
                      "files are written to, not standard output; name a folder", param, ctx)
        return super().convert(value, param, ctx)


def run_setting_range(name: str) -> click.IntRange:
    """The values the config's `run.NAME` may take, for the option that overrides it: the
    option had no upper bound, and `--concurrency 100000000` started that many workers
    until the machine ran out of memory."""
    from assay.config.bounds import RUN_OPTION_MAX

    return click.IntRange(1, RUN_OPTION_MAX[name])


class NumberRange(click.FloatRange):
    """A number in a range. click's range lets `nan` through, every comparison with it being
    false, so `--min-agreement nan` was a bar every judge cleared: it is refused here."""

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if math.isnan(number):
            self.fail(f"{value} is not a number", param, ctx)
        return number


def provider_timeout_range() -> NumberRange:
    """The seconds a `providers:` entry's `timeout` may take, for an option that sets it."""
    from assay.config.bounds import MAX_SECONDS

    return NumberRange(min=0, max=MAX_SECONDS, min_open=True)


def given_on_command_line(*names: str) -> list[str]:
    """How the user wrote each parameter of `names` given on the command line (`-o x.md`,
    `--format json`, `--no-save`, an argument's value), in the command's order: to refuse
    options that the rest of the command line would leave unused."""
    from click.core import ParameterSource

    ctx = click.get_current_context()
    given: list[str] = []
    for param in ctx.command.params:
        if param.name not in names or \
                ctx.get_parameter_source(param.name) is not ParameterSource.COMMANDLINE:
            continue
        value = ctx.params[param.name]
        if value is None:  # `-o -`, standard output
            value = "-"
        if not isinstance(param, click.Option):
            given.append(str(value))
            continue
        flag = max(param.opts, key=len)
        if param.is_flag:
            given.append(flag)
        else:
            values = value if param.multiple else (value,)
            given.extend(f"{flag} {one}" for one in values)
    return given


def store_option(function: F) -> F:
    return click.option(
        "--store", "store_url", envvar="ASSAY_STORE", default=None, metavar="URL",
        type=GIVEN_TEXT,
        help="Store URL or SQLite path (default .assay/assay.db; env ASSAY_STORE).",
    )(function)


def slow_work_option(function: F) -> F:
    """`--no-progress` of a command that only reads: its notice that a big run is still
    being read goes to stderr, and only once it has taken a few seconds."""
    return click.option(
        "--no-progress", is_flag=True,
        help="Say nothing while a big run is read (by default, after 5 s or "
             "ASSAY_PROGRESS_SECONDS: a spinner on a terminal, else a line on stderr every "
             "5 s).")(function)


def slow_work_notice(label: str, trials: int, *, doing: str, parts: str,
                     no_progress: bool) -> ReviewProgress:
    """The notice of `slow_work_option`, as `assay run` says it reviews: on stderr, since
    stdout may be the document itself (`-o -`, `--json`)."""
    import sys

    from assay.runner.progress import ReviewProgress, choose_mode, interval

    return ReviewProgress(label, trials, mode=choose_mode(not no_progress), stream=sys.stderr,
                          doing=doing, parts=parts, after=interval())


def store_given(store_url: str | None) -> str:
    """` --store URL`, quoted for a shell, when this command line named the store: a command
    suggested to the user (`resume with: ...`) must read the same store, and without it the
    suggestion read the default one ('no run ... in .assay/assay.db'). Empty when the store
    is the default or came from ASSAY_STORE, which the suggested command finds as well."""
    if store_url is None or click.get_current_context(silent=True) is None or \
            not given_on_command_line("store_url"):
        return ""
    return f" --store {shlex.quote(store_url)}"


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
    is made only when written to, so its parent is checked. Something there that is not a
    folder (a device such as /dev/null, a pipe: click lets all but a regular file through)
    is refused too: it was taken for a folder not made yet, and every file failed, exit 3."""
    from assay.reports.atomic import ensure_writable_folder

    there = folder.exists() or folder.is_symlink()
    ensure_writable_folder(folder if there else folder.parent, "--output")


def open_store(url: str | None, *, existing: bool = False) -> Any:
    """The store at `url`. `existing`: for commands that only read runs, a SQLite file that is
    not there, or is empty, is an error (exit 2), not a new empty store saying "no runs
    stored yet", and one this process cannot write is opened read-only."""
    from assay.store import Store
    from assay.store.store import no_store_at, open_as_it_is, unwritable_file

    if existing and (absent := no_store_at(url)) is not None:
        from assay.errors import UserError

        raise UserError(absent)
    # a store on a read-only mount is read as such; a command that writes to it is told so
    return open_as_it_is(url) if existing and unwritable_file(url) else Store(url)


def console(stderr: bool = False) -> Any:
    """A console that wraps on a terminal and never wraps or cuts in a log or a pipe."""
    from assay.reports.console import make_console

    return make_console(stderr=stderr)
