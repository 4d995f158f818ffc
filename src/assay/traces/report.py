"""`eval-report.md`: what a person reads to see how the agent used its knowledge."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath

from assay.reports.text import inline
from assay.reports.trace_performance import performance
from assay.traces.findings import Asked, Finding
from assay.traces.formats import ParseStats
from assay.traces.repeats import repeat_notes
from assay.traces.result import TraceAnalysis
from assay.traces.sessions import file_stats
from assay.wording import capitalised, plural

QUESTION_CHARS = 100
"""A question is cut to about a line in the report's tables."""

def _cell(text: object, limit: int = 120) -> str:
    """Text from a log as one escaped line, fit for a table cell or a list item."""
    return inline(text, limit)


def _path(path: object) -> str:
    """A file's path as one escaped line, whole: cut, it names no file anyone could find."""
    return inline(path, None)


def render_report(analysis: TraceAnalysis) -> str:
    m = analysis.metrics
    folded = analysis.subagent_files
    lines = [
        "# Eval report",
        "",
        f"{plural(m.sessions, 'session')}, {plural(m.exchanges, 'question')} "
        f"({m.answered:,} answered)"
        + (f"; {plural(folded, 'subagent file')} counted with the session that started it"
           if folded else "") + ".",
        "",
        *([f"{capitalised(analysis.selection.note())}.", ""] if analysis.selection else []),
        "## Performance",
        "",
        "| metric | value |",
        "| --- | --- |",
    ]
    target = analysis.hit_rate_target if analysis.knowledge else None
    lines += [f"| {name} | {value} |" for name, value in performance(m.to_dict(), target)]
    lines += [""]
    lines += _most_read(m.most_read)
    lines += _judged(analysis)
    lines += _sources(analysis)
    return "\n".join(lines).rstrip() + "\n"


def _most_read(most_read: Sequence[tuple[str, int]]) -> list[str]:
    lines = ["## Most-read files", ""]
    if not most_read:
        return lines + ["No source files were read.", ""]
    lines += ["| file | questions that read it |", "| --- | --- |"]
    lines += [f"| {_path(path)} | {count:,} |" for path, count in most_read]
    return lines + [""]


def _question(asked: Asked, fallback: str) -> str:
    """The question cut to a line, or the exchange id when the question is unknown."""
    return _cell(asked.question or fallback, QUESTION_CHARS)


def _where(asked: Asked) -> str:
    """`session name (logs/s.jsonl:12), 2026-03-01 14:02`: the session, the file and line
    to open, and when the question was asked; the path whole, as a cut one names no file."""
    when = asked.at[:16].replace("T", " ") if asked.at else ""
    return inline(", ".join(part for part in (asked.place, when) if part) or "-", None)


def _findings_table(findings: Sequence[Finding]) -> list[str]:
    if not findings:
        return ["None.", ""]
    lines = ["| question | session, asked | type | detail | recommendation |",
             "| --- | --- | --- | --- | --- |"]
    lines += [f"| {_question(f.asked, f.exchange_id)} | {_where(f.asked)} | {_cell(f.type)} "
              f"| {_cell(f.detail)} | {_cell(f.recommendation)} |" for f in findings]
    return lines + [""]


def _judged(analysis: TraceAnalysis) -> list[str]:
    judgements = analysis.judgements
    if judgements is None:
        return ["## Findings", "",
                ("No judge model was configured (`--judge-model`), so answers were not checked "
                "against the files read. The figures above need no model."), ""]
    lines = ["## Findings", "",
             (f"Judge `{judgements.model}` checked {judgements.judged:,} of "
             f"{plural(judgements.asked, 'answered question')}."), ""]
    incomplete = judgements.incomplete()
    if incomplete:
        lines += [(f"**Incomplete:** {incomplete} (see Not judged below); the findings "
                   f"cover the other {judgements.judged:,}."), ""]
    citations = analysis.findings_of("citation", "contradiction")
    lines += ["### Citations", ""]
    if citations:
        answers = len({f.exchange_id for f in citations})
        lines += [(f"{plural(len(citations), 'citation or contradiction problem')} in "
                   f"{answers:,} of {plural(judgements.judged, 'answer')} judged."), ""]
    else:
        lines += ["No citation or contradiction problems.", ""]
    errors = [f for f in analysis.findings if f.severity == "error"]
    warnings = [f for f in analysis.findings if f.severity == "warning"]
    lines += ["### Errors", ""] + _findings_table(errors)
    lines += ["### Warnings", ""] + _findings_table(warnings)
    if analysis.knowledge:
        gaps = analysis.findings_of("wiki-gap")
        lines += ["### Wiki gaps", ""]
        lines += [f"- {_cell(g.detail, 200)} ({_question(g.asked, g.exchange_id)})"
                  for g in gaps] or ["None."]
        lines.append("")
    if analysis.judge_errors:
        lines += ["### Not judged", "",
                  "These questions have no judgement (not the same as no findings):", ""]
        lines += [f"- {_question(j.asked, j.exchange_id)} ({_where(j.asked)}): "
                  f"{_cell(j.error or '', 200)}" for j in analysis.judge_errors]
        lines.append("")
    return lines


def _sources(analysis: TraceAnalysis) -> list[str]:
    """One row per session that held a question, with its id, as a file may hold several;
    a file's line problems are said on its first row. A file with no such session is
    named below the table, with its line problems."""
    lines = ["## Sessions read", "", "| file | session | format | questions | line problems |",
             "| --- | --- | --- | --- | --- |"]
    listed = [session for session in analysis.sessions if session.held_questions]
    unsaid = iter(file_stats(listed))  # each file's, in the order first met
    next_unsaid = next(unsaid, None)
    for session in listed:
        stats = session.meta.stats
        if stats is None:
            skipped = "none"
        elif stats is not next_unsaid:
            skipped = "as above (same file)"
        else:
            next_unsaid = next(unsaid, None)
            skipped = _skips(stats) or "none"
        lines.append(f"| {_cell(PurePosixPath(session.meta.path).name)} "
                     f"| {_cell(session.meta.id or '-')} | {_cell(session.meta.format)} "
                     f"| {session.questions:,} | {skipped} |")
    lines.append("")
    notes = [f"- {_cell(note, 400)}" for note in repeat_notes(analysis.sessions)]
    shown = {id(stats) for stats in file_stats(listed)}
    notes += [f"- no question in {_path(stats.path)}" + (f": {skips}" if (skips := _skips(stats))
                                                         else "")
              for stats in file_stats(analysis.sessions) if id(stats) not in shown]
    notes += [f"- not read: {_path(bad.path)}: {_cell(bad.reason, 1000)}"
              for bad in analysis.unreadable]
    return lines + notes + ([""] if notes else [])


def _skips(stats: ParseStats) -> str:
    parts = [said for said in [stats.malformed_lines(lambda reason: _cell(reason, 60))] if said]
    parts += [f"unknown {kind}" for kind in stats.unknown_kinds(lambda k: _cell(k, 60))]
    parts += [said for said in (stats.orphaned(), stats.repeated()) if said]
    return "; ".join(parts)
