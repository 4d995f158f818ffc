"""Every benchmark the README lists runs, at a small size.

A benchmark drives assay's internals with stand-ins of its own (a toolbox, a
model); when those internals change and the stand-ins do not, the command the
README gives ends in a traceback. Each one runs here on a few cases, so that
is found before a reader finds it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")

# The README's command for each benchmark, made small: the arguments added to it.
SMALL = {
    "engine_throughput.py": ["--cases", "300"],
    "provider_throughput.py": ["--requests", "40", "--cases", "20"],  # --cases: through runner
    "traces_parse.py": ["--gb", "0.002"],
    "agent_loop.py": ["--trials", "5", "--repeat", "1"],
    "store_latency.py": ["--cases", "6"],
    "view_pages.py": ["--cases", "100", "--repeat", "1"],
    "python_isolation.py": ["--cases", "10", "--repeat", "1"],
}


def listed() -> list[list[str]]:
    """Each benchmark command of the README (`benchmarks/x.py` and its arguments), or a
    benchmark it names in prose, as a command with no arguments."""
    commands = [line.split("#")[0].split()[3:] for line in README.splitlines()
                if line.startswith("uv run python benchmarks/")]
    named = {command[0] for command in commands}
    commands += [[f"benchmarks/{name}"] for name in
                 sorted(set(re.findall(r"benchmarks/(\w+\.py)", README)))
                 if f"benchmarks/{name}" not in named]
    return commands


COMMANDS = listed()


def test_every_benchmark_the_readme_lists_has_a_small_size() -> None:
    assert {Path(command[0]).name for command in COMMANDS} == set(SMALL)


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS, ids=[" ".join(c) for c in COMMANDS])
def test_a_benchmark_the_readme_lists_runs(command: list[str]) -> None:
    name = Path(command[0]).name
    if name == "store_latency.py" and not os.environ.get("ASSAY_TEST_POSTGRES_URL"):
        pytest.skip("measures a PostgreSQL store: set ASSAY_TEST_POSTGRES_URL")
    result = subprocess.run([sys.executable, *command, *SMALL[name]], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
