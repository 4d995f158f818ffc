"""A run answered wholly from the response cache still shows its cost table: cached answers are news."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import Cli


@pytest.fixture
def fake_llm_url() -> Iterator[str]:
    """The fake LLM server in its own process (every answer is "y"), for the CLI to call."""
    server = subprocess.Popen([sys.executable, "-m", "assay.testing", "--reply", "y"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        yield server.stdout.readline().strip()
    finally:
        server.terminate()
        server.wait(timeout=10)


def cost_table(stdout: str) -> list[list[str]]:
    """The rows of the cost table (after its header's rule), split into cells; [] when it was
    not printed. Piped, a table has no borders: cells are two or more spaces apart."""
    if "cost and behaviour per condition" not in stdout:
        return []
    section = stdout.split("cost and behaviour per condition", 1)[1].splitlines()
    start = next(i for i, line in enumerate(section) if set(line.strip()) == {"─"})
    rows = []
    for line in section[start + 1:]:
        cells = re.split(r"\s{2,}", line.strip())
        if len(cells) != 8:  # condition ... tool calls, tool errors, turns
            break
        rows.append(cells)
    return rows


def test_a_fully_cached_run_shows_its_cache_hits(
        cli: Cli, tmp_path: Path, fake_llm_url: str) -> None:
    (tmp_path / "cases.jsonl").write_text('{"id": "a", "input": "q", "expected": "y"}\n'
                                          '{"id": "b", "input": "r", "expected": "y"}\n')
    (tmp_path / "assay.yaml").write_text(
        "name: cached\ndataset: {path: cases.jsonl}\n"
        "target: {type: model, model: openai/gpt-4.1-mini}\nscorers: [{type: contains}]\n")
    env = {"OPENAI_BASE_URL": fake_llm_url, "OPENAI_API_KEY": "sk-test-0123456789abcdef"}
    first = cli("run", "assay.yaml", "--no-progress", env=env)
    assert first.returncode == 0, first.stderr
    [paid] = cost_table(first.stdout)
    assert paid[0] == "default" and paid[4] == "0"  # no cache hit yet
    again = cli("run", "assay.yaml", "--no-progress", env=env)
    assert again.returncode == 0, again.stderr
    [cached] = cost_table(again.stdout)
    assert cached[:2] == ["default", "0/0"] and cached[4] == "2"  # both answers from the cache


def test_a_run_the_cache_answers_whole_needs_no_api_key_and_one_it_does_not_stops_saying_so(
        cli: Cli, tmp_path: Path, fake_llm_url: str) -> None:
    """Regression: re-running from a warm cache without the key (a CI job without secrets)
    was refused, exit 2: 'provider 'anthropic' needs an API key'. Every answer in the cache,
    the run now completes from it, warned; a case the cache does not hold stops the run,
    exit 3, saying which key would answer it and how to resume."""
    (tmp_path / "cases.jsonl").write_text('{"id": "a", "input": "q", "expected": "y"}\n')
    (tmp_path / "assay.yaml").write_text(
        "name: cached\ndataset: {path: cases.jsonl}\n"
        "target: {type: model, model: anthropic/claude-haiku-4-5}\nscorers: [{type: contains}]\n")
    served = {"ANTHROPIC_BASE_URL": fake_llm_url.removesuffix("/v1")}
    first = cli("run", "assay.yaml", "--no-progress",
                env={**served, "ANTHROPIC_API_KEY": "sk-ant-test-0123456789abcdef"})
    assert first.returncode == 0, first.stderr
    keyless = {**served, "ANTHROPIC_API_KEY": ""}
    again = cli("run", "assay.yaml", "--no-progress", env=keyless)
    assert again.returncode == 0, again.stderr
    assert cost_table(again.stdout)[0][4] == "1"  # answered from the cache
    assert "the response cache holds replies of 'anthropic', so a run goes on" in again.stdout
    with (tmp_path / "cases.jsonl").open("a") as cases:
        cases.write('{"id": "b", "input": "new", "expected": "y"}\n')
    stopped = cli("run", "assay.yaml", "--no-progress", env=keyless)
    assert stopped.returncode == 3, stopped.stderr
    assert ("the response cache holds no reply to this call, and provider 'anthropic' needs an "
            "API key to make it: set the environment variable ANTHROPIC_API_KEY; the run is "
            "stopped\n  resume with: assay run assay.yaml --resume ") in stopped.stderr
    assert b"sk-ant-test" not in (tmp_path / "assay.db").read_bytes()


def test_a_run_without_any_llm_call_has_no_cost_table(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text("def answer(case):\n    return 'y'\n")
    (tmp_path / "cases.jsonl").write_text('{"id": "a", "input": "q", "expected": "y"}\n')
    (tmp_path / "assay.yaml").write_text(
        "name: local\ndataset: {path: cases.jsonl}\n"
        "target: {type: python, function: 'agent.py:answer'}\nscorers: [{type: contains}]\n")
    ran = cli("run", "assay.yaml", "--no-progress")
    assert ran.returncode == 0, ran.stderr
    assert cost_table(ran.stdout) == []


def test_once_one_condition_spent_the_table_lists_every_condition_as_report_md_does(
        cli: Cli, tmp_path: Path) -> None:
    """Regression: a condition whose target reported no usage was left out of the terminal's
    table, while report.md listed it, so the table read as if it had not been run."""
    (tmp_path / "agent.py").write_text(
        "def answer(case, paid=False):\n"
        "    usage = {'input_tokens': 10, 'cost_usd': 0.002} if paid else None\n"
        "    return {'output': 'y', 'usage': usage}\n")
    (tmp_path / "cases.jsonl").write_text('{"id": "a", "input": "q", "expected": "y"}\n')
    (tmp_path / "assay.yaml").write_text(
        "name: local\ndataset: {path: cases.jsonl}\n"
        "target: {type: python, function: 'agent.py:answer'}\nscorers: [{type: contains}]\n"
        "conditions: {free: {}, paid: {args: {paid: true}}}\n")
    ran = cli("run", "assay.yaml", "--no-progress")
    assert ran.returncode == 0, ran.stderr
    rows = {row[0]: row for row in cost_table(ran.stdout)}
    assert rows["paid"][1:3] == ["10/0", "$0.0020"]
    assert rows["free"][1:3] == ["unknown", "-"]
