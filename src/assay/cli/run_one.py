"""Run one config from the command line: execute, write files, print, judge the gates."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.config.models import GateConfig
from assay.errors import RunFailed


@dataclass
class RunRequest:
    config: Path
    resume: str | None = None
    retry_errors: bool = False
    sample: int | None = None
    epochs: int | None = None
    concurrency: int | None = None
    conditions: list[str] | None = None
    use_cache: bool = True
    output: Path | None = None
    extra_gates: list[GateConfig] = field(default_factory=list)
    progress: bool | None = None


def run_one(request: RunRequest, store: Any, out: Any) -> int:
    """Run a config and return its exit code (0 gates pass, 1 a gate failed)."""
    from assay.config import load_config
    from assay.runner.session import RunOptions, execute

    loaded = load_config(request.config)
    options = RunOptions(
        resume=True if request.resume == "latest" else request.resume,
        retry_errors=request.retry_errors, sample=request.sample, epochs=request.epochs,
        concurrency=request.concurrency, conditions=request.conditions,
        use_cache=request.use_cache, progress=request.progress, extra_gates=request.extra_gates)
    try:
        outcome = execute(loaded, store, options)
    except RunFailed as exc:
        unfinished = store.list_runs(loaded.name, limit=1)
        hint = ""
        if unfinished and unfinished[0].status != "completed":
            hint = f"\n  resume with: assay run {request.config} --resume {unfinished[0].id}"
        raise RunFailed(f"{exc}{hint}") from None
    for warning in outcome.warnings:
        out.print(f"[yellow]warning:[/yellow] {warning}")
    output_dir = request.output or Path(".assay") / "runs" / outcome.run.id
    write_reports(store, outcome, output_dir)
    from assay.reports.terminal import print_summary

    print_summary(out, outcome.run, outcome.summary, outcome.gates, outcome.usage)
    out.print(f"results: {output_dir / 'results.json'}\nreport:  {output_dir / 'report.md'}")
    return 0 if outcome.gates_passed else 1


def write_reports(store: Any, outcome: Any, output_dir: Path) -> None:
    from assay.reports.markdown import render_markdown
    from assay.reports.results_json import write_results_json

    output_dir.mkdir(parents=True, exist_ok=True)
    run, summary = outcome.run, outcome.summary
    with (output_dir / "results.json").open("w", encoding="utf-8") as handle:
        write_results_json(handle, run, summary, store.iter_trials(run.id),
                           extra={"gates": [g.to_dict() for g in outcome.gates]})
    markdown = render_markdown(run, summary, store.iter_trials(run.id), gates=outcome.gates)
    (output_dir / "report.md").write_text(markdown, encoding="utf-8")
