"""The app's addresses, built in one place so pages and tests agree on them."""

from __future__ import annotations

from urllib.parse import quote, urlencode

from assay.trial import TrialKey


def link(path: str, **params: object) -> str:
    """`path?name=value&...`, leaving out parameters that are None or empty."""
    query = urlencode({k: v for k, v in params.items() if v is not None and v != ""})
    return f"{path}?{query}" if query else path


def runs_link(**filters: object) -> str:
    return link("/", **filters)


def run_link(run_id: str) -> str:
    return f"/runs/{quote(run_id, safe='')}"


def cases_link(run_id: str, **params: object) -> str:
    return link(f"{run_link(run_id)}/cases", **params)


def trial_link(run_id: str, key: TrialKey) -> str:
    case_id, condition, epoch = key
    return link(f"{run_link(run_id)}/trial", case=case_id, condition=condition, epoch=epoch)


def compare_link(run_a: str, run_b: str, **params: object) -> str:
    return link("/compare", a=run_a, b=run_b, **params)


def compare_cases_link(run_a: str, run_b: str, **params: object) -> str:
    return link("/compare/cases", a=run_a, b=run_b, **params)


def history_link(experiment: str) -> str:
    return link("/history", experiment=experiment)
