"""`report.html`: one self-contained page per run, numbered as results.json, its text escaped.

The page is rendered from a real run: the quickstart, run twice through
`assay run` with a store in a temp dir (the second time without the moons
document, so some cases newly fail under `docs`).
"""

from __future__ import annotations

import json
import os
import re
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
from assay.reports.html import render_html
from assay.reports.packed_text import unpack
from assay.review.finish import review_stored
from assay.review.result import Review
from assay.score import Score
from assay.store import Store

REPO = Path(__file__).resolve().parents[2]
SECTIONS = ("overview", "verdict", "gates", "scores", "conditions", "previous", "cost",
            "breakdowns", "trials-section", "trial-data")


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


def page_data(page: str) -> dict[str, Any]:
    """The trials embedded in the page, unpacked as its script unpacks them."""
    return json.loads(unpack(packed_block(page)))


def packed_block(page: str) -> str:
    start = page.index('<script type="application/gzip" id="trial-data">')
    return page[page.index(">", start) + 1:page.index("</script>", start)]


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
        low = re.search(re.escape(f"{s['pass_rate']:.1%} [") + r"([\d.]+)%–", text)
        assert low is not None, text  # whole percents, more beside a gate's bar (80%)
        places = len(low[1].partition(".")[2])
        assert abs(float(low[1]) - 100 * s["pass_rate_ci"]["low"]) <= 0.5 * 10 ** -places
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
        for advice in c["advice"]:  # on the verdict's quantity, while it is within noise
            shown = not c["significant"] and advice["metric"] == c["headline"]
            assert (f"sample size ({advice['metric'].replace('_', ' ')}): "
                    f"{advice['summary']}" in text) == shown


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


def test_every_trial_of_the_run_is_on_the_page(quickstart: Path) -> None:
    page, results = page_and_results(quickstart, "first")
    data = page_data(page)
    assert len(data["trials"]) == len(results["trials"])
    case_ids = [case[0] for case in data["cases"]]
    assert sorted(case_ids) == sorted({t["case_id"] for t in results["trials"]})
    failing = sum(1 for t in results["trials"]
                  if any(s["passed"] is False or s["error"] for s in t["scores"].values()))
    assert sum(t[3] != "p" for t in data["trials"]) == failing
    for stored, row in zip(results["trials"], data["trials"]):
        assert case_ids[row[0]] == stored["case_id"]
        assert data["conditions"][row[1]] == stored["condition"]
        assert row[4] == stored["output"]["text"]


def test_the_page_opens_with_the_verdict_and_folds_the_run_facts(quickstart: Path) -> None:
    page, _results = page_and_results(quickstart, "second")
    verdict = page.index('id="verdict"')
    assert verdict < page.index('id="gates"') < page.index('id="scores"')
    facts = page.index('class="facts"')
    assert page.rindex("<details", 0, facts) > verdict
    sentence = unescape(page[verdict:page.index("</p>", verdict)].split(">", 1)[1])
    assert "is better than" in sentence or "not clearly" in sentence or "worse" in sentence


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
    # the JSON block and the page's own script, nothing injected
    assert page.count("<script") == 2 and page.count("</script") == 2
    assert "<img" not in page and "<b>case</b>" not in page
    data = page_data(page)
    [row] = data["trials"]
    assert row[4] == attack and row[8][0][2] == attack
    assert data["cases"][0][:3] == ['"><b>case</b>', f"user: {attack}", attack]


def test_a_big_run_keeps_every_trial_failures_counted(stored: Review) -> None:
    trials = [crafted(i, passed=i % 2 == 1) for i in range(5_000)]
    page = render_html(stored, iter(trials))
    data = page_data(page)
    assert len(data["trials"]) == 5_000
    assert data["cases"][-1][0] == "case-04999"
    assert "5,000 cases, 5,000 trials (2,500 failing or errored)" in page


def test_a_big_runs_trials_travel_gzipped_so_the_page_is_a_fraction_of_their_json(
        stored: Review) -> None:
    words = ("the", "channel", "is", "closed", "when", "the", "context", "is", "cancelled")
    trials = [crafted(i, passed=i % 3 == 0, text=" ".join(words[(i + k) % len(words)]
                                                       for k in range(60)))
              for i in range(5_000)]
    page = render_html(stored, iter(trials))
    block = packed_block(page)
    assert re.fullmatch(r"[A-Za-z0-9+/]+=*", block)  # base64: nothing in it can close the block
    trials_json = unpack(block)
    assert len(page) < len(trials_json) / 3
    assert len(json.loads(trials_json)["trials"]) == 5_000


def test_an_errored_trial_keeps_its_error_and_counts_as_errored(stored: Review) -> None:
    trial = crafted(1, passed=True)
    trial.output.error, trial.scores = "TimeoutError: the target took longer than 30 s", {}
    [row] = page_data(render_html(stored, [trial]))["trials"]
    assert row[3] == "e" and row[5] == "TimeoutError: the target took longer than 30 s"


def test_importing_the_renderer_does_not_import_jinja2() -> None:
    code = ("import sys, assay.cli.report, assay.reports.html; "
            "print('jinja2' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.stdout.strip() == "False", done.stderr


def test_the_scores_note_names_the_interval_a_pass_fail_scorers_mean_has(
        quickstart: Path) -> None:
    """Regression: the note said 't interval for the mean' above pass/fail scorers whose
    mean carries the Wilson interval of their pass rate."""
    page, results = page_and_results(quickstart, "first")
    methods = {s["mean_ci"]["method"] for s in results["stats"]["scores"] if s["mean_ci"]}
    assert "Wilson" in methods
    text = unescape(page)
    assert "t interval for the mean" not in text
    assert "Wilson for a pass rate, and for a pass/fail scorer's mean" in text
