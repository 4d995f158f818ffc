"""Progress of a run as it goes: a live bar on a terminal, plain lines in a CI log or a pipe.

On a terminal (stderr is one) the bar shows done/total, errors, rate and
ETA, and from the run's call ledger the cost so far, retries and cache hits.
Elsewhere a bar would be noise, and silence looks like a hang, so a line
goes to stdout every few seconds (`ASSAY_PROGRESS_SECONDS`, default 5), in
the same stream as the report that follows:

    go-expert: 120/400 trials (30%), 2 with an error, 14 retries, 3.1 trials/s, ETA 1m30s, $0.0123 so far

The lines come from a timer thread, so a run whose trials are all slow still
shows it is alive.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from typing import IO, Any, Literal, Self, TypeAlias

from assay.runner.pipeline import PipelineStats
from assay.shown_numbers import dollars
from assay.wording import plural

Mode: TypeAlias = Literal["bar", "lines", "off"]
DEFAULT_INTERVAL = 5.0
"""Seconds between two progress lines (`ASSAY_PROGRESS_SECONDS` changes it)."""
STALLED_GAPS = 3
"""No trial has ended for this many times the mean gap between two endings: the rate says
nothing more of when the run ends, and the line says what it waits on instead of an ETA."""
STALLED_SECONDS = 2.0
"""... and for at least this long, so a fast run's ordinary pauses keep their ETA."""
Ledger: TypeAlias = Callable[[], Any]
"""The run's call ledger so far (`providers.ledger.Stats`), or None before the first call."""


def choose_mode(progress: bool | Mode | None) -> Mode:
    """None: the bar on a terminal, else nothing (the Python API's default); True: the bar on a
    terminal, else lines; False: nothing; or a mode by name."""
    if progress is None or progress is True:
        if sys.stderr.isatty():
            return "bar"
        return "lines" if progress else "off"
    if progress is False:
        return "off"
    return progress


def interval() -> float:
    """Seconds between progress lines: `ASSAY_PROGRESS_SECONDS`, or 5."""
    try:
        value = float(os.environ.get("ASSAY_PROGRESS_SECONDS", DEFAULT_INTERVAL))
    except ValueError:
        return DEFAULT_INTERVAL
    return value if value > 0 else DEFAULT_INTERVAL


