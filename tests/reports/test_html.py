"""`report.html`: one self-contained page per run, numbered as results.json, its text escaped.

The page is rendered from a real run: the quickstart, run twice through
`assay run` with a store in a temp dir (the second time without the moons
document, so some cases newly fail under `docs`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from assay.knowledge_packs.bands import SIZE_WORDS
from assay.output import Output
from assay.records import TrialRecord
from assay.reports.html import MAX_FAILING_ROWS, MAX_TRIAL_ROWS, render_html
from assay.score import Score
from assay.review.finish import review_stored
from assay.review.result import Review
from assay.store import Store

REPO = Path(__file__).resolve().parents[2]
SECTIONS = ("overview", "gates", "scores", "conditions", "previous", "cost", "breakdowns",
            "trials-section")


class Rows(HTMLParser):
    """Every table row of a page: the section it is in, its attributes and its cells' text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[tuple[str, dict[str, str], list[str]]] = []
        self.section = ""
        self._cells: list[str] | None = None
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        if tag in ("section", "header") and "id" in found:
            self.section = found["id"]
        elif tag == "tr":
            self.rows.append((self.section, found, []))
        elif tag in ("td", "th") and self.rows:
            self.rows[-1][2].append("")
            self._depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th"):
            self._depth -= 1

    def handle_data(self, data: str) -> None:
        if self._depth and self.rows and self.rows[-1][2]:
            self.rows[-1][2][-1] += data

    def in_section(self, section: str) -> list[tuple[dict[str, str], list[str]]]:
        return [(attrs, [" ".join(c.split()) for c in cells])
                for where, attrs, cells in self.rows if where == section]


def rows_of(page: str, section: str) -> list[tuple[dict[str, str], list[str]]]:
    parser = Rows()
    parser.feed(page)
    return parser.in_section(section)


