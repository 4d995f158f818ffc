"""The command target: case JSON on stdin, answer on stdout, failures as trial errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .conftest import Cli

SCRIPT = """
import json, os, sys
case = json.load(sys.stdin)
if case["id"] == "crash":
    print("it broke", file=sys.stderr)
    sys.exit(4)
mode = sys.argv[1] if len(sys.argv) > 1 else "plain"
answer = case["expected"] if mode == "good" else "no idea"
print(answer + " via " + os.environ["ASSAY_CONDITION"])
"""


def test_command_target_runs_per_condition_flags_and_records_failures(
        cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(SCRIPT)
    (tmp_path / "cases.jsonl").write_text(
        '{"id": "a", "input": "q", "expected": "yes"}\n'
        '{"id": "crash", "input": "q", "expected": "yes"}\n')
    (tmp_path / "assay.yaml").write_text(
        "name: cmd\ndataset: {path: cases.jsonl}\n"
        f"target: {{type: command, command: ['{sys.executable}', agent.py]}}\n"
        "conditions: {plain: {}, good: {args: [good]}}\n"
        "scorers: [{type: contains}]\n")
    assert cli("run", "assay.yaml", "-o", "out").returncode == 0
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    by_key = {(t["case_id"], t["condition"]): t for t in results["trials"]}
    assert by_key[("a", "good")]["output"]["text"] == "yes via good"
    assert by_key[("a", "good")]["scores"]["contains"]["passed"] is True
    assert by_key[("a", "plain")]["scores"]["contains"]["passed"] is False
    assert by_key[("crash", "good")]["error"] == "exit code 4: it broke"
    assert by_key[("crash", "good")]["scores"] == {}


def test_a_slow_target_times_out_as_an_error(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text(
        "import json, sys, time\nif json.load(sys.stdin)['id'] == 'slow':\n"
        "    time.sleep(30)\nprint('y')\n")
    (tmp_path / "cases.jsonl").write_text('{"id": "slow", "input": "q", "expected": "y"}\n'
                                          '{"id": "quick", "input": "q", "expected": "y"}\n')
    (tmp_path / "assay.yaml").write_text(
        "name: slow\ndataset: {path: cases.jsonl}\n"
        f"target: {{type: command, command: ['{sys.executable}', agent.py]}}\n"
        "scorers: [{type: contains}]\nrun: {timeout: 3}\n")
    assert cli("run", "assay.yaml", "-o", "out", timeout=90).returncode == 0
    trials = json.loads((tmp_path / "out" / "results.json").read_text())["trials"]
    errors = {t["case_id"]: t["error"] for t in trials}
    assert errors == {"slow": "timeout: no answer within 3s", "quick": None}
