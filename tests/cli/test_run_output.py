"""`assay run` in a CI log or a pipe: progress lines while it runs, and lines never broken.

Regression: piped output wrapped mid-phrase at 80 columns, cut table cells
(`3,366/3…`) and printed nothing until the run ended, so a long run in CI
looked hung.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

SLOW_AGENT = """
import time


def answer(case, condition):
    time.sleep(0.15)
    if case.metadata.get("hard") and condition.name == "plain":
        return "no idea"
    return case.expected
"""


def slow_project(root: Path, cases: int = 24) -> Path:
    (root / "agent.py").write_text(SLOW_AGENT)
    (root / "cases.jsonl").write_text("".join(
        json.dumps({"id": f"a-rather-long-case-identifier-{i:03d}", "input": "q",
                    "expected": "yes", "metadata": {"hard": i % 2 == 0}}) + "\n"
        for i in range(cases)))
    (root / "assay.yaml").write_text(
        "name: a-slow-experiment-with-a-long-name\ndataset: {path: cases.jsonl}\n"
        "target: {type: python, function: 'agent.py:answer'}\n"
        "conditions: {plain: {}, with-the-knowledge-pack-of-go-documentation: {}}\n"
        "scorers: [{type: exact_match}]\nrun: {concurrency: 1}\n")
    return root


def piped_env(root: Path) -> dict[str, str]:
    env = {**os.environ, "ASSAY_STORE": str(root / "s.db"), "ASSAY_PROGRESS_SECONDS": "0.5"}
    env.pop("COLUMNS", None)
    env.pop("LINES", None)
    return env


def test_a_piped_slow_run_prints_progress_lines_while_it_runs(tmp_path: Path) -> None:
    root = slow_project(tmp_path)
    process = subprocess.Popen(
        [sys.executable, "-m", "assay", "run", "assay.yaml"], cwd=root, env=piped_env(root),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[tuple[str, bool]] = []  # (line, the run was still going when it arrived)
    try:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append((line.rstrip("\n"), process.poll() is None))
        process.wait(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, process.stderr.read() if process.stderr else ""
    named = [text for text, _ in lines if text.startswith("a-slow-experiment-with-a-long-name: ")]
    progress = [text for text in named if "reviewing" not in text]
    assert named[len(progress)] == ("a-slow-experiment-with-a-long-name: reviewing 48 trials "
                                    "(summary, comparisons, report files)")
    early = [text for text, running in lines if running and "trials (" in text
             and not text.startswith("a-slow-experiment-with-a-long-name: 48/48")]
    assert len(early) >= 2, lines  # several lines before the run had finished
    assert progress[-1].startswith("a-slow-experiment-with-a-long-name: 48/48 trials (100%), "
                                   "0 with an error")
    assert progress[0] == "a-slow-experiment-with-a-long-name: 0/48 trials (0%), 0 with an error"
    for text in progress[1:]:
        assert re.fullmatch(r"[\w-]+: \d+/48 trials \(\d+%\), \d+ with an error"
                            r"(, [\d.]+ trials/s(, ETA \w+)?)?", text), text


def test_piped_output_has_no_line_broken_at_80_columns_and_no_cut_cell(tmp_path: Path) -> None:
    root = slow_project(tmp_path, cases=6)
    done = subprocess.run([sys.executable, "-m", "assay", "run", "assay.yaml", "--no-progress"],
                          cwd=root, env={**piped_env(root), "ASSAY_PROGRESS_SECONDS": "60"},
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    verdict = lines[0]
    assert verdict.startswith("'with-the-knowledge-pack-of-go-documentation' is ")
    assert verdict.endswith(".") and len(verdict) > 80  # one line, however long
    assert "…" not in done.stdout  # no cell was cut
    comparison = next(line for line in lines if "exact_match · with-the-knowledge" in line)
    assert comparison.rstrip().endswith("n=6")  # the whole row, on one line
    assert not any(line.startswith("a-slow-experiment-with-a-long-name: ")
                   for line in lines)  # --no-progress


def test_quiet_prints_the_verdict_gates_and_files_only(tmp_path: Path) -> None:
    root = slow_project(tmp_path, cases=2)
    (root / "assay.yaml").write_text((root / "assay.yaml").read_text() + "gates:\n"
                                     "  - {scorer: exact_match, min_pass_rate: 0.9}\n")
    done = subprocess.run([sys.executable, "-m", "assay", "run", "assay.yaml", "--quiet"],
                          cwd=root, env=piped_env(root), capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("'with-the-knowledge-pack-of-go-documentation' is ")
    assert [line.split(" gate ")[0] for line in lines[1:3]] == ["FAIL", "PASS"] or \
        [line.split(" gate ")[0] for line in lines[1:3]] == ["PASS", "FAIL"]
    assert [line.split(":")[0] for line in lines[3:]] == ["results", "report", "html"]


def test_quiet_still_says_a_gate_was_not_checked_so_its_exit_0_is_not_read_as_a_pass(
        tmp_path: Path) -> None:
    """Regression: `-q --condition plain` printed only `PASS gate exact_match@plain` and
    exited 0; the warning that the gate on the other condition was not checked was
    left out with the other warnings, though it qualifies that exit 0."""
    root = slow_project(tmp_path, cases=2)
    (root / "assay.yaml").write_text((root / "assay.yaml").read_text() + "gates:\n"
                                     "  - {scorer: exact_match, condition: plain, "
                                     "min_pass_rate: 0.4}\n"
                                     "  - {scorer: exact_match, condition: "
                                     "with-the-knowledge-pack-of-go-documentation, "
                                     "min_pass_rate: 0.9}\n")
    done = subprocess.run([sys.executable, "-m", "assay", "run", "assay.yaml", "-q",
                           "--condition", "plain"], cwd=root, env=piped_env(root),
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert ("warning: 1 gate not checked: exact_match@with-the-knowledge-pack-of-go-"
            "documentation, on a condition this run leaves out (--condition plain)"
            in " ".join((done.stdout + done.stderr).split())), done.stdout


def test_verbose_adds_the_method_of_each_comparison(tmp_path: Path) -> None:
    root = slow_project(tmp_path, cases=2)
    done = subprocess.run([sys.executable, "-m", "assay", "run", "assay.yaml", "-v"],
                          cwd=root, env=piped_env(root), capture_output=True, text=True,
                          timeout=120, check=False)
    assert "interval: " in done.stdout and "test: asymptotic McNemar" in done.stdout, done.stdout


def test_quiet_and_verbose_together_are_refused(tmp_path: Path) -> None:
    root = slow_project(tmp_path, cases=2)
    done = subprocess.run([sys.executable, "-m", "assay", "run", "assay.yaml", "-q", "-v"],
                          cwd=root, env=piped_env(root), capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 2 and "--quiet and --verbose" in done.stderr
