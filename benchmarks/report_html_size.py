"""Size, render time and height of report.html for a big run.

Builds N trials (default 4,000 and 100,000) of a judged eval under two
conditions, with texts of a realistic length (a question, a paragraph of
answer, a judge's reason), renders report.html, and reports its size in MB,
the time to render it, and, when Debian's chromium is installed, the page's
height in pixels once its script has unpacked the trials and drawn the first
page of cases ("?" when it has not within 20 s).

    uv run python benchmarks/report_html_size.py [--trials 4000 100000]

Targets (issue 13): every trial on the page; the page height stays that of
one page of cases (it does not grow with the run).
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from assay.analysis.conditions import compare_conditions
from assay.analysis.summary import summarize
from assay.output import Output, Usage
from assay.records import RunRecord, ScoreRow, TrialRecord, TrialRow
from assay.reports.html import render_html
from assay.review.result import Review
from assay.score import Score

WORDS = ("the function returns a channel that is closed when the context is cancelled and "
         "every goroutine reading from it sees the zero value at once so a select on done "
         "stops the loop").split()
MEASURE = ("<script>var measure = setInterval(function () {"
           "if (!document.getElementById('cases-body').children.length) return;"
           "clearInterval(measure); document.documentElement.setAttribute('data-height', "
           "document.documentElement.scrollHeight); }, 50);</script>")
"""Once the page's script has unpacked the trials and drawn the first page of cases, its
height."""


def text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def trials(count: int, seed: int = 0) -> list[TrialRecord]:
    rng = random.Random(seed)
    out = []
    for i in range(count // 2):
        question = text(rng, 14) + "?"
        for condition in ("training", "pack"):
            passed = rng.random() < (0.4 if condition == "training" else 0.6)
            score = Score(value=8.0 if passed else 3.0, scale=(0.0, 10.0), passed=passed,
                          reason=text(rng, 25),
                          details={"judge_model": "openai/gpt-4.1", "prompt_hash": "abc"})
            out.append(TrialRecord(
                case_id=f"go-{i:06d}", condition=condition, epoch=0, input=question,
                expected=text(rng, 20),
                output=Output(text=text(rng, 60), latency_ms=rng.uniform(200, 2000),
                              usage=Usage(input_tokens=400, output_tokens=120,
                                          cost_usd=0.0004)),
                tags=[rng.choice(("easy", "medium", "hard"))], scores={"judge_score": score}))
    return out


def review_of(records: list[TrialRecord]) -> Review:
    rows = [ScoreRow(t.case_id, t.condition, t.epoch, n, s.value, s.passed, s.error,
                     s.scale, tuple(t.tags)) for t in records for n, s in t.scores.items()]
    summary = summarize(rows, [TrialRow(t.case_id, t.condition, t.epoch, None, t.latency_ms,
                                        400, 120, 0.0004) for t in records],
                        ["judge_score"], ["training", "pack"])
    run = RunRecord("bench", "go-expert", "eval", "completed", "2026-01-01T00:00:00")
    return Review(run=run, summary=summary,
                  comparisons=compare_conditions({}, ["training", "pack"]),
                  previous=None, gates=[])


def height(page: Path) -> int | None:
    chromium = shutil.which("chromium")
    if chromium is None:
        return None
    measured = page.with_name("measured.html")
    measured.write_text(page.read_text(encoding="utf-8").replace("</body>", MEASURE + "</body>"),
                        encoding="utf-8")
    done = subprocess.run([chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
                           "--window-size=1280,900", "--virtual-time-budget=20000",
                           "--dump-dom", measured.as_uri()],
                          capture_output=True, text=True, timeout=600, check=False)
    found = re.search(r'data-height="(\d+)"', done.stdout)
    return int(found.group(1)) if found else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, nargs="+", default=[4_000, 100_000])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        for count in args.trials:
            records = trials(count)
            review = review_of(records)
            started = time.perf_counter()
            page = render_html(review, records)
            seconds = time.perf_counter() - started
            path = Path(folder) / f"report-{count}.html"
            path.write_text(page, encoding="utf-8")
            size = path.stat().st_size / 1e6
            tall = height(path)
            print(f"{count:>7,} trials: {size:6.2f} MB, rendered in {seconds:5.2f} s, "
                  f"page height {tall if tall is not None else '?'} px")


if __name__ == "__main__":
    main()
