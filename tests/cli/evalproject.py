"""A small eval project in a temp dir: a seeded python target that passes with a set probability.

Each case draws u in [0, 1) from a hash of (stream, case id); the target answers
correctly when u < rate. Conditions with the same stream share their draws, so
a higher rate only ever adds passes (a real effect); different streams give
independent draws (noise).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from assay.cli import main

AGENT = '''
import hashlib


def answer(case, rate, stream="", broken=0):
    if 0 < int(case.id[1:]) <= broken:  # the first `broken` cases after q000 raise
        raise RuntimeError("the target broke")
    digest = hashlib.sha256(f"{stream}:{case.id}".encode()).digest()
    u = int.from_bytes(digest[:8], "big") / 2**64
    return case.expected if u < rate else "no idea"
'''


def write_project(root: Path, conditions: dict[str, dict[str, Any]], *, cases: int = 100,
                  name: str = "coin", config: str = "assay.yaml",
                  extra: dict[str, Any] | None = None) -> Path:
    """Write agent.py, questions.jsonl (unless present) and a config; returns the config path."""
    (root / "agent.py").write_text(AGENT, encoding="utf-8")
    dataset = root / "questions.jsonl"
    if not dataset.exists():
        dataset.write_text("".join(
            json.dumps({"id": f"q{i:03d}", "input": f"question {i}", "expected": f"answer-{i}"})
            + "\n" for i in range(cases)), encoding="utf-8")
    document = {
        "name": name,
        "dataset": {"path": "questions.jsonl"},
        "target": {"type": "python", "function": "agent.py:answer", "threaded": False},
        "conditions": {cond: {"args": args} for cond, args in conditions.items()},
        "scorers": [{"type": "exact_match"}],
        **(extra or {}),
    }
    path = root / config
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


STOPPING = '''
def answer(case, answered):
    if int(case.id[1:]) >= answered:
        raise RuntimeError("the service went down")
    return case.expected
'''


PRESSES_CTRL_C = '''
import os, signal, time

def answer(case, pressed_at):
    if int(case.id[1:]) == pressed_at:  # Ctrl-C while this trial runs
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.2)
    return case.expected
'''
"""A target that presses Ctrl-C (SIGINT to its own process) during case number
`pressed_at`, then finishes that trial."""


def write_stopping_project(root: Path, *, cases: int, answered: int, max_errors: int,
                           extra: dict[str, Any] | None = None) -> Path:
    """A project whose target answers its first `answered` cases, then fails on every case,
    one trial at a time: its error budget of `max_errors` stops the run part-way (exit 3)."""
    (root / "stopping.py").write_text(STOPPING, encoding="utf-8")
    return write_project(root, {"only": {"answered": answered}}, cases=cases, extra={
        "target": {"type": "python", "function": "stopping.py:answer", "threaded": False},
        "run": {"concurrency": 1, "max_errors": max_errors}, **(extra or {})})


def assay(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """Run the CLI in-process; returns (exit code, what it printed on stdout and stderr)."""
    code, out, err = assay_apart(capsys, *args)
    return code, out + err


def assay_apart(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """(exit code, stdout, stderr): for a document printed beside notes on stderr."""
    with pytest.raises(SystemExit) as exited:
        main(list(args))
    captured = capsys.readouterr()
    return int(exited.value.code or 0), captured.out, captured.err


def results(output_dir: Path) -> dict[str, Any]:
    return json.loads((output_dir / "results.json").read_text(encoding="utf-8"))


def report_and_largest_write(monkeypatch: pytest.MonkeyPatch, fmt: str) -> tuple[str, int]:
    """`assay report -f FMT` of the latest run, to stdout: the text, and the most it wrote
    at once (a report held whole before writing writes it in one piece)."""
    import io

    class Writes(io.StringIO):
        largest = 0

        def write(self, text: str) -> int:
            self.largest = max(self.largest, len(text))
            return super().write(text)

    written = Writes()
    monkeypatch.setattr("sys.stdout", written)
    with pytest.raises(SystemExit) as exited:
        main(["report", "-f", fmt, "--no-progress"])
    assert exited.value.code in (0, None)
    return written.getvalue(), written.largest
