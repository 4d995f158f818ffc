"""A reviewed run's files: `results.json`, `report.md`, `report.html`, and JUnit when asked.

The three files come from one pass over the stored trials, streamed: each
trial goes to `ReportParts`, which writes its line of `results.json` to a
temporary file and feeds the failure list and the replayed answers worse
than recorded of `report.md`, and the trials of `report.html`. When the run
is being finished, that same pass feeds the summary and comparisons too
(`review.reading`), so the files are written once the review is known.
Every file is written atomically (see `reports.atomic`), and `damaged_files`
tells which of a run's files are missing or cut short (written by a version
that wrote in place, or damaged since), so they can be written again.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from assay.errors import FileWriteError
from assay.reports.atomic import atomic_writer, write_text
from assay.review.result import ReportFiles, Review

if TYPE_CHECKING:
    from assay.records import TrialRecord
    from assay.reports.html_trials import TrialData
    from assay.reports.results_json import TrialLines
    from assay.store import Store


class TrialParts:
    """What reports take from a run's trials, fed one trial at a time: the trial lines of
    a results.json (`lines`, gathered in a temporary file), or report.md's failures and
    answers worse than recorded, and report.html's page (`page`) when asked. `assay report`
    gathers the one it renders in its review's pass; a finished run, all of them."""

    def __init__(self, epochs: int | None, *, lines: TrialLines | None = None,
                 results: Path | None = None, page: TrialData | None = None) -> None:
        from assay.reports.markdown import FailureList
        from assay.reports.recorded import RecordedComparisons

        self.lines, self._results, self.page = lines, results, page
        self.markdown = lines is None or page is not None
        """report.md's parts are gathered: not for a results.json alone."""
        self.failures = FailureList(epochs)
        self.recorded = RecordedComparisons(epochs)

    def add(self, trial: TrialRecord) -> None:
        if self.lines is not None:
            try:
                self.lines.add(trial)
            except OSError as exc:  # as `_writing` says it (a block per trial costs more)
                raise _write_failed(self._results or Path("results.json"), exc) from None
        if self.markdown:
            self.failures.add(trial)
            self.recorded.add(trial)
        if self.page is not None:
            self.page.add(trial)

    def close(self) -> None:
        """Drop what was gathered (when nothing was written, or once it was)."""
        if self.lines is not None:
            self.lines.close()


class ReportParts(TrialParts):
    """What the run's three files take from its trials, their folder made ready."""

    def __init__(self, directory: Path, page: TrialData) -> None:
        from assay.reports.results_json import TrialLines

        self.directory = directory
        results = directory / "results.json"
        with _writing(results):
            directory.mkdir(parents=True, exist_ok=True)
            lines = TrialLines(directory)
        super().__init__(page.epochs, lines=lines, results=results, page=page)
        self.lines: TrialLines = lines
        self.page: TrialData = page


@contextlib.contextmanager
def _writing(path: Path) -> Iterator[None]:
    """The operating system refusing a write (a full disk, no permission) as a
    `FileWriteError` naming the file, as `atomic_writer` says it."""
    try:
        yield
    except OSError as exc:
        raise _write_failed(path, exc) from None


def _write_failed(path: Path, exc: OSError) -> FileWriteError:
    reason = exc.strerror or str(exc) or type(exc).__name__
    return FileWriteError(f"could not write {path}: {reason}")


def write_reports(store: Store, review: Review, directory: Path, *,
                  junit: Path | None = None) -> ReportFiles:
    """Write the run's files into `directory` (and JUnit XML to `junit`); returns their paths."""
    return write_parts(store, review, read_parts(store, review, directory), junit=junit)


def read_parts(store: Store, review: Review, directory: Path) -> ReportParts:
    """The files' parts, from one pass over the run's stored trials."""
    from assay.reports.html import trial_data

    parts = ReportParts(directory, trial_data(review))
    try:
        for trial in store.iter_trials(review.run.id):
            parts.add(trial)
    except BaseException:
        parts.close()
        raise
    return parts


def write_parts(store: Store, review: Review, parts: ReportParts, *,
                junit: Path | None = None) -> ReportFiles:
    """Write the run's files from the parts its trials fed; returns their paths."""
    from assay.reports.html import write_html
    from assay.reports.markdown import render_markdown
    from assay.reports.recorded import worse_than_recorded_markdown
    from assay.reports.results_json import write_results_json

    files = report_files(parts.directory, junit)
    try:
        with atomic_writer(files.results) as handle:
            write_results_json(handle, review, parts.lines)
    finally:
        parts.close()
    write_text(files.markdown, _joined(render_markdown(review, parts.failures),
                                       worse_than_recorded_markdown(parts.recorded)))
    with atomic_writer(files.html) as handle:
        write_html(handle, review, parts.page)
    if junit is not None:
        from assay.reports.junit import write_junit

        with atomic_writer(junit) as handle:
            write_junit(handle, review.run, store.iter_trials(review.run.id), review.gates)
    return files


def _joined(report: str, *sections: str) -> str:
    """`report.md` with the sections that have something to say appended."""
    return "\n".join([report.rstrip("\n"), *(s.rstrip("\n") for s in sections if s)]) + "\n"


def report_files(directory: Path, junit: Path | None = None) -> ReportFiles:
    """Where a run's files go in `directory`."""
    return ReportFiles(directory=directory, results=directory / "results.json",
                       markdown=directory / "report.md", html=directory / "report.html",
                       junit=junit)


FULLY_PARSED_BYTES = 64 * 2**20
"""A `results.json` up to this size is parsed whole to check it; a larger one by its ends."""


def damaged_files(directory: Path, run_id: str) -> list[str]:
    """The names of the run's files in `directory` that are missing, empty or cut short."""
    files = report_files(directory)
    damaged = [] if _whole_results(files.results, run_id) else [files.results.name]
    if not _nonempty(files.markdown):
        damaged.append(files.markdown.name)
    if not _nonempty(files.html) or not _tail(files.html).rstrip().endswith(b"</html>"):
        damaged.append(files.html.name)
    return damaged


def _nonempty(path: Path) -> bool:
    try:
        return path.is_file() and path.stat().st_size > 0
    except OSError:
        return False


def _tail(path: Path, size: int = 4096) -> bytes:
    try:
        with path.open("rb") as handle:
            handle.seek(max(0, path.stat().st_size - size))
            return handle.read()
    except OSError:
        return b""


def _whole_results(path: Path, run_id: str) -> bool:
    """`results.json` is a whole JSON document of this run."""
    if not _nonempty(path):
        return False
    try:
        if path.stat().st_size <= FULLY_PARSED_BYTES:
            with path.open("rb") as handle:
                document = json.load(handle)
            run = document.get("run") if isinstance(document, dict) else None
            return isinstance(run, dict) and run.get("id") == run_id
        with path.open("rb") as handle:
            head = handle.read(65536)
    except (OSError, ValueError):
        return False
    return head.lstrip().startswith(b"{") and f'"{run_id}"'.encode() in head \
        and _tail(path).rstrip().endswith(b"}")
