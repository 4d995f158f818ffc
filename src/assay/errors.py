"""Errors that carry where they happened, so the CLI can print one clear line.

`UserError` (exit 2) is anything the user can fix in a config, dataset or
argument. `RunFailed` (exit 3) is a run that could not complete, `StoreError`
(exit 3) a store that could not be read or written (full, read-only, damaged,
unreachable), and `RunLocked` (exit 3) a run another process is running.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Problem:
    """One thing wrong with an input file, located as precisely as we can."""

    message: str
    file: str | None = None
    line: int | None = None
    field: str | None = None

    def __str__(self) -> str:
        where = self.file or ""
        if self.line is not None:
            where += f":{self.line}"
        if self.field:
            where += f" [{self.field}]" if where else f"[{self.field}]"
        return f"{where}: {self.message}" if where else self.message


class AssayError(Exception):
    """Base of the errors assay raises on purpose."""

    exit_code = 1
    run_id: str | None = None
    """The run it stopped, kept in the store with the trials that ran, when it stopped one:
    `assay run` prints how to resume it, `assay.evaluate` and the pytest plugin name it."""

    def stopped(self, run_id: str) -> None:
        """Name the run this error stopped, unless an earlier step named it already."""
        if self.run_id is None:
            self.run_id = run_id


class UserError(AssayError):
    """Bad config, dataset or arguments: exit code 2, never a traceback."""

    exit_code = 2

    def __init__(self, message: str, problems: list[Problem] | None = None) -> None:
        super().__init__(message)
        self.problems: list[Problem] = problems or []

    def __str__(self) -> str:
        head = self.args[0] if self.args else "invalid input"
        if not self.problems:
            return head
        body = "\n".join(f"  {p}" for p in self.problems)
        return f"{head}\n{body}"


class ArgumentError(UserError):
    """A value the command line gives (`--baseline pack`, `--fail-under`, `--condition`) that
    a config it runs cannot take, the config itself being valid: a suite says so once, as
    the command line's error, not as an error of each of its configs."""


class RunFailed(AssayError):
    """A run that could not complete (error budget, unreachable provider): exit 3."""

    exit_code = 3


class CostBudgetSpent(RunFailed):
    """A run stopped by its cost budget, `run.max_cost_usd`: exit 3. A resume makes no paid
    call while the budget stays spent, so the way on is to raise it, then resume."""


class StoreError(AssayError):
    """The store could not be opened, read or written: one line saying why, never SQL or
    the values of a row. Exit code 3."""

    exit_code = 3


class StoreGone(StoreError):
    """The store's file was deleted or replaced while a run wrote to it: what the run stored
    went with it, so there is nothing to resume."""

    def stopped(self, run_id: str) -> None:
        """Name no run: there is none left to resume."""


class FileWriteError(AssayError):
    """A file assay writes could not be written (disk full, no permission): one line naming
    the file and the cause, exit code 3. The previous file, if any, is left as it was."""

    exit_code = 3


class RunLocked(AssayError):
    """Another live process is running (or resuming) this run: exit code 3."""

    exit_code = 3


SAME_PROBLEM_SHOWN = 10
"""How many records with one same problem (message, file and field) are listed, each with
its line; the others are counted. A mapping's typo is a problem of every record, and a
million-line file would otherwise print a million lines (and keep them in memory)."""


@dataclass
class ProblemList:
    """Collects problems so every one is reported at once, not the first only (past
    `SAME_PROBLEM_SHOWN` records with one same problem, the rest are counted)."""

    problems: list[Problem] = field(default_factory=list)
    notes: list[Problem] = field(default_factory=list)
    """What was changed without stopping anything (a lone surrogate replaced): warnings."""
    _times: dict[tuple[str, str | None, str | None], int] = field(default_factory=dict)
    """How many times each problem (message, file, field) was added."""

    def note(self, message: str, *, file: str | None = None, line: int | None = None,
             field: str | None = None) -> None:
        self.notes.append(Problem(message, file, line, field))

    def add(self, message: str, *, file: str | None = None, line: int | None = None,
            field: str | None = None) -> None:
        times = self._times.get((message, file, field), 0) + 1
        self._times[message, file, field] = times
        if times <= SAME_PROBLEM_SHOWN:
            self.problems.append(Problem(message, file, line, field))

    def __bool__(self) -> bool:
        return bool(self.problems)

    def raise_if_any(self, headline: str) -> None:
        if self.problems:
            raise UserError(headline, [*self.problems, *self._counted()])

    def _counted(self) -> list[Problem]:
        """One problem for each that was added more times than were listed."""
        return [Problem(f"... and {times - SAME_PROBLEM_SHOWN:,} more records with this same "
                        f"problem: {message}", file, None, field)
                for (message, file, field), times in self._times.items()
                if times > SAME_PROBLEM_SHOWN]
