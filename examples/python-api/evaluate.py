"""Evaluate a headline styler from Python: `uv run python examples/python-api/evaluate.py`.

Runs offline in about a second. Every run is kept under the experiment's name
in `.assay/assay.db` (or `$ASSAY_STORE`), so a second run is compared with the
first: try `--version 1` after a run of version 2 and see which cases regress.
"""

from __future__ import annotations

import argparse
import sys

from headlines import SMALL_WORDS, style  # next to this script

import assay
from assay import Case, Condition, Output

GOLDEN = [
    {"id": "wine", "input": "the art of wine", "expected": "The Art of Wine"},
    {"id": "dont", "input": "don't panic", "expected": "Don't Panic"},
    {"id": "war", "input": "war and peace", "expected": "War and Peace"},
    {"id": "its", "input": "it's a wonderful life", "expected": "It's a Wonderful Life"},
    {"id": "road", "input": "on the road", "expected": "On the Road"},
    {"id": "gone", "input": "gone with the wind", "expected": "Gone with the Wind"},
]


def styler(case: Case, condition: Condition, version: int = 2) -> str:
    """The task: one case in, the app's answer out (it could as well call an LLM)."""
    return style(case.input_text, version=version)


def small_words_lower(case: Case, output: Output) -> bool:
    """A custom scorer: "of", "the", "and" ... stay lower case inside a headline."""
    inner = output.text.split()[1:-1]
    return not any(word.lower() in SMALL_WORDS and word != word.lower() for word in inner)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--version", type=int, default=2, help="the version under test")
    args = parser.parse_args()
    result = assay.evaluate(
        "headline-styler",
        data=GOLDEN,
        task=styler,
        scorers=["exact_match", small_words_lower,
                 {"type": "regex", "name": "apostrophes", "pattern": "'[A-Z]",
                  "must_match": False}],
        conditions={"title-case": {"args": {"version": 1}},
                    "candidate": {"args": {"version": args.version}}},
        gates=[{"scorer": "exact_match", "condition": "candidate", "min_pass_rate": 0.8}],
        verbose=True,
    )
    # The same results, as data: result.summary, result.comparisons (candidate vs
    # title-case), result.previous (this run vs the last one), result.gates, result.to_dict().
    candidate = {s.scorer: s.pass_rate for s in result.summary.scores
                 if s.condition == "candidate"}
    print("candidate:", ", ".join(f"{name} {rate:.0%}" for name, rate in candidate.items()))
    return 0 if result.passed else 1


if __name__ == "__main__":
    sys.exit(main())
