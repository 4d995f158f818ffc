"""`run.max_cost_usd` is the run's budget, not each process's: a resumed run counts what it
spent before, and a run its budget stopped goes on once the budget is raised."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from assay.shown_numbers import dollars
from assay.store import Store
from assay.testing import FakeLLM, Reply
from tests.cli.evalproject import assay
from tests.fake_sdks import point_sdks_at

CENTS_PER_CALL = 1  # 1,000 input tokens at $10 per million
CONFIG = """
name: budgeted
dataset: {{path: cases.jsonl}}
providers:
  fake:
    kind: openai
    base_url: ${{OPENAI_BASE_URL}}
    prices: {{answer-model: {{input_per_mtok: 10, output_per_mtok: 0}}}}
target: {{type: model, model: fake/answer-model}}
scorers: [{{type: contains}}]
run: {{concurrency: 1, batch_size: 1, max_cost_usd: {budget}}}
"""


@pytest.fixture
def llm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLM]:
    (tmp_path / "cases.jsonl").write_text("".join(
        f'{{"id": "c{i:02d}", "input": "question {i}", "expected": "a"}}\n' for i in range(12)))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ASSAY_STORE", str(tmp_path / "assay.db"))
    with FakeLLM(default=Reply(text="a", input_tokens=1000, output_tokens=0)) as server:
        point_sdks_at(server, monkeypatch)
        yield server


def set_budget(dollars: float) -> None:
    Path("assay.yaml").write_text(CONFIG.format(budget=dollars))


def test_a_resume_spends_what_the_budget_has_left_and_a_raised_budget_finishes_the_run(
        llm: FakeLLM, capsys: pytest.CaptureFixture[str]) -> None:
    """Before, each --resume started its count at $0: three resumes of a run stopped at its
    $0.035 budget spent $0.04 each, and the raised budget that would let the run finish
    changed the config's hash, so that run could no longer be resumed."""
    set_budget(0.035)
    code, out = assay(capsys, "run", "assay.yaml", "--no-progress")
    assert code == 3 and "max_cost_usd" in out, out
    [run] = Store(str(Path("assay.db"))).list_runs("budgeted")
    assert (f"raise run.max_cost_usd in assay.yaml, then resume with: assay run assay.yaml "
            f"--resume {run.id}") in out  # not a resume alone, which stops again at once
    assert "--retry-errors" not in out
    paid = llm.received
    assert paid * CENTS_PER_CALL <= 5  # stopped once $0.035 was reached, not at 12 calls
    store = Store(str(Path("assay.db")))
    [run] = store.list_runs("budgeted")
    spent = store.spent_usd(run.id)
    assert spent == pytest.approx(paid * CENTS_PER_CALL / 100)

    code, out = assay(capsys, "run", "assay.yaml", "--resume", "--no-progress")
    assert code == 3, out
    assert llm.received == paid  # the run's budget was spent: no call made
    assert f"{dollars(spent)} of it before this resume" in out

    set_budget(1.0)
    code, out = assay(capsys, "run", "assay.yaml", "--resume", "--no-progress")
    assert code == 0, out
    [finished] = store.list_runs("budgeted")
    assert finished.id == run.id and finished.status == "completed"
    assert store.count_trials(run.id)[0] == 12 and store.count_errored_trials(run.id) == 0
    assert store.spent_usd(run.id) == pytest.approx(llm.received * CENTS_PER_CALL / 100)
    store.close()


def test_a_resume_counts_the_calls_a_killed_process_paid_for_and_cached_at_their_cost(
        llm: FakeLLM, capsys: pytest.CaptureFixture[str]) -> None:
    """Before, a run killed after it cached replies but before it stored their trials ran
    those trials again on resume from the cache at $0: the run's cost (terminal, report.md,
    results.json) and its budget missed calls it had paid for."""
    import json
    import sqlite3

    set_budget(1.0)
    code, out = assay(capsys, "run", "assay.yaml", "--no-progress", "-o", "first")
    assert code == 0 and llm.received == 12, out
    store = Store(str(Path("assay.db")))
    [run] = store.list_runs("budgeted")
    store.close()
    with sqlite3.connect("assay.db") as db:  # killed once the replies were cached, before
        for table in ("scores", "trials"):  # its last 4 trials were stored
            db.execute(f"DELETE FROM {table} WHERE run_id = ? AND case_id >= 'c08'", (run.id,))
        db.execute("UPDATE runs SET status = 'interrupted' WHERE id = ?", (run.id,))

    code, out = assay(capsys, "run", "assay.yaml", "--resume", "--no-progress", "-o", "resumed")
    assert code == 0, out
    assert llm.received == 12  # answered from the cache, and not paid twice
    store = Store(str(Path("assay.db")))
    assert store.spent_usd(run.id) == pytest.approx(0.12)
    store.close()
    assert "total cost $0.1200" in out, out
    assert "4 more paid for before the run was stopped" in out, out
    assert "total cost $0.1200" in Path("resumed/report.md").read_text()
    results = json.loads(Path("resumed/results.json").read_text())
    assert sum(t["usage"]["cost_usd"] for t in results["trials"]) == pytest.approx(0.12)
