"""One trial whole: the input, what was expected, the full output, the agent's trajectory
step by step, every score with its judge's reasoning, metrics, unverified claims and each
repeat's judgement, and tokens, cost and latency."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from assay.view.judgements import score_details
from assay.view.pages import error_page, path_run, render
from assay.view.params import trial_key
from assay.view.trajectory import trajectory


def trial_page(request: Request) -> Response:
    run = path_run(request)
    if isinstance(run, Response):
        return run
    store = request.app.state.store
    key = trial_key(request.query_params)
    trial = store.get_trial(run.id, key)
    if trial is None:
        case_id, condition, epoch = key
        epochs = f"; the run has {run.epochs}" if run.epochs else ""
        return error_page(f"run {run.id} has no trial of case {case_id!r} under "
                          f"{condition!r} at epoch={epoch} (a link counts epochs from 0"
                          f"{epochs})", status=404)
    others = store.trial_keys(run.id, trial.case_id)
    metadata = {k: v for k, v in trial.output.metadata.items() if k != "agent"}
    agent = trial.output.metadata.get("agent") or {}
    return render("trial.html.j2", run=run, trial=trial, others=others,
                  steps=trajectory(trial.output),
                  details={name: score_details(s) for name, s in trial.scores.items()},
                  metadata=metadata, agent=agent if isinstance(agent, dict) else {},
                  messages=_messages(trial.input))


def _messages(value: object) -> list[dict[str, object]] | None:
    """Chat messages as given (each with a role), or None for a plain input."""
    if isinstance(value, list) and value and all(isinstance(m, dict) and "role" in m
                                                 for m in value):
        return value
    return None