def assay(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "160"}
    env.pop("ASSAY_STORE", None)
    return subprocess.run([sys.executable, "-m", "assay", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The quickstart run twice; the second run has lost its moons document."""
    root = tmp_path_factory.mktemp("html") / "quickstart"
    shutil.copytree(REPO / "examples" / "quickstart", root,
                    ignore=shutil.ignore_patterns(".assay", "__pycache__"))
    store = f"sqlite:///{root / 'assay.db'}"
    first = assay(root, "run", "assay.yaml", "--store", store, "-o", "first", "--no-progress")
    assert first.returncode == 0, first.stdout + first.stderr
    (root / "docs" / "moons.md").unlink()
    second = assay(root, "run", "assay.yaml", "--store", store, "-o", "second", "--no-progress")
    assert second.returncode in (0, 1), second.stdout + second.stderr
    assert "html:    second/report.html" in second.stdout
    return root


def page_and_results(root: Path, run: str) -> tuple[str, dict[str, Any]]:
    return ((root / run / "report.html").read_text(encoding="utf-8"),
            json.loads((root / run / "results.json").read_text(encoding="utf-8")))


def test_assay_run_writes_one_self_contained_page_with_every_section(quickstart: Path) -> None:
    page, results = page_and_results(quickstart, "second")
    for section in SECTIONS:
        assert f'id="{section}"' in page, section
    assert "<style>" in page and "prefers-color-scheme: dark" in page
    for outside in ("<link", "src=", "http://", "https://", "@import"):
        assert outside not in page, outside
    run = results["run"]
    for fact in (run["id"], run["experiment"], run["status"], run["started_at"],
                 run["dataset_path"], run["dataset_hash"][:16], run["assay_version"]):
        assert fact in page


def test_the_scores_table_shows_the_numbers_of_results_json(quickstart: Path) -> None:
    page, results = page_and_results(quickstart, "first")
    rows = {(a["data-scorer"], a["data-condition"]): cells
            for a, cells in rows_of(page, "scores") if "data-scorer" in a}
    stats = results["stats"]["scores"]
    assert len(rows) == len(stats)
    for s in stats:
        text = " | ".join(rows[(s["scorer"], s["condition"])])
        assert f"| {s['n']} |" in text
        assert (f"{s['mean']:.3f} [{s['mean_ci']['low']:.3f}–{s['mean_ci']['high']:.3f}]"
                in text)
        assert f"{s['pass_rate']:.1%} [{s['pass_rate_ci']['low']:.0%}–" in text
        assert f"{s['passed']}/{s['judged']}" in text
        assert text.endswith(f"| {s['errors']}")
    order = [(a["data-scorer"], a["data-condition"]) for a, _ in rows_of(page, "scores")
             if "data-scorer" in a]
    assert order == [(s["scorer"], s["condition"]) for s in stats]  # the config's order


def test_conditions_are_compared_with_the_baseline_with_verdict_size_and_advice(
        quickstart: Path) -> None:
    page, results = page_and_results(quickstart, "first")
    comparisons = results["comparisons"]
    assert f"Conditions compared with <code>{comparisons['baseline']}</code>" in page
    rows = {a["data-scorer"]: cells for a, cells in rows_of(page, "conditions")
            if "data-scorer" in a}
    text = unescape(page)
    for c in comparisons["comparisons"]:
        cells = rows[c["scorer"]]
        assert cells[1] == c["label_b"] and cells[2] == str(c["n"])
        assert f"{c['delta_pp']:+.1f}pp" in cells
        assert SIZE_WORDS[c["reading"]] in cells  # results.json keeps the band's name
        assert ("significant" if c["significant"] else "within noise") in cells
        assert c["verdict"] in text
        for advice in c["advice"]:
            if advice["cases_needed"] is not None:
                assert advice["summary"] in text


def test_compare_to_previous_lists_newly_failing_cases_in_red(quickstart: Path) -> None:
    page, results = page_and_results(quickstart, "second")
    previous = results["previous_run"]
    assert f"Compared with the previous run <code>{previous['run_a']['id']}</code>" in page
    rows = rows_of(page, "previous")
    flipped = [c for c in previous["comparisons"] if c["newly_failing"]]
    assert flipped, "losing the moons document fails some cases"
    for c in previous["comparisons"]:
        [cells] = [cells for a, cells in rows
                   if a.get("data-scorer") == c["scorer"] and a.get("data-label") == c["condition"]]
        assert f"{c['delta_pp']:+.1f}pp" in cells
    section = page[page.index('id="previous"'):page.index('id="cost"')]
    for c in flipped:
        failing = f"newly failing ({len(c['newly_failing'])}): "
        block = section[section.index(f"<b>{c['scorer']}@{c['condition']}</b>"):]
        line = block[block.index('<div class="ids bad">'):block.index("</div>")]
        assert failing in line
        assert all(f"<code>{case}</code>" in line for case in c["newly_failing"])


def test_cost_breakdowns_and_gates_are_shown(quickstart: Path) -> None:
    page, results = page_and_results(quickstart, "first")
    cost = {a["data-condition"]: cells for a, cells in rows_of(page, "cost")
            if "data-condition" in a}
    for c in results["stats"]["conditions"]:
        assert cost[c["condition"]][1:3] == [str(c["trials"]), str(c["errors"])]
    breakdown = [cells for _, cells in rows_of(page, "breakdowns")]
    groups = {row["difficulty"] for row in results["stats"]["by_difficulty"]}
    groups |= {row["tag"] for row in results["stats"]["by_tag"]}
    assert groups <= {cells[0] for cells in breakdown}
    for gate in results["gates"]:
        assert f"{'PASS' if gate['passed'] else 'FAIL'}</span> <b>{gate['gate']}</b>" in page


def test_the_trial_table_shows_every_trial_of_a_small_run_failures_first(quickstart: Path) -> None:
    page, results = page_and_results(quickstart, "first")
    rows = [(a, cells) for a, cells in rows_of(page, "trials-section") if "data-s" in a]
    assert len(rows) == len(results["trials"])
    statuses = [a["data-s"] for a, _ in rows]
    assert statuses == sorted(statuses, key=lambda s: s == "pass")
    failing = sum(1 for t in results["trials"]
                  if any(s["passed"] is False or s["error"] for s in t["scores"].values()))
    assert statuses.count("pass") == len(results["trials"]) - failing


def test_assay_report_renders_the_same_page_from_the_store(quickstart: Path) -> None:
    store = f"sqlite:///{quickstart / 'assay.db'}"
    done = assay(quickstart, "report", "latest", "--store", store, "--format", "html",
                 "-o", "again.html")
    assert done.returncode == 0, done.stderr
    page = (quickstart / "again.html").read_text(encoding="utf-8")
    written, results = page_and_results(quickstart, "second")
    assert rows_of(page, "scores") == rows_of(written, "scores")
    assert rows_of(page, "conditions") == rows_of(written, "conditions")
    assert rows_of(page, "previous") == rows_of(written, "previous")
    assert f"Conditions compared with <code>{results['comparisons']['baseline']}</code>" in page


# -- rendering stored trials and crafted ones ----------------------------------------------


@pytest.fixture(scope="module")
def stored(quickstart: Path) -> Review:
    store = Store(f"sqlite:///{quickstart / 'assay.db'}")
    try:
        return review_stored(store, store.resolve_run("latest"))
    finally:
        store.close()


def crafted(index: int, *, passed: bool, text: str = "an answer") -> TrialRecord:
    score = Score(value=float(passed), passed=passed, reason="ok" if passed else "wrong")
    return TrialRecord(case_id=f"case-{index:05d}", condition="docs", epoch=0, input="q?",
                       expected="e", output=Output(text=text, latency_ms=1.0),
                       scores={"contains": score})


def test_outputs_expected_answers_and_reasons_are_escaped(stored: Review) -> None:
    attack = "<script>alert('x')</script><img src=x onerror=alert(1)>"
    trial = crafted(1, passed=False, text=attack)
    trial.expected = attack
    trial.input = [{"role": "user", "content": attack}]
    trial.scores["contains"].reason = attack
    trial.case_id = '"><b>case</b>'
    page = render_html(stored, [trial])
    assert page.count("<script>") == 1  # the page's own filter script, nothing injected
    assert "<img" not in page and "<b>case</b>" not in page
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in page
    [(_, cells)] = [r for r in rows_of(page, "trials-section") if "data-s" in r[0]]
    assert attack in " ".join(cells) and cells[0].startswith('"><b>case</b>')


def test_a_big_run_shows_failures_first_and_says_what_was_cut(stored: Review) -> None:
    failing, passing = MAX_FAILING_ROWS + 500, MAX_TRIAL_ROWS
    trials = [crafted(i, passed=i % 2 == 1) for i in range(2 * failing)]
    trials += [crafted(2 * failing + i, passed=True) for i in range(passing - failing)]
    page = render_html(stored, iter(trials))
    rows = [a["data-s"] for a, _ in rows_of(page, "trials-section") if "data-s" in a]
    assert rows.count("fail") == MAX_FAILING_ROWS
    assert rows.count("pass") == MAX_TRIAL_ROWS - MAX_FAILING_ROWS
    assert rows == sorted(rows, key=lambda s: s == "pass")
    assert (f"{failing:,} failing or errored and {passing:,} passing trials") in page
    assert (f"the first {MAX_FAILING_ROWS:,} failing or errored and "
            f"{MAX_TRIAL_ROWS - MAX_FAILING_ROWS:,} passing") in page


def test_passing_trials_fill_the_table_up_to_the_cap_when_few_fail(stored: Review) -> None:
    trials = [crafted(i, passed=i >= 3) for i in range(40)]
    page = render_html(stored, trials, max_rows=10, max_failing=5)
    rows = [(a["data-s"], cells[0]) for a, cells in rows_of(page, "trials-section")
            if "data-s" in a]
    assert [s for s, _ in rows] == ["fail"] * 3 + ["pass"] * 7
    shown = [case.removesuffix("q?") for _, case in rows]
    assert shown[3:] == [f"case-{i:05d}" for i in range(3, 10)]
    assert "the first 3 failing or errored and 7 passing" in page


def test_an_errored_trial_shows_its_error_and_counts_as_failing(stored: Review) -> None:
    trial = crafted(1, passed=True)
    trial.output.error, trial.scores = "TimeoutError: the target took longer than 30 s", {}
    page = render_html(stored, [trial])
    [(attrs, cells)] = [r for r in rows_of(page, "trials-section") if "data-s" in r[0]]
    assert attrs["data-s"] == "error"
    assert "TimeoutError: the target took longer than 30 s" in cells
    assert "1 failing or errored and 0 passing trials" in page


def test_importing_the_renderer_does_not_import_jinja2() -> None:
    code = ("import sys, assay.cli.report, assay.reports.html; "
            "print('jinja2' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.stdout.strip() == "False", done.stderr
