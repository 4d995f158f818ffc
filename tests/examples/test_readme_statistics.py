"""The README's statistics say what assay prints: its comparison block and its SQL recipe.

"Is the difference real?" shows what the quickstart prints when it compares
its conditions; this runs the command it names and finds every line of the
block in the output. "Results and the store" gives a SQL recipe for the
means and case counts of the summary table; this runs it on a run with
epochs, scorer errors and target errors, and checks it against the summary.
The rates it quotes from the calibration (a rare large loss; the exact
McNemar test it does not use) are computed again and compared.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest
import yaml
from scipy import stats

from assay.analysis.conditions import ComparisonEntry
from assay.analysis.paired import compare_paired
from assay.reports.comparisons import comparison_lines
from tests.analysis.calibration import (
    MEAN_SCENARIOS,
    PASS_SCENARIOS,
    RARE_LOSS,
    REMEASURED,
    SIZES,
    alone,
    discordant_tables,
    false_alarms,
    plain_t_rates,
    run,
)
from tests.cli.evalproject import assay

REPO = Path(__file__).resolve().parents[2]
README = (REPO / "README.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    text = README.split(f"## {title}\n", 1)[1]
    return text.split("\n## ", 1)[0]


def first_block(text: str, language: str = "") -> str:
    match = re.search(rf"```{language}\n(.*?)```", text, re.DOTALL)
    assert match, f"no ```{language} block"
    return match[1]


def squeeze(text: str) -> str:
    return " ".join(text.split())


def test_the_comparison_block_is_what_the_quickstart_prints(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = section("Is the difference real?")
    command = re.search(r"`uv run assay run (examples/\S+/assay\.yaml)`", text)
    assert command, "the section names the command whose output it shows"
    example = (REPO / command[1]).parent
    shutil.copytree(example, tmp_path / example.name)
    monkeypatch.chdir(tmp_path / example.name)
    monkeypatch.setenv("COLUMNS", "200")
    code, output = assay(capsys, "run", "assay.yaml", "--store", str(tmp_path / "s.db"),
                         "--no-progress")
    assert code == 0
    printed = [squeeze(line) for line in output.splitlines()]
    for line in first_block(text).strip().splitlines():
        assert squeeze(line) in printed, f"the README shows a line the run does not print:\n{line}"
    # report.md and report.html of the same run: each row's verdict agrees with its interval
    [run_dir] = (tmp_path / example.name / ".assay" / "runs").iterdir()
    markdown = (run_dir / "report.md").read_text()
    rows = [r for r in markdown.splitlines() if r.startswith("| ") and "% CI " in r]
    html = (run_dir / "report.html").read_text()
    cells = re.findall(r'<td class="num">([\d.]+% CI [^<]+)</td><td class="num">[^<]+</td>\s*'
                       r'<td>(?:<span class="pill [a-z]+">(significant)</span>|'
                       r'<span class="muted">(within noise)</span>)', html)
    assert len(rows) == len(cells) == 3
    for interval, verdict in [(r.split(" | ")[-3], r.split(" | ")[-1]) for r in rows] + [
            (ci, sig or noise) for ci, sig, noise in cells]:
        low, high = bounds(interval)
        assert verdict.strip(" |") == ("significant" if low > 0 or high < 0 else "within noise")


def bounds(text: str) -> tuple[float, float]:
    """`98.3% CI +30.2..+94.3pp` -> (30.2, 94.3)."""
    match = re.search(r"CI ([-+]?[\d.]+(?:e[-+]?\d+)?)\.\.([-+]?[\d.]+(?:e[-+]?\d+)?)", text)
    assert match, text
    return float(match[1]), float(match[2])


def test_each_printed_comparison_line_says_significant_exactly_when_its_interval_leaves_out_0(
) -> None:
    lines = [line for line in first_block(section("Is the difference real?")).splitlines()
             if " CI " in line and (" significant " in line or " within noise " in line)]
    assert len(lines) == 3
    for line in lines:
        low, high = bounds(line)
        assert (" significant " in line) == (low > 0 or high < 0), line


def test_a_large_drop_within_noise_reads_as_the_readme_says() -> None:
    # "A large drop within noise reads `-6.7pp (large drop) ... within noise`"
    quoted = re.search(r"`(-6\.7pp \(large drop\)) \.\.\. (within noise)`", squeeze(README))
    assert quoted, "the README quotes how a large drop within noise reads"
    a = {f"q{i}": i == 0 for i in range(15)}
    b = {f"q{i}": False for i in range(15)}
    comparison = compare_paired(a, b, kind="pass_fail", label_a="a", label_b="b",
                                scale=(0, 1))
    [line] = comparison_lines([ComparisonEntry(comparison, [])], lambda e: "x")
    plain = re.sub(r"\[/?[^\]]*\]", "", line)
    assert quoted[1] in plain and quoted[2] in plain


def test_the_rare_loss_rates_the_readme_quotes_are_what_the_calibration_prints() -> None:
    # Regression: the README said noise with a rare large loss was called significant 4% of
    # the time at 100 cases, where the calibration (summed exactly) prints 2.74%.
    quoted = re.search(r"called significant (\d+)% of the time at 20 cases \(the plain t test: "
                       r"(\d+)%\), (\d+)% at 30 and (\d+)% at 100", squeeze(README))
    assert quoted, "the README quotes the rare-loss rates at 20, 30 and 100 cases"
    at_20, plain_at_20, at_30, at_100 = (int(percent) for percent in quoted.groups())
    printed = {n: run(RARE_LOSS, n, lines=0).significant for n in (20, 30, 100)}
    assert (at_20, at_30, at_100) == tuple(round(100 * printed[n]) for n in (20, 30, 100))
    assert plain_at_20 == round(100 * plain_t_rates(RARE_LOSS, 20).significant)


def test_the_rate_at_the_edge_of_the_band_the_readme_quotes_is_what_the_calibration_prints(
        ) -> None:
    quoted = re.search(r"\(gamma\) at 20 cases: ([\d.]+)% over ([\d,]+) seeded runs",
                       squeeze(README))
    assert quoted, "the README quotes the false alarms of right-skewed noise at 20 cases"
    assert int(quoted[2].replace(",", "")) == REMEASURED
    gamma = next(s for s in MEAN_SCENARIOS if s.name == "mean: no difference, gamma(2)-2")
    assert quoted[1] == f"{100 * false_alarms(gamma, 20, replicates=REMEASURED):.2f}"


def test_each_tests_false_alarms_alone_the_readme_quotes_are_what_the_calibration_prints(
) -> None:
    # Regression: the README gave 7.4% for the t test alone and 24% and 9% for the
    # likelihood alone "in the table below", which printed only the checked test's rates
    # (4.44% and 4.20% on those two rows).
    quoted = re.search(r"fools the t test \((\d+\.\d)% at 20 cases\), few cases moved or heavy "
                       r"tails fool the likelihood \((\d+)% and (\d+)%\)", squeeze(README))
    assert quoted, "the README quotes each test's false alarms alone at 20 cases"
    skewed, few_moved, heavy_tails = (alone(MEAN_SCENARIOS[i], 20) for i in (0, 4, 5))
    assert float(quoted[1]) == round(100 * skewed.plain_t, 1)
    assert (int(quoted[2]), int(quoted[3])) == (round(100 * few_moved.likelihood),
                                                round(100 * heavy_tails.likelihood))
    assert max(few_moved.plain_t, heavy_tails.plain_t) < 0.05  # "the t test stays within 5%"


def test_the_exact_mcnemar_false_alarm_rates_the_readme_quotes_are_what_that_test_gives() -> None:
    # Regression: the README said the exact McNemar test calls a true no-difference
    # significant 1-3% of the time at 5%; over the calibration's no-difference scenarios it
    # is 0.03% (20 cases, about 2 differing) to 3.07%.
    quoted = re.search(r"The exact McNemar test is not used: .*? at 5% it calls a true "
                       r"no-difference significant (\d+)-(\d+)% of the time", squeeze(README))
    assert quoted, "the README quotes the exact McNemar test's false alarms"
    rates = [exact_mcnemar_false_alarms(n, scenario.cells) for scenario in PASS_SCENARIOS
             if scenario.true_delta == 0 and scenario.cells for n in SIZES]
    assert (int(quoted[1]), int(quoted[2])) == (round(100 * min(rates)), round(100 * max(rates)))


def exact_mcnemar_false_alarms(n: int, cells: tuple[float, float, float]) -> float:
    """How often the exact McNemar test rejects at 5%, summed over every discordant table."""
    return sum(chance for (b_only, a_only), chance in discordant_tables(n, cells)
               if b_only + a_only and stats.binomtest(b_only, b_only + a_only).pvalue < 0.05)


SCORER = '''
def length_score(case, output: str):
    """Fails as a scorer (raises) on cases ending in 3; else a share of the answer's length."""
    if case.id.endswith("3"):
        raise ValueError("no score for this one")
    return min(1.0, len(output) / 20)