class Progress:
    """Shows a run's progress in the chosen `Mode`; use as a context manager around the run."""

    def __init__(self, total: int | None, label: str, *, mode: Mode = "off", already_done: int = 0,
                 errored_before: int = 0, ledger: Ledger | None = None,
                 stream: IO[str] | None = None, unit: str = "trials") -> None:
        self.total = total
        """None while unknown (an `assay traces` judge learns its questions as it reads)."""
        self.label = label
        self.mode = mode
        self.already_done = already_done
        self.errored_before = errored_before
        """Of the `already_done` trials (a resume's stored ones), those with an error."""
        self.ledger = ledger
        self.stream = stream
        self.unit = unit
        """What is counted, as the line and the rate name it: `trials`, `answers`."""
        self.stats = PipelineStats()
        self._started = time.monotonic()
        self._counted = 0
        """`stats.done` when a trial was last seen to end, at `_last_ended`."""
        self._last_ended = self._started
        self._bar: Any = None
        self._task: Any = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Self:
        if self.mode == "bar":
            self._start_bar()
        elif self.mode == "lines":
            self._write(self.line())
            self._thread = threading.Thread(target=self._tick, name="assay-progress",
                                            daemon=True)
            self._thread.start()
        return self

    def update(self, stats: PipelineStats) -> None:
        self.stats = stats
        if stats.done != self._counted:
            self._counted, self._last_ended = stats.done, time.monotonic()
        if self._bar is not None:
            self._bar.update(self._task, completed=self.already_done + stats.done,
                             **self._fields())

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.update(self._task, **self._fields())
            self._bar.stop()
        if self._thread is not None:
            self._stop.set()
            self._thread.join(timeout=5)
            self._write(self.line())

    # -- what is shown -------------------------------------------------------------------------

    def line(self) -> str:
        """One plain line: done/total, errors, retries, rate, ETA, cost so far."""
        done = self.already_done + self.stats.done
        count = f"{done:,}" if self.total is None else f"{done:,}/{self.total:,}"
        parts = [f"{count} {self.unit}"
                 + (f" ({share_done(done, self.total)})" if self.total else ""),
                 f"{self._errors():,} with an error"]  # of the target or of a scorer
        ledger = self._ledger()
        if ledger is not None:
            total = ledger.total
            if total.retries:
                parts.append(plural(total.retries, "retry", "retries"))
            if total.cache_hits:
                parts.append(f"{total.cache_hits:,} cache hits")
        rate = self._rate()
        if rate is not None:
            parts.append(_rate_text(rate, self.unit))
        left = self._time_left()
        if left:
            parts.append(left)
        cost = self._cost(ledger)
        if cost:
            parts.append(f"{cost} {self._spent_when()}")
        return f"{self.label}: " + ", ".join(parts)

    def _fields(self) -> dict[str, str]:
        ledger = self._ledger()
        extra = []
        if ledger is not None:
            total = ledger.total
            cost = self._cost(ledger)
            if cost:
                extra.append(f"{cost} {self._spent_when()}" if self.already_done else cost)
            if total.retries:
                extra.append(f"[yellow]{plural(total.retries, 'retry', 'retries')}[/yellow]")
            if total.cache_hits:
                extra.append(f"{total.cache_hits} cached")
        return {"errors": str(self._errors()), "calls": " · ".join(extra)}

    def _errors(self) -> int:
        """Trials with an error, of the whole run: the stored ones a resume skips too, as
        the trial count beside it and the run's report count them."""
        return self.errored_before + self.stats.errors

    def _spent_when(self) -> str:
        """What the ledger's cost covers: this process's calls, which on a resume are not
        the run's (its report totals every stored trial's cost)."""
        return "spent by this resume" if self.already_done else "so far"

    def _cost(self, ledger: Any) -> str:
        if ledger is None or not (ledger.total.calls or ledger.total.cache_hits):
            return ""
        if ledger.total.unpriced_calls:
            return f"{dollars(ledger.total.cost_usd)} + unknown"
        return dollars(ledger.total.cost_usd)

    def _ledger(self) -> Any:
        if self.ledger is None:
            return None
        try:
            return self.ledger()
        except Exception:  # noqa: BLE001 - progress must never stop a run
            return None

    def _rate_shown(self) -> str:
        rate = self._rate()
        return _rate_text(rate, self.unit) if rate is not None else ""

    def _time_left(self) -> str:
        """`ETA 1m30s` while trials keep ending at their rate. Once none has ended for
        `STALLED_GAPS` mean gaps (a hung call waiting for its timeout), what the run waits on
        and for how long: the ETA grew a second at a time, always a second or two away."""
        done = self.already_done + self.stats.done
        remaining = 0 if self.total is None else self.total - done
        rate = self._rate()
        if remaining <= 0 or not rate:
            return ""
        now = time.monotonic()
        idle = now - self._last_ended
        mean_gap = (self._last_ended - self._started) / self.stats.done
        if idle <= max(STALLED_SECONDS, STALLED_GAPS * mean_gap):
            return f"ETA {duration(remaining / rate)}"
        what = f"the last {self.unit.removesuffix('s')}" if remaining == 1 else \
            f"the {self.unit} in flight"
        return f"waiting on {what} for {duration(idle)}"

    def _rate(self) -> float | None:
        """Trials per second in this process; None before its first trial is stored, when a
        rate of 0.0 would be a number measured from nothing."""
        if not self.stats.done:
            return None
        elapsed = max(time.monotonic() - self._started, 1e-9)
        return self.stats.done / elapsed

    # -- where it goes -------------------------------------------------------------------------

    def _start_bar(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            ProgressColumn,
            Task,
            TextColumn,
            TimeElapsedColumn,
        )
        from rich.progress import Progress as RichProgress
        from rich.text import Text

        class Drawn(ProgressColumn):
            """A text worked out as the bar is drawn, not when a trial ends: while one hangs
            none ends, and the rate and the time left would stand still."""

            def __init__(self, text: Callable[[], str]) -> None:
                super().__init__()
                self.text = text

            def render(self, task: Task) -> Text:
                return Text(self.text())

        self._bar = RichProgress(
            TextColumn("{task.description}", style="bold", markup=False),  # a name, as written
            BarColumn(bar_width=30),
            MofNCompleteColumn(), TextColumn("[red]{task.fields[errors]} with an error"),
            Drawn(self._rate_shown), TimeElapsedColumn(), Drawn(self._time_left),
            TextColumn("{task.fields[calls]}"),
            console=Console(stderr=True), refresh_per_second=8, transient=False)
        self._bar.start()
        self._task = self._bar.add_task(self.label, total=self.total,
                                        completed=self.already_done, **self._fields())

    def _tick(self) -> None:
        every = interval()
        while not self._stop.wait(every):
            self._write(self.line())

    def _write(self, text: str) -> None:
        write_line(self.stream, text)


