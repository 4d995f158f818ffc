"""Which runs a rejudge works on: the completed run it judges again, or its own unfinished run.

A rejudge is started on a completed run only: an unfinished one has not all
its answers, and a rejudge stopped part way is continued with
`assay rejudge --resume`, which keeps the verdicts it stored and judges the
rest with the options it was started with (its repeats, scorers and judge
model, recorded on the run). `assay run --resume` refuses it: that would
call the target and judge once.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from assay.errors import UserError

if TYPE_CHECKING:
    from assay.records import RunRecord
    from assay.rejudge.session import RejudgeRequest
    from assay.store import Store

KIND = "rejudge"
JUDGEABLE = ("eval", KIND)


def original_run(store: Store, ref: str, experiment: str | None) -> RunRecord:
    """The completed run whose stored answers are to be judged again."""
    run = store.resolve_run(ref, experiment)
    if run.kind not in JUDGEABLE:
        raise UserError(f"run {run.id} is a {run.kind} run; rejudge works on eval runs")
    if run.status != "completed":
        how = f"{'continue' if run.kind == KIND else 'finish'} it with `{run.resume_command}`"
        raise UserError(f"run {run.id} is {run.status}, not completed, so not every answer "
                        f"is stored: {how}, or name a completed run")
    return run


def unfinished_rejudge(store: Store, ref: str, experiment: str | None) -> RunRecord:
    """The rejudge run to continue: `ref` (an id or prefix), or with `latest` the newest
    unfinished rejudge run (of `experiment`, when given)."""
    if ref == "latest":
        unfinished = [r for r in store.list_runs(experiment, kind=KIND, limit=20)
                      if r.status != "completed"]
        if not unfinished:
            scope = f" of experiment '{experiment}'" if experiment else ""
            raise UserError(f"nothing to resume: no unfinished rejudge run{scope} (run "
                            "`assay rejudge RUN` without --resume to start one)")
        return unfinished[0]
    run = store.resolve_run(ref, experiment)
    if run.kind != KIND:
        article = "an" if run.kind[:1] in "aeiou" else "a"  # an eval run
        raise UserError(f"run {run.id} is {article} {run.kind} run, not a rejudge: resume it with "
                        f"`{run.resume_command}`")
    if run.status == "completed":
        raise UserError(f"run {run.id} is completed: nothing to resume (`assay report "
                        f"{run.id}` shows it)")
    return run


def resumed_request(run: RunRecord, request: RejudgeRequest) -> RejudgeRequest:
    """`request` as the unfinished rejudge `run` was started: its original run, repeats,
    scorers and judge model; a different choice on the command line is refused."""
    options = run.options or {}
    started = {"repeats": int(options.get("repeats") or 1),
               "scorer": sorted(str(name) for name in options.get("scorers") or []),
               "judge-model": options.get("judge_model")}
    given = {"repeats": request.repeats, "scorer": sorted(request.scorers) or None,
             "judge-model": request.judge_model}
    for option, value in given.items():  # the same value again is no change: as `assay run`
        if value is not None and value != started[option]:
            raise UserError(f"cannot resume run {run.id} with {_as_typed(option, value)}: it "
                            f"was started with {_as_typed(option, started[option])} "
                            "(resuming would mix two different runs); leave out --repeats, "
                            "--scorer and --judge-model to continue it as it was started")
    source = options.get("rejudge_of")
    if not isinstance(source, str):
        raise UserError(f"run {run.id} does not say which run it judges again; start a new "
                        "rejudge instead")
    return replace(request, run=source, experiment=None, repeats=int(options.get("repeats") or 1),
                   scorers=[str(name) for name in options.get("scorers") or []],
                   judge_model=options.get("judge_model"))


def _as_typed(option: str, value: object) -> str:
    """An option as it is typed: `--scorer a --scorer b`, `no --judge-model`."""
    if value is None:
        return f"no --{option}"
    values = value if isinstance(value, list) else [value]
    return " ".join(f"--{option} {item}" for item in values)