'''

FLAKY = '''
import itertools

_calls = itertools.count()


def answer(case):
    """Errors on every third call; the answer's length changes from call to call."""
    n = next(_calls)
    if n % 3 == 2:
        raise RuntimeError("flaky")
    return case.expected + "!" * (n % 5)
'''


def test_the_sql_recipe_gives_the_summary_tables_means_and_case_counts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agent.py").write_text(FLAKY, encoding="utf-8")
    (tmp_path / "scoring.py").write_text(SCORER, encoding="utf-8")
    (tmp_path / "cases.jsonl").write_text("".join(
        json.dumps({"id": f"q{i}", "input": f"question {i}", "expected": f"answer {i}"}) + "\n"
        for i in range(12)))
    config = {"name": "recipe", "dataset": {"path": "cases.jsonl"},
              "target": {"type": "python", "function": "agent.py:answer", "threaded": False},
              "scorers": [{"type": "python", "name": "length", "function": "scoring.py:length_score"},
                          {"type": "contains"}],
              "run": {"epochs": 3, "concurrency": 1}}
    (tmp_path / "assay.yaml").write_text(yaml.safe_dump(config))
    store = tmp_path / ".assay" / "assay.db"
    code, _ = assay(capsys, "run", "assay.yaml", "--store", str(store), "-o", "out",
                    "--no-progress")
    assert code == 0
    stats = json.loads((tmp_path / "out" / "results.json").read_text())["stats"]["scores"]
    assert sum(s["errors"] for s in stats) > 0  # target and scorer errors both happened

    block = first_block(section("Results and the store"), "bash")
    query = re.search(r'sqlite3 \.assay/assay\.db "(.*)"', block, re.DOTALL)
    assert query, "the recipe is one sqlite3 command on .assay/assay.db"
    with sqlite3.connect(store) as conn:
        rows = conn.execute(query[1]).fetchall()
    recipe = {(condition, scorer): (mean, cases) for condition, scorer, mean, cases in rows}
    summary = {(s["condition"], s["scorer"]): (s["mean"], s["n"]) for s in stats if s["n"]}
    assert recipe.keys() == summary.keys()
    for key, (mean, cases) in summary.items():
        assert recipe[key][1] == cases, key
        assert recipe[key][0] == pytest.approx(mean), key
