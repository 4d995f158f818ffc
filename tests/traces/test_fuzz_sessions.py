"""Fuzz: 1,000 damaged copies of the real session logs go through the whole analysis (read,
exchanges, metrics, eval-report.md, guidelines.md) with no internal error and no hang.

Each input is a window of lines from a real log in shared/fixtures/sessions with one to
three lines damaged: a field of the wrong type, a key dropped or added, deep nesting,
hostile text, bytes cut or flipped. A damaged line may be counted as malformed, and a
damaged file may be "not a session file" (a clear error); nothing may raise anything else.
Gzipped copies (`.jsonl.gz`), some with the archive damaged, go the same way.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from assay.errors import UserError
from assay.traces.guidelines import render_insights, update_guidelines
from assay.traces.options import TraceOptions
from assay.traces.pipeline import analyze
from assay.traces.report import render_report
from assay.traces.result import TraceAnalysis
from tests.fuzzing import Mutator, Tally, dump_json, run_input

INPUTS = 1_000
GZIPPED_INPUTS = 300
WINDOW = 40


def _lines(sessions_dir: Path) -> list[list[bytes]]:
    return [path.read_bytes().splitlines() for path in sorted(sessions_dir.rglob("*.jsonl"))]


def _analysed(path: Path) -> TraceAnalysis:
    """The analysis of one session file, rendered as a report and as guidelines."""
    analysis = analyze([path], TraceOptions())
    render_report(analysis)
    update_guidelines("# Rules\n", render_insights(analysis))
    return analysis


def _damaged_log(logs: list[list[bytes]], mutator: Mutator) -> bytes:
    """A window of lines of one real log, one to three of them damaged."""
    lines = mutator.random.choice(logs)
    start = mutator.random.randrange(max(1, len(lines) - WINDOW))
    window = list(lines[start:start + WINDOW])
    for _ in range(mutator.random.randint(1, 3)):
        at = mutator.random.randrange(len(window))
        if mutator.random.random() < 0.7:
            try:
                window[at] = dump_json(mutator.mutate(json.loads(window[at]))).encode()
            except (ValueError, RecursionError):
                window[at] = mutator.damage(window[at])
        else:
            window[at] = mutator.damage(window[at])
    return b"\n".join(window) + b"\n"


def _tallied(tally: Tally, index: int, path: Path) -> None:
    """Analyse one input and count how it ended."""
    ended = run_input(UserError, _analysed, path)
    if tally.record(f"input {index} ({path.name})", ended):
        analysis = ended.result
        tally.outcomes["malformed lines"] += sum(
            s.meta.stats.malformed_count for s in analysis.sessions if s.meta.stats)
        tally.outcomes["not a session"] += len(analysis.unreadable)


def test_a_thousand_damaged_session_logs_end_in_results_or_clear_errors(
        sessions_dir: Path, tmp_path: Path) -> None:
    logs = _lines(sessions_dir)
    mutator = Mutator(seed=12)
    tally = Tally(INPUTS, accepted="analysed", refused="not a session")
    for index in range(INPUTS):
        path = tmp_path / f"s{index % 10}" / f"session-{index}.jsonl"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(_damaged_log(logs, mutator))
        _tallied(tally, index, path)
        path.unlink()
    tally.check({"analysed": INPUTS // 2, "malformed lines": 0})


def test_damaged_gzipped_session_logs_end_in_results_or_clear_errors(
        sessions_dir: Path, tmp_path: Path) -> None:
    """The same damaged logs, gzipped, half of them with the archive itself damaged too (cut
    short, a byte flipped, bytes dropped or inserted): the damage is said, never raised."""
    logs = _lines(sessions_dir)
    mutator = Mutator(seed=13)
    tally = Tally(GZIPPED_INPUTS, accepted="analysed", refused="not a session")
    for index in range(GZIPPED_INPUTS):
        packed = gzip.compress(_damaged_log(logs, mutator), mtime=0)
        if index % 2:
            packed = mutator.damage(packed)
        path = tmp_path / f"s{index % 10}" / f"session-{index}.jsonl.gz"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(packed)
        _tallied(tally, index, path)
        path.unlink()
    tally.check({"analysed": GZIPPED_INPUTS // 3, "not a session": 0, "malformed lines": 0})
