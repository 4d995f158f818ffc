"""Reading a page's query string into the store's filters, refusing what makes no sense.

A bad parameter is the reader's mistake, answered with a 400 page that says
which parameter and what it accepts, never a traceback.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime

from assay.records import RUN_KINDS
from assay.store.filters import SHOWS, CaseFilter, RunFilter
from assay.trial import TrialKey

MAX_TEXT = 300
"""The longest text a filter takes (a case id is at most 300 characters in the store)."""


class BadRequest(ValueError):
    """A query parameter the page cannot use; the message names it."""


RUN_STATUSES = ("running", "reviewing", "completed", "interrupted", "aborted", "failed",
                "finished", "incomplete")


def run_filter(query: Mapping[str, str]) -> RunFilter:
    return RunFilter(experiment=text(query, "experiment"), kind=choice(query, "kind", RUN_KINDS),
                     status=choice(query, "status", RUN_STATUSES), since=day(query, "since"),
                     until=day(query, "until"))


def case_filter(query: Mapping[str, str]) -> CaseFilter:
    show = choice(query, "show", SHOWS) or "all"
    return CaseFilter(show=show, tag=text(query, "tag"), text=text(query, "q"),  # type: ignore[arg-type]
                      scorer=text(query, "scorer"), baseline=text(query, "baseline"))


def choice(query: Mapping[str, str], name: str, choices: Sequence[str]) -> str | None:
    """One of `choices`, or None when not given: a value the page has no use for is refused,
    not read as a filter that matches nothing."""
    value = text(query, name)
    if value is not None and value not in choices:
        raise BadRequest(f"{name}={value!r}: use one of {', '.join(choices)}")
    return value


def trial_key(query: Mapping[str, str]) -> TrialKey:
    case_id, condition = text(query, "case"), text(query, "condition")
    if case_id is None or condition is None:
        raise BadRequest("a trial is named by case, condition and epoch "
                         "(?case=ID&condition=NAME&epoch=0)")
    return case_id, condition, whole(query, "epoch", default=0)


def whole(query: Mapping[str, str], name: str, *, default: int, most: int = 10**9) -> int:
    raw = query.get(name)
    if raw is None or raw == "":
        return default
    if not (raw.isascii() and raw.isdigit()) or int(raw) > most:  # '²' is a digit to isdigit
        raise BadRequest(f"{name}={raw!r}: use a whole number from 0 to {most}")
    return int(raw)


def text(query: Mapping[str, str], name: str) -> str | None:
    value = query.get(name)
    if value is None or value.strip() == "":
        return None
    if len(value) > MAX_TEXT:
        raise BadRequest(f"{name} is {len(value)} characters long; at most {MAX_TEXT}")
    return value


def day(query: Mapping[str, str], name: str) -> str | None:
    """A date (`2025-01-31`) or an ISO time, as the store compares start times: as text, in
    UTC. A time with an offset (`09:00-05:00`) is moved to UTC, or it would be compared by its
    clock reading with start times in UTC, hours off; a time without one is UTC."""
    value = text(query, name)
    if value is None:
        return None
    try:
        if len(value) == 10:
            date.fromisoformat(value)
            return value
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise BadRequest(f"{name}={value!r}: write a date like 2025-01-31") from None
    if moment.tzinfo is None:
        return value
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat()
