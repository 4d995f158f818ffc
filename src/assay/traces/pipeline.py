"""The traces pipeline, one way: read -> exchanges -> metrics -> judge -> report and guidelines.

Exchanges stream from the files through the metrics (and the judge, when
one is set) and are dropped; what is kept is totals, one row per session
and the judge's findings. Memory stays flat however large the logs are, but for
one small hash per question (`repeats`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from assay.errors import UserError
from assay.providers.base import Provider
from assay.reports.atomic import ensure_writable_folder, write_text
from assay.traces.findings import Judgement
from assay.traces.guidelines import read_guidelines, render_insights, update_guidelines
from assay.traces.judging import Judgements, StreamingJudge
from assay.traces.metrics import MetricsTally
from assay.traces.options import TraceOptions
from assay.traces.repeats import distinct_sessions
from assay.traces.report import render_report
from assay.traces.result import TraceAnalysis
from assay.traces.sessions import file_stats
from assay.traces.stream import ExchangeStream
from assay.wording import plural

REPORT_NAME = "eval-report.md"
GUIDELINES_NAME = "guidelines.md"


def analyze(paths: Sequence[str | Path], options: TraceOptions) -> TraceAnalysis:
    """Everything that needs no model: session rows and metrics."""
    stream = ExchangeStream(paths, options)
    tally = MetricsTally(options.wiki_paths)
    for exchange in stream:
        tally.add(exchange)
    return _analysis(stream, tally)


async def analyze_judged(paths: Sequence[str | Path], options: TraceOptions,
                         provider: Provider, model: str, concurrency: int = 4,
                         use_cache: bool = True, named: str | None = None,
                         watch: Callable[[Judgements], None] | None = None) -> TraceAnalysis:
    """`analyze`, with each answered exchange judged as it streams past.

    `model` is the name the provider knows (`gpt-4.1-mini`); `named` is the judge as the
    user named it (`openai/gpt-4.1-mini`), which the report and the stored run show.
    `watch` sees the judgements after each one is folded in (to show progress).
    """
    stream = ExchangeStream(paths, options)
    tally = MetricsTally(options.wiki_paths)
    judgements = Judgements(named or model)

    def fold(judgement: Judgement) -> None:
        judgements.add(judgement)
        if watch is not None:
            watch(judgements)

    async with StreamingJudge(provider, model, fold, concurrency, use_cache) as judging:
        for exchange in stream:
            tally.add(exchange)
            await judging.submit(exchange)
    return _analysis(stream, tally, judgements)


def _analysis(stream: ExchangeStream, tally: MetricsTally,
              judgements: Judgements | None = None) -> TraceAnalysis:
    return TraceAnalysis(stream.sessions, tally.result(distinct_sessions(stream.sessions)),
                         stream.unreadable,
                         judgements, hit_rate_target=stream.options.hit_rate_target,
                         knowledge=stream.options.knowledge is not None,
                         subagent_files=len(stream.subagent_files),
                         selection=stream.selection)


def require_questions(analysis: TraceAnalysis, forced_format: str | None = None) -> None:
    """Refuse an analysis that found no question: its report would be empty and its "nothing
    to change" would replace the guidelines' insights (logs of another format, or read with
    the wrong `--log-format`, give none)."""
    if analysis.metrics.exchanges:
        return
    count = len({s.meta.path for s in analysis.sessions})
    stats = file_stats(analysis.sessions)
    malformed = sum(file.malformed_count for file in stats)
    orphans = sum(file.orphans for file in stats)
    formats = sorted({s.meta.format for s in analysis.sessions if s.meta.format})
    detail = f"read as {', '.join(formats)}" + (f", {plural(malformed, 'line')} malformed"
                                                 if malformed else "") + (
        f", {plural(orphans, 'line')} of agent activity with no question before them"
        if orphans else "")
    hint = f"; is --log-format {forced_format} right?" if forced_format else ""
    raise UserError(f"no question found in the {plural(count, 'session file')} read "
                    f"({detail}{hint}); nothing was written or stored")


def guidelines_path(output: Path, guidelines: Path | None = None) -> Path:
    """The guidelines file an analysis updates: the one named, else `OUTPUT/guidelines.md`."""
    return guidelines or output / GUIDELINES_NAME


def check_outputs(output: Path, guidelines: Path | None = None) -> None:
    """Refuse, before any log is read or judge paid, an output folder that cannot be made
    or written and a guidelines file that cannot be read, naming the option that chose it
    (`--guidelines` for a file named apart, else `--output`)."""
    if guidelines is not None:
        ensure_writable_folder(guidelines.parent, "--guidelines")
    ensure_writable_folder(output)
    read_guidelines(guidelines_path(output, guidelines),
                    "--output" if guidelines is None else "--guidelines")


def write_outputs(analysis: TraceAnalysis, output: Path,
                  guidelines: Path | None = None) -> tuple[Path, Path]:
    """Write the report and update (not overwrite) the guidelines file."""
    ensure_writable_folder(output)
    report_path = output / REPORT_NAME
    write_text(report_path, render_report(analysis))
    guide = guidelines_path(output, guidelines)
    existing = read_guidelines(guide)
    write_text(guide, update_guidelines(existing, render_insights(analysis)))
    return report_path, guide
