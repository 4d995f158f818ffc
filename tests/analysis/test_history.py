"""History: runs grouped by experiment and kind, oldest first, with the metrics their summaries hold."""

from __future__ import annotations

from types import SimpleNamespace

from assay.analysis.history import build_history


def run(run_id: str, started: str, summary: dict | None, *, experiment: str = "exp",
        kind: str = "eval", status: str = "completed", dataset: str | None = "d1",
        packs: dict[str, str] | None = None) -> SimpleNamespace:
    return SimpleNamespace(id=run_id, experiment=experiment, kind=kind, status=status,
                           started_at=started, git_commit=None, summary=summary,
                           dataset_hash=dataset, pack_hashes=packs)


def scores(pass_rate: float | None, mean: float) -> dict:
    return {"scores": [{"scorer": "judge", "condition": "pack", "pass_rate": pass_rate,
                        "mean": mean},
                       {"scorer": "f1", "condition": "pack", "pass_rate": None, "mean": mean / 10}]}


def test_eval_runs_show_pass_rates_in_percent_and_means_oldest_first() -> None:
    [history] = build_history([run("r3", "2026-01-03", scores(0.9, 8)),
                               run("r1", "2026-01-01", scores(0.5, 6)),
                               run("r2", "2026-01-02", None, status="interrupted")])
    assert [p.run_id for p in history.points] == ["r1", "r2", "r3"]
    assert history.metrics == ["judge@pack", "f1.mean@pack"]
    assert history.series("judge@pack") == [50.0, None, 90.0]
    assert history.trend("judge@pack") == "up"
    assert history.series("f1.mean@pack") == [0.6, None, 0.8]


def test_an_eval_run_counts_its_errored_trials_beside_its_pass_rates() -> None:
    """Regression: a run where 3 of 15 trials of docs errored read `100.0%` in `assay history`
    with nothing to tell it from a clean run (the figure is over the 12 scored)."""
    def summary(errors: int) -> dict:
        return {**scores(1.0, 9), "conditions": [{"condition": "pack", "trials": 15,
                                                   "errors": errors}]}
    [history] = build_history([run("r1", "2026-01-01", summary(0)),
                               run("r2", "2026-01-02", summary(3))])
    assert history.metrics == ["judge@pack", "f1.mean@pack", "target_errors"]
    assert history.series("judge@pack") == [100.0, 100.0]
    assert history.series("target_errors") == [0.0, 3.0]


def test_trends_go_down_stay_flat_or_are_new() -> None:
    [history] = build_history([run("r1", "1", scores(0.9, 8)), run("r2", "2", scores(0.9, 7))])
    assert history.trend("judge@pack") == "flat"
    assert history.trend("f1.mean@pack") == "down"
    [single] = build_history([run("r1", "1", scores(0.9, 8))])
    assert single.trend("judge@pack") == "new"


def test_traces_runs_show_their_stored_metrics_and_finding_counts() -> None:
    summary = {"metrics": {"wiki_hit_rate": 0.4, "wasted_reads": 3, "exchanges": 10},
               "findings": {"citation": 2, "wiki-gap": 1}, "judge_model": "m",
               "most_read": [{"path": "a.md", "questions": 2}]}
    histories = build_history([run("t1", "1", summary, kind="traces", status="finished"),
                               run("e1", "1", scores(0.5, 5))])
    traces = next(h for h in histories if h.kind == "traces")
    assert traces.points[0].metrics == {"wiki_hit_rate": 0.4, "wasted_reads": 3.0,
                                        "exchanges": 10.0, "findings.citation": 2.0,
                                        "findings.wiki-gap": 1.0}
    assert [h.kind for h in histories] == ["eval", "traces"]


def test_a_run_over_another_dataset_is_marked_and_no_trend_is_read_across_it() -> None:
    """Regression: 3 cases of the dataset after 15 read as "up" from 20% to 67%."""
    [history] = build_history([run("r1", "1", scores(0.2, 5)),
                               run("r2", "2", scores(0.67, 5), dataset="d2")])
    assert [p.dataset_changed for p in history.points] == [False, True]
    assert history.trend("judge@pack") == "dataset_changed"
    assert history.to_dict()["runs"][1]["dataset_changed"] is True
    [history] = build_history([run("r1", "1", scores(0.2, 5)),
                               run("r2", "2", scores(0.67, 5), dataset="d2"),
                               run("r3", "3", scores(0.5, 5), dataset="d2")])
    assert history.trend("judge@pack") == "down"  # r2 and r3 answered the same questions


def test_a_change_in_a_run_without_the_metric_still_breaks_the_trend() -> None:
    [history] = build_history([run("r1", "1", scores(0.2, 5)),
                               run("r2", "2", None, status="failed", dataset="d2"),
                               run("r3", "3", scores(0.9, 5), dataset="d2")])
    assert history.trend("judge@pack") == "dataset_changed"


def test_runs_that_record_no_dataset_do_not_count_as_a_change() -> None:
    [history] = build_history([run("t1", "1", scores(0.2, 5)),
                               run("t2", "2", scores(0.4, 5), dataset=None),
                               run("t3", "3", scores(0.6, 5))])
    assert not any(p.dataset_changed for p in history.points)
    assert history.trend("judge@pack") == "up"


def test_a_move_is_beyond_noise_only_when_the_two_runs_intervals_do_not_overlap() -> None:
    def summary(rate: float, low: float, high: float) -> dict:
        return {"scores": [{"scorer": "s", "condition": "c", "pass_rate": rate,
                            "pass_rate_ci": {"low": low, "high": high}}]}

    [apart] = build_history([run("r1", "2026-01-01", summary(0.2, 0.1, 0.4)),
                             run("r2", "2026-01-02", summary(0.8, 0.6, 0.9))])
    [overlapping] = build_history([run("r1", "2026-01-01", summary(0.4, 0.2, 0.6)),
                                   run("r2", "2026-01-02", summary(0.6, 0.4, 0.8))])
    assert apart.beyond_noise("s@c") and not overlapping.beyond_noise("s@c")
    assert overlapping.trend("s@c") == "up"


def test_a_run_whose_pack_was_edited_since_the_last_run_reading_it_names_the_pack() -> None:
    """Regression: each run kept its packs' content hashes, yet the history of an experiment
    said nothing of a pack edited between two runs; their move read as the agent's alone.
    The trend still stands (the pack may be what is being improved)."""
    [history] = build_history([
        run("r1", "1", scores(0.5, 5), packs={"go-docs": "a", "faq": "f"}),
        run("r2", "2", scores(0.6, 6), packs=None),  # a run that read no pack
        run("r3", "3", scores(0.9, 8), packs={"go-docs": "b", "faq": "f"}),
        run("r4", "4", scores(0.9, 8), packs={"go-docs": "b"})])
    assert [p.packs_changed for p in history.points] == [(), (), ("go-docs",), ()]
    assert history.to_dict()["runs"][2]["packs_changed"] == ["go-docs"]
    assert history.trend("judge@pack") != "dataset_changed"
