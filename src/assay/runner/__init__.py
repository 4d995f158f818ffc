"""The runner: the only place that schedules work.

Owns the plan (cases x conditions x epochs), preflight (everything checked
before a run spends anything; `tool_names`, a warning of tools cases expect that no
agent is offered), the bounded pipeline that answers, scores and
commits trials, resume, and progress. It stops once the trials are stored:
it never imports review or analysis. May import config, datasets, targets,
scorers, providers, context, user_code, judging (a run's pairwise scorers),
calibration (a judge's required calibration) and the store.
"""
