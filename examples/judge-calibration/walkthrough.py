"""Check the judge, use it, and measure its noise: five assay commands in a row.

    uv run python -m assay.testing --labels examples/judge-calibration/judge_truth.jsonl \
        --label-agreement 0.9 --first-position-rate 0.7 \
        -- python examples/judge-calibration/walkthrough.py

Each command is printed before it runs, as you would type it. A command that
finds a judge below its bar exits 1 and the walk goes on (that is a finding);
one that cannot run (exit 2 or more) stops it, with its exit code.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(os.path.relpath(Path(__file__).resolve().parent))

STEPS: list[tuple[str, list[str]]] = [
    ("Hold the 0-10 judge against people's labels (it judges the labelled answers now)",
     ["calibrate", str(HERE / "assay.yaml")]),
    ("Run the eval: the calibrated judge scores each answer, the pairwise judge compares "
     "the conditions",
     ["run", str(HERE / "assay.yaml")]),
    ("Judge the stored answers three more times, with no calls to the model under test",
     ["rejudge", "latest", "-e", "judge-calibration", "--repeats", "3"]),
    ("Calibrate a pairwise judge from verdicts another tool recorded in both orders",
     ["calibrate", str(HERE / "recorded.yaml")]),
    ("The calibrations kept in the store",
     ["calibrate", "--list"]),
]


def main() -> int:
    for title, arguments in STEPS:
        print(f"\n# {title}\n$ assay {' '.join(arguments)}", flush=True)
        code = subprocess.run([sys.executable, "-m", "assay", *arguments],
                              check=False).returncode
        if code >= 2:
            print(f"stopped: `assay {arguments[0]}` exited {code}", file=sys.stderr)
            return code
        if code == 1:
            print("(exit 1: below the bar)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
