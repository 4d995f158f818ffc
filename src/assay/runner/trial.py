"""One trial: the target answers, then the scorers score, each phase under a deadline.

Whatever goes wrong belongs to this trial. The target's exception or timeout
is the trial's error; a scorer's exception or timeout is that scorer's error
on the trial. Nothing the target or a scorer raises ends the run (not even
`sys.exit()` in user code), except `RunFailed` (an unreachable provider) and
cancellation (Ctrl-C).

Bounds: the answer's text is made storable and cut at `max_output_bytes`
(`bound_output`), and so are its metadata, tool calls and transcript, each cut
recorded in its metadata. Deadlines: `timeout`
seconds for the answer, and `timeout` again for the
scoring. Async scorers are cancelled at the deadline. A sync scorer runs
inline only when its kind declares itself `bounded` (linear-time checks, and
the regex checks, which bound themselves with the `regex` package's timeout);
any other (a user's function, a JSON schema) runs in a worker thread of the
run's pool. Python cannot stop a thread, so at the deadline the trial records
a timeout for each scorer that had not finished and moves on; the thread
finishes unseen, and the pool lends another in its place.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Any

from assay.case import Case
from assay.condition import Condition
from assay.errors import RunFailed
from assay.output import Output, Usage
from assay.providers.meter import metered
from assay.providers.retry import RetryWaits
from assay.redaction import redact
from assay.runner.deadline import stoppable, within
from assay.runner.output_bounds import SelfReference, bound_parts
from assay.score import Score
from assay.scorers.base import Scorer
from assay.targets.base import Target
from assay.targets.unfinished import Unfinished
from assay.trial import TrialResult
from assay.user_code.calls import describe_failure
from assay.user_code.ctrl_c import raised_by_signal
from assay.valid_text import cut_to_bytes, valid_text
from assay.workers import run_blocking

ERROR_BYTES = 20_000
"""An error message longer than this is cut: it explains, it does not carry data."""

LEAVING = (SystemExit, GeneratorExit)
"""Exceptions Python reserves for leaving the interpreter. Raised inside a trial they
are the trial's failure: assay's own exit is decided by the CLI, never by a target."""


def failure_of(exc: BaseException) -> str:
    """What the target or scorer that raised `exc` failed with; what the program's own
    SIGTERM or SIGINT handler raised where it ran (`sys.exit()` in it: the program calling
    `assay.evaluate` stopping) is raised on instead, stopping the run."""
    if raised_by_signal(exc):
        raise exc
    return describe_failure(exc)


async def run_trial(target: Target, case: Case, condition: Condition, epoch: int,
                    scorers: list[Scorer] | ScorerGroups, timeout: float | None, *,
                    max_output_bytes: int | None = None) -> TrialResult:
    """Answer one case and score it. Failures become errors on the trial, never scores."""
    started = time.perf_counter()
    paid = Usage()
    """The calls answered for the target so far: kept when it fails without an Output."""
    watch = Unfinished()
    """What the target reports it has done: kept when its deadline cuts it short."""
    waits = RetryWaits()
    """What a call of the target waits for before trying again: said when the deadline
    passes in that wait."""
    try:
        with metered(paid), watch, waits:
            output = await within(timeout, lambda: target.answer(case))
    except TimeoutError:
        output = watch.cut_short(waits.said_after(f"timeout: no answer within {timeout:g}s"),
                                 paid)
    except RunFailed:
        raise
    except (Exception, *LEAVING) as exc:  # noqa: BLE001 - the target's failure is the trial's
        output = Output(error=failure_of(exc), usage=paid)
    if output.latency_ms is None:
        output.latency_ms = (time.perf_counter() - started) * 1000
    bound_output(output, max_output_bytes)
    scores: dict[str, Score] = {}
    if output.error is None and scorers:
        groups = ScorerGroups.of(scorers)
        scores = (inline_scores(groups.inline, case, output) if groups.only_inline
                  else await score_output(groups, case, output, timeout))
    return TrialResult(case=case, condition=condition.name, epoch=epoch, output=output,
                       scores=scores)


@dataclass(frozen=True)
class ScorerGroups:
    """A run's scorers sorted once by how they run: inline (sync and bounded), in a worker
    thread (any other sync check) or awaited, instead of sorting them again for every trial."""

    scorers: list[Scorer]
    inline: list[Scorer]
    threaded: list[Scorer]
    awaited: list[Scorer]

    @property
    def only_inline(self) -> bool:
        """Every scorer runs inline: the trial is scored without awaiting anything."""
        return not self.threaded and not self.awaited

    @classmethod
    def of(cls, scorers: list[Scorer] | ScorerGroups) -> ScorerGroups:
        """The groups of `scorers` as they are now (after `setup`, which may change how a
        scorer runs)."""
        if isinstance(scorers, ScorerGroups):
            return scorers
        return cls(scorers=list(scorers),
                   inline=[s for s in scorers if s.is_sync and getattr(s, "bounded", False)],
                   threaded=[s for s in scorers
                             if s.is_sync and not getattr(s, "bounded", False)],
                   awaited=[s for s in scorers if not s.is_sync])


async def score_output(scorers: list[Scorer] | ScorerGroups, case: Case, output: Output,
                       timeout: float | None) -> dict[str, Score]:
    """Every scorer's verdict, in the scorers' order; one that does not apply to the case
    (it returned None) has no verdict, and the output's metadata says why."""
    groups = ScorerGroups.of(scorers)
    results: dict[str, Score | None] = {s.name: check(s, case, output) for s in groups.inline}
    paid = {s.name: Usage() for s in groups.awaited}
    """The calls answered for each awaited scorer: kept when it fails without a Score."""
    waits = {s.name: RetryWaits() for s in groups.awaited}
    """What each awaited scorer's call waits for before trying again, if it does."""
    jobs: list[Awaitable[Any]] = []
    if groups.threaded:
        jobs.append(run_blocking(_check_each, groups.threaded, case, output, results))
    jobs += [_scored(s, case, output, results, paid[s.name], waits[s.name])
             for s in groups.awaited]
    if jobs:
        try:
            await within(timeout, lambda: asyncio.gather(*jobs))
        except TimeoutError:
            pass  # the scorers that finished keep their verdicts
    scores: dict[str, Score] = {}
    for scorer in groups.scorers:
        if scorer.name not in results:
            timed_out = f"timeout: the scorer did not finish within {timeout:g}s"
            waited = waits.get(scorer.name)
            scores[scorer.name] = Score.failure(
                timed_out if waited is None else waited.said_after(timed_out),
                usage=_answered(paid.get(scorer.name)))
            continue
        _keep(scores, scorer.name, results[scorer.name], output)
    return scores


