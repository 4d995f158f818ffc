"""A live progress bar on the terminal: done/total, errors, rate and ETA."""

from __future__ import annotations

import sys
import time
from typing import Any

from assay.runner.pipeline import PipelineStats


class Progress:
    """Shows progress with rich when stderr is a terminal; stays silent otherwise."""

    def __init__(self, total: int, label: str, *, enabled: bool | None = None,
                 already_done: int = 0) -> None:
        self.total = total
        self.label = label
        self.already_done = already_done
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._progress: Any = None
        self._task: Any = None
        self._started = time.monotonic()

    def __enter__(self) -> Progress:
        if self.enabled:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as RichProgress

            self._progress = RichProgress(
                TextColumn("[bold]{task.description}"), BarColumn(bar_width=30), MofNCompleteColumn(),
                TextColumn("[red]{task.fields[errors]} errors"),
                TextColumn("{task.fields[rate]} trials/s"), TimeElapsedColumn(),
                TextColumn("ETA"), TimeRemainingColumn(),
                console=Console(stderr=True), refresh_per_second=8, transient=False)
            self._progress.start()
            self._task = self._progress.add_task(self.label, total=self.total,
                                                 completed=self.already_done, errors=0, rate="-")
        return self

    def update(self, stats: PipelineStats) -> None:
        if self._progress is None:
            return
        elapsed = max(time.monotonic() - self._started, 1e-9)
        self._progress.update(self._task, completed=self.already_done + stats.done,
                              errors=stats.errors, rate=f"{stats.done / elapsed:,.0f}")

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()
