"""Replay real support sessions: from a folder of sessions to a dataset, a run, and a diff.

    uv run python -m assay.testing -- python examples/replay/replay.py

Each step is a command you can also run by hand:

1. `assay traces export examples/replay/sessions -o examples/replay/cases.jsonl`
   turns every question asked in the sessions into a case whose `reference`
   is the answer the agent gave then;
2. `assay run examples/replay/assay.yaml` asks the questions again, under
   each condition, and the `vs_recorded` judge compares each new answer
   with the recorded one;
3. the run's `report.md` ends with the questions answered worse than then;
   this script prints that section.

The exit code is the run's (0 when its gates pass).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(os.path.relpath(Path(__file__).resolve().parent))
EXPERIMENT = "lamp-support-replay"
SECTION = "## Worse than the recorded answer"


def assay(*arguments: str) -> int:
    """Run one assay command as a person would, showing it first."""
    print(f"$ assay {' '.join(arguments)}", flush=True)
    return subprocess.run([sys.executable, "-m", "assay", *arguments], check=False).returncode


def worse_than_recorded() -> str:
    """The section of the latest run's report.md that lists the answers worse than then."""
    from assay.store import Store

    store = Store(None)
    try:
        run = store.resolve_run("latest", EXPERIMENT)
    finally:
        store.close()
    report = Path(".assay", "runs", run.id, "report.md").read_text(encoding="utf-8")
    at = report.find(SECTION)
    return report[at:] if at >= 0 else "No replayed answer is worse than the recorded one.\n"


def main() -> int:
    exported = assay("traces", "export", str(HERE / "sessions"), "-o", str(HERE / "cases.jsonl"))
    if exported != 0:
        return exported
    ran = assay("run", str(HERE / "assay.yaml"), "--no-progress")
    if ran not in (0, 1):  # 1: a gate failed, and the report still says why
        return ran
    print()
    print(worse_than_recorded(), end="")
    return ran


if __name__ == "__main__":
    sys.exit(main())