def inline_scores(scorers: list[Scorer], case: Case, output: Output) -> dict[str, Score]:
    """`score_output` for scorers that all run inline (sync and bounded): each verdict in
    turn, with nothing to await and no deadline that could interrupt them."""
    scores: dict[str, Score] = {}
    for scorer in scorers:
        _keep(scores, scorer.name, check(scorer, case, output), output)
    return scores


def _keep(scores: dict[str, Score], name: str, score: Score | None, output: Output) -> None:
    """Add scorer `name`'s verdict to `scores`, its error made storable; a scorer that does
    not apply (None) is named in the output's metadata instead."""
    if score is None:
        output.metadata.setdefault("not_applicable", []).append(name)
        return
    if score.error is not None:
        score.error = redact(cut_to_bytes(valid_text(score.error)[0], ERROR_BYTES)[0])
    scores[name] = score


def bound_output(output: Output, max_bytes: int | None) -> None:
    """Make the output storable: text valid, and no longer than `max_bytes` of UTF-8; the
    output's metadata records what was changed (`truncated`, `replaced_surrogates`). Its
    metadata, tool calls and transcript are kept to about `max_bytes` each
    (`truncated_parts`)."""
    if max_bytes is not None:
        try:
            bound_parts(output, max_bytes)  # first: the notes below are never cut
        except SelfReference as exc:
            output.metadata, output.tool_calls, output.transcript = {}, [], None
            output.error = output.error or str(exc)
    text, replaced = valid_text(output.text)
    if replaced:
        output.metadata["replaced_surrogates"] = replaced
    if max_bytes is not None:
        text, size = cut_to_bytes(text, max_bytes)
        if size > max_bytes and "truncated" not in output.metadata:
            output.metadata["truncated"] = {"bytes": size, "kept_bytes": max_bytes,
                                            "limit": "run.max_output_bytes"}
    output.text = text
    if output.error is not None:
        output.error = redact(cut_to_bytes(valid_text(output.error)[0], ERROR_BYTES)[0])


def check(scorer: Scorer, case: Case, output: Output) -> Score | None:
    """One sync scorer's verdict; whatever it raises is its error on this trial."""
    try:
        return scorer.check(case, output)
    except RunFailed:
        raise
    except (Exception, *LEAVING) as exc:  # noqa: BLE001 - a scorer's failure is its error
        return Score.failure(f"scorer failed: {failure_of(exc)}")


def _answered(usage: Usage | None) -> Usage | None:
    """`usage` when it counts a call (paid or from the cache), else None: a failed scorer
    that made no call has no usage, not a usage of nothing."""
    return usage if usage is not None and (usage.calls or usage.cache_hits) else None


def _check_each(scorers: list[Scorer], case: Case, output: Output,
                results: dict[str, Score | None]) -> None:
    """Run in a worker thread: each verdict lands in `results` as soon as it is known."""
    for scorer in scorers:
        results[scorer.name] = check(scorer, case, output)


async def _scored(scorer: Scorer, case: Case, output: Output,
                  results: dict[str, Score | None], paid: Usage, waits: RetryWaits) -> None:
    """`scorer`'s verdict into `results`; the calls it is answered are counted in `paid`,
    and a wait before a retry noted in `waits` (this runs in a task of its own, so only its
    calls are)."""
    try:
        with metered(paid), waits:
            results[scorer.name] = await stoppable(scorer.score(case, output))
    except RunFailed:
        raise
    except (Exception, *LEAVING) as exc:  # noqa: BLE001 - a scorer's failure is its error
        results[scorer.name] = Score.failure(f"scorer failed: {failure_of(exc)}",
                                             usage=_answered(paid))
