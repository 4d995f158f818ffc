"""How fast `assay view` serves its pages over a store with a 100,000-trial run.

Builds a store quickly by inserting rows directly (two runs of one
experiment, each N cases x 2 conditions, an agent condition with tool
calls, a pass/fail scorer and a judge with reasoning and rubric metrics,
1% errored trials), then starts the app in this process (uvicorn on
127.0.0.1) and times each page kind over HTTP: the run list, a run, the
cases side by side (first page, a page deep into the run, and filtered to
flipped cases and to a tag), a trial, the comparison of the two runs and
its side-by-side cases. Each page is fetched `--repeat` times after one
warm-up fetch; the first fetch (cold, before any cache) is reported apart.

    uv run python benchmarks/view_pages.py [--cases 50000] [--repeat 20] [--keep DIR]

Target (issue 13): every page under 300 ms on a 100,000-trial run.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

import httpx

EXPERIMENT = "bench-view"
CONDITIONS = ("baseline", "tools")
TAGS = tuple(f"group-{i}" for i in range(10))


def build_store(path: Path, cases: int) -> tuple[str, str]:
    """Two completed runs of `cases` x 2 conditions each; returns (older id, newer id)."""
    from assay.review.summary import summarize_run
    from assay.store import Store

    store = Store(str(path))  # creates the schema through the migrations
    runs = ("bench-run-a", "bench-run-b")
    for index, run_id in enumerate(runs):
        store.create_run(id=run_id, experiment=EXPERIMENT, status="running",
                         started_at=f"2025-01-0{index + 1}T10:00:00+00:00",
                         dataset_hash="bench", total_trials=cases * len(CONDITIONS),
                         config={"name": EXPERIMENT, "conditions": {c: {} for c in CONDITIONS},
                                 "scorers": [{"type": "exact_match"}, {"type": "rubric"}]})
    store.close()
    with sqlite3.connect(path) as conn:
        for index, run_id in enumerate(runs):
            _insert_run(conn, run_id, cases, seed=index)
    store = Store(str(path))
    for index, run_id in enumerate(runs):
        summary = summarize_run(store, run_id, scorers=["exact", "judge"],
                                conditions=list(CONDITIONS))
        store.update_run(run_id, status="completed", summary=summary.to_dict(),
                         finished_at=f"2025-01-0{index + 1}T11:00:00+00:00")
    store.close()
    return runs


def _insert_run(conn: sqlite3.Connection, run_id: str, cases: int, seed: int) -> None:
    trials: list[tuple[object, ...]] = []
    scores: list[tuple[object, ...]] = []
    for i in range(cases):
        case_id = f"case-{i:06d}"
        tags = json.dumps([TAGS[i % len(TAGS)]])
        for condition in CONDITIONS:
            key = (run_id, case_id, condition, 0)
            errored = (i * 7 + seed + len(condition)) % 100 == 0
            good = (i * 31 + seed * 17 + (5 if condition == "tools" else 0)) % 10 < 7
            output = _output(i, condition)
            trials.append((*key, json.dumps(f"What is item {i}?"), json.dumps(f"value {i}"),
                           tags, "easy", output["text"], json.dumps(output),
                           "TimeoutError: the target took too long" if errored else None,
                           120.0 + i % 50, 200, 40, 0.0004, None,
                           "2025-01-01T10:30:00+00:00"))
            if errored:
                continue
            scores.append((*key, "exact", 1.0 if good else 0.0, 0.0, 1.0, int(good),
                           None, None, None, None, None, None))
            value = 8.0 if good else 4.0
            details = {"judge_model": "judge-model", "prompt_hash": "p1",
                       "metrics": {"factual_adherence": value / 2, "completeness": 4},
                       "reasoning": {"factual_adherence": "Matches the reference.",
                                     "completeness": "Covers the question."},
                       "unverified_claims": [] if good else ["An extra claim."]}
            scores.append((*key, "judge", value, 0.0, 10.0, int(good), f"score {value:g}",
                           json.dumps(details), None, 300, 60, 0.0008))
    conn.executemany("INSERT INTO trials (run_id, case_id, condition, epoch, input_json, "
                     "expected_json, tags_json, difficulty, output_text, output_json, error, "
                     "latency_ms, input_tokens, output_tokens, cost_usd, cache_hits, "
                     "finished_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", trials)
    conn.executemany("INSERT INTO scores (run_id, case_id, condition, epoch, scorer, value, "
                     "scale_min, scale_max, passed, reason, details_json, error, input_tokens, "
                     "output_tokens, cost_usd) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", scores)


def _output(i: int, condition: str) -> dict[str, object]:
    text = f"The answer is value {i}."
    if condition != "tools":
        return {"text": text}
    call = {"name": "lookup", "arguments": {"item": i}, "result": f"item {i}: value {i}",
            "duration_ms": 12.5}
    return {"text": text, "tool_calls": [call],
            "transcript": [{"role": "user", "content": f"What is item {i}?"},
                           {"role": "assistant", "content": "",
                            "tool_calls": [{"id": "c1", "name": "lookup",
                                            "arguments": {"item": i}}]},
                           {"role": "tool", "tool_call_id": "c1", "content": call["result"]},
                           {"role": "assistant", "content": text}],
            "metadata": {"agent": {"turns": 2, "tool_calls": 1, "tool_errors": 0,
                                   "stop_reason": "end_turn"}}}


def timed(client: httpx.Client, path: str) -> tuple[float, int]:
    started = time.perf_counter()
    response = client.get(path)
    return (time.perf_counter() - started) * 1000, response.status_code


def wait_ready(client: httpx.Client, path: str, timeout_s: float = 600) -> float:
    """Seconds until `path` answers 200 rather than 202 (a review computed in the background)."""
    started = time.perf_counter()
    while time.perf_counter() - started < timeout_s:
        if client.get(path).status_code == 200:
            return time.perf_counter() - started
        time.sleep(0.2)
    raise SystemExit(f"{path} was not ready after {timeout_s:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=50_000,
                        help="cases per run (trials per run = cases x 2 conditions)")
    parser.add_argument("--repeat", type=int, default=20, help="timed fetches per page")
    parser.add_argument("--keep", type=Path, help="build the store in (or reuse it from) DIR")
    args = parser.parse_args()

    from assay.testing.viewer import ViewerThread
    from assay.view.server import open_for_viewing

    folder = args.keep or Path(tempfile.mkdtemp(prefix="assay-view-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "assay.db"
    if not path.exists():
        started = time.perf_counter()
        build_store(path, args.cases)
        print(f"built {path} ({2 * args.cases * len(CONDITIONS):,} trials in two runs) "
              f"in {time.perf_counter() - started:.1f} s")
    run_a, run_b = "bench-run-a", "bench-run-b"
    with sqlite3.connect(path) as conn:
        trials = conn.execute("select count(*) from trials where run_id = ?", (run_b,)
                              ).fetchone()[0]
    agent_case = f"case-{args.cases // 2:06d}"
    deep = f"case-{int(args.cases * 0.9):06d}"
    run = f"/runs/{run_b}"
    compare = f"/compare?a={run_a}&b={run_b}"
    pages = {
        "run list": "/",
        "run (review ready)": run,
        "cases, first page": f"{run}/cases",
        "cases, page 90% in": f"{run}/cases?after={deep}",
        "cases, flipped": f"{run}/cases?show=flipped",
        "cases, regressed, 90% in": f"{run}/cases?show=regressed&after={deep}",
        "cases, errored": f"{run}/cases?show=errored",
        "cases, unstable (none: whole run searched)": f"{run}/cases?show=unstable",
        "cases, tag": f"{run}/cases?tag={quote(TAGS[3])}",
        "trial (agent, judged)": f"{run}/trial?case={agent_case}&condition=tools&epoch=0",
        "compare (diff ready)": compare,
        "compare, cases regressed": f"/compare/cases?a={run_a}&b={run_b}&show=regressed",
        "history": f"/history?experiment={EXPERIMENT}",
    }
    store = open_for_viewing(str(path))
    with ViewerThread(store) as url, httpx.Client(base_url=url.rstrip("/"), timeout=600) as client:
        cold, _ = timed(client, "/")  # the server's first request: templates compiled
        first_run, _ = timed(client, run)
        review_s = wait_ready(client, f"{run}/review")
        first_compare, _ = timed(client, compare)
        diff_s = wait_ready(client, f"/compare/review?a={run_a}&b={run_b}")
        print(f"\nrun of {trials:,} trials; {args.repeat} fetches per page after one warm-up\n")
        print(f"{'page':<46}{'median':>9}{'p95':>9}{'max':>9}")
        worst = 0.0
        for name, page in pages.items():
            timed(client, page)
            times = []
            for _ in range(args.repeat):
                ms, status = timed(client, page)
                if status != 200:
                    raise SystemExit(f"{page} answered {status}")
                times.append(ms)
            times.sort()
            p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
            worst = max(worst, p95)
            print(f"{name:<46}{statistics.median(times):>7.1f}ms{p95:>7.1f}ms{times[-1]:>7.1f}ms")
        print(f"\nthe server's first request (the run list, templates compiled): {cold:.0f} ms")
        print(f"first visit of the run page (review on its way): {first_run:.0f} ms; "
              f"the review was ready {review_s:.1f} s later")
        print(f"first visit of the comparison (diff on its way): {first_compare:.0f} ms; "
              f"the diff was ready {diff_s:.1f} s later")
        print(f"slowest p95: {worst:.1f} ms (target: under 300 ms)")
    store.close()


if __name__ == "__main__":
    main()
