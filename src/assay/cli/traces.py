"""`assay traces`: analyse agent session logs; `assay traces export`: turn them into a dataset."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from assay.cli.common import (
    GIVEN_TEXT,
    GivenPath,
    OutputFile,
    OutputFolder,
    check_output_file,
    given_on_command_line,
    provider_timeout_range,
    store_option,
)

FORMATS = ("pi", "claude-code", "openai-chat")


class _DefaultToAnalyze(click.Group):
    """`assay traces PATH...` runs `analyze`; `assay traces export ...` runs `export`."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = ["analyze", *args]
        return super().parse_args(ctx, args)


def _since(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(
            f"{value!r} is not a date or time assay can read: give a day as YYYY-MM-DD (a UTC "
            "day) or an ISO-8601 time such as 2026-03-01T09:00+02:00", param_hint="--since"
        ) from None


def _session_options(func: Any) -> Any:
    for option in reversed([
        click.argument("paths", nargs=-1, required=True, type=GivenPath(path_type=Path)),
        click.option("--log-format", "format_", type=click.Choice(FORMATS),
                     help="Read every file as this format instead of detecting it."),
        click.option("--last", type=click.IntRange(min=1), help="Only the N most recent sessions."),
        click.option("--since", help="Only sessions started on or after this day (YYYY-MM-DD, "
                     "in UTC) or time (2026-03-01T09:00+02:00; UTC without an offset)."),
        click.option("--name", "name_pattern",
                     help="Only sessions whose name matches this glob, e.g. 'query:*'."),
    ]):
        func = option(func)
    return func


def _options(format_: str | None, last: int | None, since: str | None,
             name_pattern: str | None, **extra: Any) -> Any:
    from assay.traces import SessionFilter, TraceOptions

    filters = SessionFilter(last=last, since=_since(since), name=name_pattern)
    return TraceOptions(format=format_, filter=filters, **extra)


@click.group(cls=_DefaultToAnalyze, name="traces")
def command() -> None:
    """Learn from agent session logs: metrics, findings, a report and agent guidelines.

    `assay traces PATH...` analyses; `assay traces export PATH... -o FILE` writes a dataset draft.
    """


@command.command("analyze")
@_session_options
@click.option("--knowledge", type=GivenPath(file_okay=False, path_type=Path),
              help="The folder the agent answers from, to list files it skipped.")
@click.option("--wiki-path", "wiki_paths", multiple=True,
              help="A file (glob) that counts as the wiki, not a source. "
                   "Repeatable; default index.md and wiki.md.")
@click.option("-o", "--output", type=OutputFolder(path_type=Path),
              default=Path(".assay/traces"), show_default=True,
              help="Where eval-report.md and guidelines.md are written.")
@click.option("--guidelines", type=OutputFile("guidelines.md", path_type=Path),
              help="Update this guidelines file instead of OUTPUT/guidelines.md.")
@click.option("--judge-model", type=GIVEN_TEXT,
              help="Check each answer against the files read with this model.")
@click.option("--judge-timeout", type=provider_timeout_range(), metavar="SECONDS",
              help="Seconds one judge call may take before it is abandoned and retried (the "
                   "`timeout` of a config's `providers:` entry; default 120). Each question is "
                   "tried 5 times and 20 questions failed in a row stop the analysis (exit 3), "
                   "so a judge that hangs stops it within about 25 x SECONDS + 75 s, the "
                   "75 s being the waits between tries.")
@click.option("--experiment", type=GIVEN_TEXT, default="traces", show_default=True,
              help="The name history groups these analyses under.")
@store_option
@click.option("--no-store", is_flag=True, help="Do not record this analysis as a run.")
def analyze_command(paths: tuple[Path, ...], format_: str | None, last: int | None,
                    since: str | None, name_pattern: str | None, knowledge: Path | None,
                    wiki_paths: tuple[str, ...], output: Path, guidelines: Path | None,
                    judge_model: str | None, judge_timeout: float | None, experiment: str,
                    store_url: str | None, no_store: bool) -> None:
    """Analyse session logs and write eval-report.md and guidelines.md."""
    from assay.traces import analyze, check_outputs, write_outputs
    from assay.traces.metrics import DEFAULT_WIKI_PATHS
    from assay.traces.pipeline import require_questions

    if judge_timeout is not None and not judge_model:
        raise click.UsageError("--judge-timeout bounds the judge's calls: give --judge-model "
                               "too, or leave --judge-timeout out")
    if no_store and (given := given_on_command_line("experiment", "store_url")):
        raise click.UsageError(f"--no-store records nothing, so {' and '.join(given)} would "
                               "be ignored: leave out one or the other")
    check_outputs(output, guidelines)  # before any log is read or judge paid
    extra: dict[str, Any] = {"knowledge": knowledge,
                             "wiki_paths": wiki_paths or DEFAULT_WIKI_PATHS}
    options = _options(format_, last, since, name_pattern, **extra)
    if judge_model:
        analysis = _analyze_judged(paths, options, judge_model, judge_timeout, store_url,
                                   use_store=not no_store)
    else:
        analysis = analyze(paths, options)
    require_questions(analysis, format_)
    report, guide = write_outputs(analysis, output, guidelines)
    _summary(analysis, report, guide)
    if not no_store:
        from assay.traces.storing import record_run

        run_id = record_run(analysis, experiment, store_url)
        click.echo(f"stored as run {run_id} (experiment {experiment})")
    _require_complete(analysis, report)


def _require_complete(analysis: Any, report: Path) -> None:
    """Exit 3 (the run could not complete) once an analysis whose judge failed on some
    questions is written and stored: its findings cover only the others."""
    from assay.errors import RunFailed

    incomplete = analysis.judgements.incomplete() if analysis.judgements else None
    if incomplete:
        raise RunFailed(f"the analysis is incomplete: {incomplete} (listed under "
                        f"'Not judged' in {report}); run it again to judge them")


def _analyze_judged(paths: tuple[Path, ...], options: Any, model: str, timeout: float | None,
                    store_url: str | None, use_store: bool) -> Any:
    """Analyse with each answer judged as it is read.

    The judge's responses are cached in the store, so judging the same answers again
    costs nothing; with `--no-store` there is no cache (one in memory would grow with
    every question).
    """
    import asyncio

    from assay.errors import RunFailed
    from assay.services import Services
    from assay.traces import analyze_judged
    from assay.traces.judge_provider import open_provider

    store = None
    if use_store:
        from assay.store import Store

        store = Store(store_url)
    services = Services(store=store)
    provider, model_name = open_provider(model, services, timeout)
    progress = _JudgeProgress(services)

    async def go() -> Any:
        try:
            return await analyze_judged(paths, options, provider, model_name,
                                        use_cache=use_store, named=model, watch=progress.judged)
        finally:
            await services.aclose()

    try:
        with progress.shown:
            analysis = asyncio.run(go())
    finally:
        if store is not None:
            store.close()
    judgements = analysis.judgements
    if judgements is not None and judgements.asked and judgements.judged == 0:
        raise RunFailed("the judge failed on every question; first error: "
                        f"{judgements.errors[0].error}")
    return analysis


class _JudgeProgress:
    """The judge's progress as `assay run` shows a run's: a bar on stderr when it is a
    terminal, nothing in piped output. How many answers there are is known only once
    every log is read, so the bar counts up without a total."""

    def __init__(self, services: Any) -> None:
        from assay.runner.progress import Progress, choose_mode

        def ledger() -> Any:
            return services.providers.stats() if services.providers is not None else None

        self.shown = Progress(None, "judging answers", mode=choose_mode(None), ledger=ledger,
                              unit="answers")

    def judged(self, judgements: Any) -> None:
        from assay.runner.pipeline import PipelineStats

        self.shown.update(PipelineStats(done=judgements.asked, errors=len(judgements.errors)))


def _say_skipped(unreadable: Any, sessions: Any, listed_in: str) -> None:
    """On stderr: the files not read and, per session, the lines left out, each with why;
    the first few of each, the rest counted and said to be listed in `listed_in`."""
    from assay.traces.sessions import file_stats
    from assay.wording import path_text, plural

    _echo_some([f"skipped {path_text(bad.path)}: {bad.reason}" for bad in unreadable],
               lambda more: f"{plural(more, 'more file')} not read ({listed_in})", err=True)
    lines = []
    for stats in file_stats(sessions):
        if stats.malformed_count or stats.unknown or stats.orphans or stats.repeats:
            malformed = stats.malformed_lines()
            skipped = [f"{plural(stats.malformed_count, 'malformed line')} ({malformed})"
                       ] if malformed else []
            skipped += [f"unknown kind {kind}" for kind in stats.unknown_kinds()]
            skipped += [said for said in (stats.orphaned(), stats.repeated()) if said]
            lines.append(f"{path_text(stats.path)}: {'; '.join(skipped)}")
    _echo_some(lines, lambda more: f"{plural(more, 'more file')} with lines left out "
               f"({listed_in})", err=True)


def _echo_some(lines: list[str], rest: Callable[[int], str], err: bool = False) -> None:
    """The first `SAME_PROBLEM_SHOWN` lines, and `rest` of how many more there are: 3,000
    empty logs printed 3,000 lines that hid the summary around them."""
    from assay.errors import SAME_PROBLEM_SHOWN

    for line in lines[:SAME_PROBLEM_SHOWN]:
        click.echo(line, err=err)
    if len(lines) > SAME_PROBLEM_SHOWN:
        click.echo(f"... and {rest(len(lines) - SAME_PROBLEM_SHOWN)}", err=err)


def _summary(analysis: Any, report: Path, guide: Path) -> None:
    from assay.reports.trace_performance import wasted_reads
    from assay.shown_numbers import percent_beside
    from assay.traces.repeats import repeat_notes
    from assay.wording import path_text, plural

    m = analysis.metrics
    rate = ("n/a" if m.wiki_hit_rate is None
            else percent_beside(m.wiki_hit_rate, analysis.hit_rate_target, 0))
    if analysis.selection is not None:
        click.echo(analysis.selection.note())
    click.echo(f"sessions {m.sessions:,}, questions {m.exchanges:,} ({m.answered:,} answered)")
    listed_in = f"all listed in {path_text(report)}"
    _echo_some(repeat_notes(analysis.sessions),  # 3,000 copies of a log: 2,999 such lines
               lambda more: f"{plural(more, 'more log')} repeating a session read in "
               f"another, each counted once ({listed_in})")
    wiki = f"wiki hit rate {rate}, " if analysis.knowledge else ""  # as eval-report.md
    click.echo(f"{wiki}wasted reads {wasted_reads(m.wasted_reads, m.answered_source_reads)}, "
               f"tool errors {m.tool_errors:,}/{m.tool_calls:,}")
    _say_skipped(analysis.unreadable, analysis.sessions, listed_in)
    if analysis.judgements is not None:
        click.echo(f"findings {len(analysis.findings):,}, "
                   f"not judged {len(analysis.judge_errors):,}")
    click.echo(f"report: {path_text(report)}")
    click.echo(f"guidelines: {path_text(guide)}")


@command.command("export")
@_session_options
@click.option("-o", "--output", type=OutputFile("drafts.jsonl", path_type=Path), required=True,
              help="The dataset JSONL to write.")
@click.option("--include-unanswered", is_flag=True, help="Also export questions with no answer.")
def export_command(paths: tuple[Path, ...], format_: str | None, last: int | None,
                   since: str | None, name_pattern: str | None, output: Path,
                   include_unanswered: bool) -> None:
    """Write each question as a dataset case: expected = the agent's answer, to review."""
    from assay.traces import ExchangeStream
    from assay.traces.export import check_not_a_log, write_dataset
    from assay.wording import path_text, plural

    check_output_file(output)  # before any log is read
    check_not_a_log(output, paths)
    stream = ExchangeStream(paths, _options(format_, last, since, name_pattern))
    written = write_dataset(stream, output, include_unanswered)
    _say_skipped(stream.unreadable, stream.sessions,
                 "`assay traces` lists them all in eval-report.md")
    if stream.selection is not None:
        click.echo(stream.selection.note())
    click.echo(f"wrote {plural(written, 'case')} to {path_text(output)} "
               "(review `expected` before trusting it)")
