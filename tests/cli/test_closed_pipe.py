"""`assay run ... | head`: when the reader of assay's output leaves, the output ends, the
command does not, and the exit code is still the command's own."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from assay.cli.closed_pipe import ReaderMayLeave
from assay.store import Store
from tests.cli.evalproject import write_project

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")


def assay_with_stdout_closed(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`assay ARGS` whose stdout reader has left before the first line (`| head -0`)."""
    process = subprocess.Popen([sys.executable, "-m", "assay", *args], cwd=cwd,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    stderr = process.stderr.read()
    return subprocess.CompletedProcess(process.args, process.wait(timeout=120), "", stderr)


@pytest.mark.parametrize("rate, code", [(1.0, 0), (0.0, 1)], ids=["gates pass", "a gate fails"])
def test_a_run_read_by_a_reader_that_left_exits_with_its_gates_verdict(
        tmp_path: Path, rate: float, code: int) -> None:
    """Before, click turned the broken pipe into exit 1: a run whose gates all passed failed
    a `set -o pipefail` CI step, reading as a failed gate."""
    write_project(tmp_path, {"only": {"rate": rate}}, cases=5,
                  extra={"gates": [{"scorer": "exact_match", "min_pass_rate": 0.5}]})
    result = assay_with_stdout_closed(tmp_path, "run", "assay.yaml")
    assert result.returncode == code, result.stderr
    assert "Traceback" not in result.stderr and "Broken pipe" not in result.stderr
    runs = Store(f"sqlite:///{tmp_path / '.assay' / 'assay.db'}").list_runs("coin")
    assert [run.status for run in runs] == ["completed"]


def test_a_suite_whose_reader_left_runs_every_config_and_writes_its_summary(
        tmp_path: Path) -> None:
    """Before, the suite stopped at the first review it printed, the second config never ran
    and no suite.json was written, and the process exited 1."""
    write_project(tmp_path, {"only": {"rate": 1.0}}, cases=5, name="first", config="a.yaml")
    write_project(tmp_path, {"only": {"rate": 1.0}}, cases=5, name="second", config="b.yaml")
    result = assay_with_stdout_closed(tmp_path, "run", "a.yaml", "b.yaml", "-o", "out")
    assert result.returncode == 0, result.stderr
    suite = json.loads((tmp_path / "out" / "suite.json").read_text(encoding="utf-8"))
    assert suite["packs_evaluated"] == 2 and suite["failed"] == []
    assert {pack: entry["exit_code"] for pack, entry in suite["per_pack"].items()} == {
        "first": 0, "second": 0}


class ClosedPipe(io.StringIO):
    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        raise BrokenPipeError(32, "Broken pipe")


def test_once_its_reader_has_gone_a_stream_takes_writes_without_an_error() -> None:
    stream = ReaderMayLeave(ClosedPipe())
    assert stream.write("the table\n") == len("the table\n")
    stream.flush()
    assert stream.reader_gone
    assert stream.write("more") == 4


def test_a_stream_whose_reader_stays_writes_through() -> None:
    target = io.StringIO()
    stream = ReaderMayLeave(target)
    stream.write("a line\n")
    stream.flush()
    assert target.getvalue() == "a line\n" and not stream.reader_gone
    assert stream.getvalue() == "a line\n"  # the rest of the stream's interface is its own


def assay_writing_to(device: str, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    with open(device, "w") as stdout:
        return subprocess.run([sys.executable, "-m", "assay", *args], cwd=cwd, stdout=stdout,
                              stderr=subprocess.PIPE, text=True, timeout=120, check=False)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="a device that is always full")
def test_output_to_a_full_disk_is_named_and_exits_3_once_the_command_has_ended(
        tmp_path: Path) -> None:
    """Before, `assay runs > /dev/full` (or a report redirected to a full disk) said
    'internal error: OSError: [Errno 28] No space left on device ... this is a bug in
    assay', and a run printing to it stopped there."""
    write_project(tmp_path, {"only": {"rate": 1.0}}, cases=5)
    ran = assay_writing_to("/dev/full", tmp_path, "run", "assay.yaml")
    listed = assay_writing_to("/dev/full", tmp_path, "runs")
    reported = assay_writing_to("/dev/full", tmp_path, "report", "latest", "-f", "json")
    for result in (ran, listed, reported):
        assert result.returncode == 3, result.stderr
        assert result.stderr.strip().splitlines()[-1] == (
            "error: could not write assay's stdout: No space left on device (its output is "
            "incomplete)"), result.stderr
        assert "internal error" not in result.stderr
    runs = Store(f"sqlite:///{tmp_path / '.assay' / 'assay.db'}").list_runs("coin")
    assert [run.status for run in runs] == ["completed"]  # the run itself went to its end
