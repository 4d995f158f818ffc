"""Every example runs offline with the one command its README gives.

The command is read from the README's "Run it offline" section and run as a
person would (with this interpreter standing in for `uv run`), from a copy of
`examples/` in a scratch folder. Each example then has checks of what its
numbers must show: properties that hold for any sound model and judge, and
fail when the fake server's judge or model, or assay, is broken. And every
line of output its README shows is printed, so the page shows what a reader
will see.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from assay.testing.launcher import resolve_command

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(path.name for path in (REPO / "examples").iterdir() if path.is_dir())
UNSET = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL",
         "ASSAY_STORE", "ASSAY_MODEL", "ASSAY_JUDGE_MODEL")


def offline_command(example: str) -> list[str]:
    """The single command in the "Run it offline" section of the example's README."""
    text = (REPO / "examples" / example / "README.md").read_text()
    section = re.search(r"^## Run it offline\n(.*?)(?=^## |\Z)", text, re.MULTILINE | re.DOTALL)
    assert section, f"examples/{example}/README.md has no '## Run it offline' section"
    block = re.search(r"```sh\n(.*?)```", section.group(1), re.DOTALL)
    assert block, f"examples/{example}/README.md: no ```sh block under 'Run it offline'"
    lines = [line for line in block.group(1).splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    assert len(lines) == 1, f"examples/{example}/README.md: give one offline command: {lines}"
    return shlex.split(lines[0])


def run_offline(example: str, workdir: Path) -> tuple[subprocess.CompletedProcess[str],
                                                      dict[str, Any] | None]:
    """Run the example's offline command from a copy of examples/; its results.json if any."""
    shutil.copytree(REPO / "examples", workdir / "examples",
                    ignore=shutil.ignore_patterns(".assay", "__pycache__"))
    command = offline_command(example)
    if command[:2] == ["uv", "run"]:
        command = command[2:]  # this interpreter is the environment `uv run` would give
    env = {name: value for name, value in os.environ.items() if name not in UNSET}
    env["COLUMNS"] = "120"  # the width the READMEs show their output at
    result = subprocess.run(resolve_command(command), cwd=workdir, env=env, capture_output=True,
                            text=True, timeout=300, check=False)
    found = sorted(workdir.glob(".assay/runs/*/results.json"))
    return result, json.loads(found[-1].read_text()) if found else None


RUN_ID = re.compile(r"\b(?:cal-)?\d{8}-\d{6}-[0-9a-f]{6}\b")
STARTED = re.compile(r"\b\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}\b")


def as_compared(text: str) -> str:
    """`text` with run ids and times made alike and its spacing and line breaks as one space:
    what a README shows and what a run prints differ in those alone."""
    return " ".join(STARTED.sub("TIME", RUN_ID.sub("RUN", text)).split())


def shown_output(example: str) -> list[str]:
    """Each line of the output the example's README shows (its ```text blocks), but for
    the `[...]` that stands for lines left out."""
    text = (REPO / "examples" / example / "README.md").read_text()
    return [line for block in re.findall(r"```text\n(.*?)```", text, re.DOTALL)
            for line in block.splitlines()
            if line.strip() and not line.strip().startswith(("[...]", "..."))]


def conditions(results: dict[str, Any], scorer: str) -> dict[str, dict[str, Any]]:
    return results["summary"][scorer]["conditions"]


def check_knowledge_packs(result: subprocess.CompletedProcess[str],
                          results: dict[str, Any] | None, _workdir: Path) -> None:
    """The judge reads every answer; the pack beats training, significantly."""
    assert results is not None, result.stderr
    scores = conditions(results, "judge_score")
    assert scores["training"]["errors"] == scores["pack"]["errors"] == 0
    assert scores["pack"]["avg"] >= scores["training"]["avg"] + 3
    assert scores["pack"]["accuracy"] > scores["training"]["accuracy"]
    [comparison] = results["comparisons"]["comparisons"]
    assert comparison["label_b"] == "pack" and comparison["significant"]
    assert len(set(results["summary"]["judge_score"]["scores"]["pack"])) >= 4  # it discriminates
    for trial in results["trials"]:
        assert trial["scores"]["judge_score"]["error"] is None
    # The copying model stays short of the 80% gate, so the run exits 1 for that alone.
    failed = [gate for gate in results["gates"] if not gate["passed"]]
    assert result.returncode == (1 if failed else 0), result.stderr
    assert all(gate["gate"].startswith("judge_score@pack") for gate in failed)


def walkthrough_step(stdout: str, command: str) -> str:
    """The output of the walkthrough's one command (printed as `$ assay ...`) that contains
    `command`."""
    parts = re.split(r"^\$ (assay .*)$", stdout, flags=re.MULTILINE)
    found = [parts[i + 1] for i in range(1, len(parts), 2) if command in parts[i]]
    assert len(found) == 1, f"{len(found)} commands with '{command}' in:\n{stdout}"
    return found[0]


def percent_interval(text: str, label: str) -> tuple[float, float, float]:
    """`label  93.8%  83.2%–97.9%` (or `label 70.8% [57%–82%]`) as fractions."""
    found = re.search(re.escape(label) + r"\s+([\d.]+)%\s+\[?([\d.]+)%–([\d.]+)%", text)
    assert found, f"no '{label}' with an interval in:\n{text}"
    value, low, high = (float(number) / 100 for number in found.groups())
    return value, low, high


def check_judge_calibration(result: subprocess.CompletedProcess[str],
                            results: dict[str, Any] | None, _workdir: Path) -> None:
    """The planted judge (90% agreement with its true labels, 70% first position) is
    measured so; the re-judged run called no model and found the judge's own noise."""
    assert result.returncode == 0, result.stderr
    calibration = walkthrough_step(result.stdout, "calibrate examples/judge-calibration/assay")
    assert "PASS: agreement" in calibration and "3 raters per item" in calibration
    _, low, high = percent_interval(calibration, "raw agreement")
    assert low <= 0.9 <= high
    # the run: pack beats training pairwise, and the pairwise judge's first-position lean shows
    run = walkthrough_step(result.stdout, "assay run ")
    _, low, high = percent_interval(run, "first-position rate")
    assert low <= 0.7 <= high and low > 0.5
    assert "verdict pack preferred" in run and "changed winner with the order" in run
    # the calibrated 0-10 judge is not called uncalibrated; the pairwise one, unchecked, is
    assert re.search(r"uncalibrated judge: pairwise \(\S+\) has no passing calibration", run)
    # the re-judged run: a new run linked to the first
    assert results is not None
    judges = results["judges"]
    assert judges["rejudge_of"] and judges["rejudge_of"] in run
    [consistency] = [c for c in judges["consistency"] if c["scorer"] == "judge_score"]
    assert consistency["repeats"] == 3 and 0 < consistency["flip_rate"] < 0.5
    assert sum(row["unstable"] for row in judges["unstable"]) > 0
    # another tool's verdicts in both orders: read, measured, held to their bar
    recorded = walkthrough_step(result.stdout, "recorded.yaml")
    assert "accuracy, A shown first" in recorded and "accuracy, B shown first" in recorded
    assert "BELOW THE BAR" in recorded and "(exit 1: below the bar)" in recorded
    listed = walkthrough_step(result.stdout, "--list")
    assert "judge_score" in listed and re.search(r"gpt-4(?![.\d])", listed)
    assert "preference" in listed


def check_mcp_context(result: subprocess.CompletedProcess[str],
                      results: dict[str, Any] | None, _workdir: Path) -> None:
    """Context makes the difference, and only the MCP condition calls a tool."""
    assert result.returncode == 0, result.stderr
    assert results is not None
    found = conditions(results, "contains")
    assert all(found[name]["errors"] == 0 for name in found)
    assert found["pack-rag"]["accuracy"] > found["baseline"]["accuracy"]
    assert found["pack-mcp"]["accuracy"] > found["baseline"]["accuracy"]
    searched = conditions(results, "tool_calls")
    assert searched["pack-mcp"]["accuracy"] == 100.0
    assert searched["baseline"]["accuracy"] == searched["pack-rag"]["accuracy"] == 0.0


def check_quickstart(result: subprocess.CompletedProcess[str],
                     results: dict[str, Any] | None, _workdir: Path) -> None:
    """Looking things up beats memory, and the gate passes."""
    assert result.returncode == 0, result.stderr
    assert results is not None
    found = conditions(results, "contains")
    assert found["docs"]["accuracy"] > found["memory"]["accuracy"]
    assert results["gates"] and all(gate["passed"] for gate in results["gates"])


def check_python_api(result: subprocess.CompletedProcess[str],
                     results: dict[str, Any] | None, _workdir: Path) -> None:
    """The script's eval completes and its gates pass."""
    assert result.returncode == 0, result.stderr
    assert "first completed run of this experiment" in result.stdout


def check_pytest(result: subprocess.CompletedProcess[str],
                 results: dict[str, Any] | None, workdir: Path) -> None:
    """The tests pass and fail as their thresholds say, and the failure names its cases."""
    assert results is not None, result.stdout + result.stderr
    assert result.returncode == 1, result.stdout + result.stderr
    assert re.search(r"^=+ 1 failed, 2 passed|^1 failed, 2 passed", result.stdout, re.MULTILINE)
    # three runs, the last two maybe in the same second: take a run of assay.yaml
    results = next(found for found in map(json.loads, map(Path.read_text, sorted(
        workdir.glob(".assay/runs/*/results.json")))) if found["run"]["experiment"] ==
        "support-bot")
    found = conditions(results, "contains")
    assert found["v1"]["accuracy"] < 80 <= found["v2"]["accuracy"]  # the thresholds' 0.8
    missed = [t for t in results["trials"]
              if t["condition"] == "v1" and not t["scores"]["contains"]["passed"]]
    assert missed
    asked = sum(t["condition"] == "v1" for t in results["trials"])
    assert f"contains @ v1: {len(missed)} of {asked} trials did not pass" in result.stdout
    for trial in missed:
        reason = trial["scores"]["contains"]["reason"]
        assert f"{trial['case_id']}: {reason}" in result.stdout


def check_replay(result: subprocess.CompletedProcess[str],
                 results: dict[str, Any] | None, workdir: Path) -> None:
    """Every question of the sessions is asked again; an answer is worse than the recorded
    one exactly when its condition lacks the docs the agent read then, and the printed
    section lists each of those with the recorded answer."""
    assert result.returncode == 0, result.stdout + result.stderr
    assert results is not None, result.stdout + result.stderr
    example = workdir / "examples" / "replay"
    cases = {case["id"]: case for case in map(json.loads, (example / "cases.jsonl").open())}
    recorded = [json.loads(line) for path in sorted((example / "sessions").glob("*.jsonl"))
                for line in path.open()]
    answers = [m["content"] for m in recorded if m["role"] == "assistant" and m["content"]
               and not m.get("tool_calls")]
    assert sorted(case["reference"] for case in cases.values()) == sorted(answers)
    docs = {path.relative_to(example).as_posix() for path in (example / "docs").glob("*.md")}
    assert len(results["trials"]) == 2 * len(cases)
    worse = []
    for trial in results["trials"]:
        score = trial["scores"]["vs_recorded"]
        assert score["error"] is None
        read = cases[trial["case_id"]]["metadata"]["files_read"]
        has_docs = trial["condition"] == "docs" and set(read) <= docs
        assert score["passed"] == has_docs, (trial["case_id"], trial["condition"], read)
        if not score["passed"]:
            worse.append(trial)
    assert worse and any(t["condition"] == "docs" for t in worse)  # power.md is gone
    shown = result.stdout[result.stdout.index("## Worse than the recorded answer"):]
    assert f"{len(worse)} of {len(results['trials'])} replayed answers are worse" in shown
    for trial in worse:
        assert f"### `{trial['case_id']}` · {trial['condition']} · vs_recorded" in shown
        assert f"- then: {cases[trial['case_id']]['reference']}" in shown


Check = Callable[[subprocess.CompletedProcess[str], dict[str, Any] | None, Path], None]
"""What an example's run must show: its process, its results.json, the folder it ran in."""
CHECKS: dict[str, Check] = {
    "judge-calibration": check_judge_calibration,
    "knowledge-packs": check_knowledge_packs,
    "mcp-context": check_mcp_context,
    "quickstart": check_quickstart,
    "python-api": check_python_api,
    "pytest": check_pytest,
    "replay": check_replay,
}
SLOW = {"judge-calibration", "knowledge-packs", "mcp-context"}


def test_every_example_has_an_offline_command_and_checks() -> None:
    assert sorted(CHECKS) == EXAMPLES
    for example in EXAMPLES:
        offline_command(example)


@pytest.mark.parametrize("example", [
    pytest.param(name, marks=[pytest.mark.slow] if name in SLOW else []) for name in EXAMPLES])
def test_the_example_runs_offline_with_its_readme_command_and_prints_what_it_shows(
        example: str, tmp_path: Path) -> None:
    result, results = run_offline(example, tmp_path)
    CHECKS[example](result, results, tmp_path)
    printed = as_compared(result.stdout)
    not_printed = [line for line in shown_output(example) if as_compared(line) not in printed]
    assert not not_printed, (f"examples/{example}/README.md shows lines its command does not "
                             "print:\n" + "\n".join(not_printed) + "\n\nit printed:\n" +
                             result.stdout)