@dataclass(eq=False)
class ReviewProgress:
    """The review after the trials (summary, comparisons, the previous run's diff, report
    files) in the chosen `Mode`: a spinner on a terminal, a line every few seconds elsewhere.
    On a 500,000-trial run it takes half a minute or more, and with nothing shown the
    finished bar looked like a hang. `assay report` and `assay compare` say so too, on
    stderr, with their own `doing` and `parts`, and only once `after` seconds have passed:
    a small run's report stays as quiet as it is quick."""

    label: str
    trials: int | None
    _: KW_ONLY
    mode: Mode = "off"
    stream: IO[str] | None = None
    doing: str = "reviewing"
    parts: str = "summary, comparisons, report files"
    after: float = 0.0
    _started: float = field(default_factory=time.monotonic, init=False)
    _status: Any = field(default=None, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)
    _stop: threading.Event = field(default_factory=threading.Event, init=False)
    _thread: threading.Thread | None = field(default=None, init=False)

    def text(self) -> str:
        trials = "its trials" if self.trials is None else plural(self.trials, "trial")
        return f"{self.label}: {self.doing} {trials} ({self.parts})"

    def __enter__(self) -> Self:
        if self.mode == "off":
            return self
        if not self.after:
            self._begin()
        if self.after or self.mode == "lines":  # else shown once, and nothing left to keep
            self._thread = threading.Thread(target=self._keep_showing,
                                            name="assay-review-progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.end()

    def end(self) -> None:
        """Show no more (the work left shows itself, or is done); safe to call twice."""
        with self._lock:
            self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        if self._status is not None:
            self._status.stop()
            self._status = None

    def _begin(self) -> None:
        if self.mode == "bar":
            from rich.console import Console
            from rich.live import Live
            from rich.spinner import Spinner
            from rich.text import Text

            # stdout is left alone: it may be the report being written; the name, as written
            self._status = Live(Spinner("dots", Text(self.text())), console=Console(stderr=True),
                                transient=True, redirect_stdout=False)
            self._status.start()
        else:
            write_line(self.stream, self.text())

    def _keep_showing(self) -> None:
        if self.after:
            if self._stop.wait(self.after):
                return
            with self._lock:
                if self._stop.is_set():
                    return
                self._begin()
        if self.mode != "lines":
            return
        every = interval()
        while not self._stop.wait(every):
            elapsed = duration(time.monotonic() - self._started)
            write_line(self.stream, f"{self.label}: still {self.doing}, {elapsed} so far")


def write_line(stream: IO[str] | None, text: str) -> None:
    """`text` as a line on `stream` (stdout by default, as the report that follows)."""
    stream = stream or sys.stdout
    try:
        stream.write(text + "\n")
        stream.flush()
    except (OSError, ValueError):  # a closed pipe must not stop the run
        pass


def share_done(done: int, total: int) -> str:
    """`40%`, rounded down: 999 of 1,000 trials is `99%`, not `100%` with a trial still
    to run, and 1 of 1,000 is `<1%`, not `0%` after a trial has ended."""
    percent = done * 100 // total
    return "<1%" if percent == 0 < done else f"{percent}%"


def _rate_text(rate: float, unit: str = "trials") -> str:
    return f"{rate:,.1f} {unit}/s"


def duration(seconds: float) -> str:
    """`45s`, `1m30s`, `2h05m`."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes, secs = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"
