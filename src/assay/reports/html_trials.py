"""Every trial of a run as compact JSON for `report.html`, written as the trials stream by.

The page lists cases side by side and pages through them with a little
JavaScript, so it needs every trial, not a capped table: a case past the
first few thousand must still be found by a search. Each case's input,
expected answer and tags are kept once (not once per condition and epoch),
and each trial is one JSON array (`TRIAL_FIELDS` names its slots), so a
100k-trial page stays a file a browser opens.

Texts are kept up to a cap that shrinks as a run grows (`TextCaps`), and a
cut text says so; `results.json` keeps them whole. The JSON is made safe to
sit inside a `<script type="application/json">` block: `<`, `>` and `&` are
written as \\u escapes, so no text can close the block or open a tag. The
page's script only ever puts this text into the page as text, never as HTML.
report.html carries it gzipped in base64 besides (`packed_text`).

Trials go to a spooled temporary file as they are added (in the pass that
writes `results.json`), so a big run is never held in memory as rows.
"""

from __future__ import annotations

import json
import math
import re
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

import orjson

from assay.records import TrialRecord
from assay.reports.results_json import ORJSON_OPTIONS
from assay.reports.text import BIDI_CONTROLS
from assay.reports.unfinished import unfinished
from assay.score import Score
from assay.trial import epoch_label

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

TRIAL_FIELDS = ("case", "condition", "epoch", "status", "output", "error", "latency_ms",
                "usage", "scores", "tools", "steps", "attempts", "stopped")
"""The slots of one trial's array, in order (the page's script reads them by position)."""
CASE_FIELDS = ("id", "input", "expected", "tags", "difficulty")
SCORE_FIELDS = ("value", "passed", "reason", "error", "details")
TOOL_FIELDS = ("name", "arguments", "result", "error", "duration_ms")
STEP_FIELDS = ("turn", "text", "tool_calls", "latency_ms", "input_tokens", "output_tokens",
               "cached", "stop_reason")
_JUDGE_KEYS = frozenset(("judge_model", "metrics", "reasoning", "unverified_claims", "label",
                         "judgements", "unstable"))
"""The keys of a score's details that `_judge_details` reads."""
CUT = " … [cut: the whole text is in results.json]"
SPOOL_BYTES = 32 * 1024 * 1024
"""Trials are kept in memory up to this size, then in a temporary file."""
BATCH = 16
"""Trials (and cases) turned into JSON together: one encoding per batch, not one per trial."""


@dataclass(frozen=True)
class TextCaps:
    """How much of each text the page keeps per trial."""

    text: int = 20_000
    """Outputs, inputs and expected answers."""
    reason: int = 4_000
    """A judge's reason or reasoning per metric, a scorer's error."""
    tool: int = 2_000
    """A tool call's arguments and result, an agent step's text."""

    @classmethod
    def for_trials(cls, trials: int) -> TextCaps:
        """Whole texts for a run of up to 2,000 trials; past that, each trial's share of a
        page of about 60 MB (at least a few hundred characters per text)."""
        if trials <= 2_000:
            return cls()
        share = 2_000 / trials
        return cls(text=max(600, math.floor(20_000 * share)),
                   reason=max(300, math.floor(4_000 * share)),
                   tool=max(200, math.floor(2_000 * share)))


class TrialData:
    """The page's trials and cases, fed one trial at a time."""

    def __init__(self, scorers: list[str], conditions: list[str], *, epochs: int | None,
                 caps: TextCaps | None = None) -> None:
        self.scorers = list(scorers)
        self.epochs = epochs
        """The run's epoch count: the page names each trial's epoch as `epoch_label` does."""
        self._last_epoch = 0
        self.conditions = list(conditions)
        # what it was made with; others are added as the trials show them
        self.initial_scorers = tuple(scorers)
        self.initial_conditions = tuple(conditions)
        self.caps = caps or TextCaps()
        self.count = 0
        self.failing = 0
        self._known = set(self.scorers)
        self._cases: dict[str, int] = {}
        self._case_rows: list[str] = []
        self._new_cases: list[list[Any]] = []
        self._rows: list[list[Any]] = []
        self._spool: IO[str] = tempfile.SpooledTemporaryFile(  # noqa: SIM115 - closed in write
            max_size=SPOOL_BYTES, mode="w+", encoding="utf-8")
        self._written = False

    def add(self, trial: TrialRecord) -> None:
        case_id = str(trial.case_id)
        index = self._cases.get(case_id)
        if index is None:
            index = self._cases[case_id] = len(self._cases)
            self._new_cases.append([case_id, self._text(_as_text(trial.input)),
                                    self._text(_as_text(trial.expected)),
                                    [str(t) for t in trial.tags], trial.difficulty])
            if len(self._new_cases) == BATCH:
                self._case_rows.append(_dump_rows(self._new_cases))
                self._new_cases = []
        condition = str(trial.condition)
        if condition not in self.conditions:
            self.conditions.append(condition)
        status = trial_status(trial)
        self.failing += status != "p"
        self._last_epoch = max(self._last_epoch, trial.epoch)
        output = trial.output
        scores = trial.scores
        if self._known.issuperset(scores):  # every trial, but those of a scorer not seen yet
            rows = [self._score(scores.get(name)) for name in self.scorers]
        else:
            rows = [self._score(scores.get(name)) for name in self.scorers] + [
                self._score(score) for name, score in scores.items() if name not in self._known]
            for name in scores:
                if name not in self._known:
                    self.scorers.append(name)
                    self._known.add(name)
        self._rows.append([
            index, self.conditions.index(condition), trial.epoch, status,
            self._text(output.text), self._cut(output.error, self.caps.reason),
            _round(output.latency_ms), self._usage(trial), rows,
            [self._tool(call) for call in output.tool_calls] if output.tool_calls else [],
            self._steps(trial), _attempts(trial), unfinished(output.metadata)])
        self.count += 1
        if len(self._rows) == BATCH:
            self._spill()

    def _spill(self) -> None:
        """Write the trials gathered so far to the spool, as one batch of JSON."""
        if self._rows:
            self._spool.write(("," if self._written else "") + _dump_rows(self._rows))
            self._written = True
            self._rows = []

    @property
    def cases(self) -> int:
        return len(self._cases)

    def write(self, handle: SupportsWrite[str]) -> None:
        """The whole JSON document, escaped for a script block; the spool is closed after."""
        self._spill()
        if self._new_cases:
            self._case_rows.append(_dump_rows(self._new_cases))
            self._new_cases = []
        head = {"scorers": self.scorers, "conditions": self.conditions,
                "epochs": [epoch_label(e, self.epochs) for e in range(self._last_epoch + 1)],
                "fields": {"trial": TRIAL_FIELDS, "case": CASE_FIELDS, "score": SCORE_FIELDS,
                           "tool": TOOL_FIELDS, "step": STEP_FIELDS}}
        handle.write(_dump(head)[:-1] + ',"cases":[' + ",".join(self._case_rows)
                     + '],"trials":[')
        self._spool.seek(0)
        try:
            while chunk := self._spool.read(1 << 20):
                handle.write(chunk)
        finally:
            self._spool.close()
        handle.write("]}")

    # -- the parts of a trial ------------------------------------------------------------------

    def _text(self, text: str | None) -> str:
        return self._cut(text, self.caps.text) or ""

    @staticmethod
    def _cut(text: str | None, limit: int) -> str | None:
        if text is None:
            return None
        text = str(text)
        return text if len(text) <= limit else text[:limit] + CUT

    def _usage(self, trial: TrialRecord) -> list[Any] | None:
        usage = trial.usage
        if not (usage.input_tokens or usage.output_tokens or usage.cost_usd is not None):
            return None
        return [usage.input_tokens, usage.output_tokens, usage.cost_usd]

    def _score(self, score: Score | None) -> list[Any] | None:
        if score is None:
            return None
        passed, details = score.passed, score.details
        row: list[Any] = [score.value, None if passed is None else int(passed),
                          self._cut(score.reason, self.caps.reason) or "",
                          self._cut(score.error, self.caps.reason)]
        if details and not _JUDGE_KEYS.isdisjoint(details):  # a judge's (rarely any other's)
            judged = self._judge_details(details)
            if judged:
                row.append(judged)
        return row

    def _judge_details(self, details: dict[str, Any]) -> dict[str, Any]:
        """What a person reads of a judge: metrics, reasoning, unverified claims, every repeat."""
        if not details or _JUDGE_KEYS.isdisjoint(details):
            return {}  # a deterministic scorer's details: nothing of a judge's
        out: dict[str, Any] = {}
        if isinstance(details.get("judge_model"), str):
            out["judge"] = details["judge_model"]
        metrics = details.get("metrics")
        if isinstance(metrics, dict) and metrics:
            out["metrics"] = {str(k): v for k, v in metrics.items()}
        reasoning = details.get("reasoning")
        if isinstance(reasoning, dict) and reasoning:
            out["reasoning"] = {str(k): self._cut(str(v), self.caps.reason)
                                for k, v in reasoning.items()}
        claims = details.get("unverified_claims")
        if isinstance(claims, list) and claims:
            out["claims"] = [self._cut(str(c), self.caps.reason) for c in claims]
        if isinstance(details.get("label"), str):
            out["label"] = details["label"]
        judgements = details.get("judgements")
        if isinstance(judgements, list) and judgements:
            out["repeats"] = [self._repeat(j) for j in judgements if isinstance(j, dict)]
        if details.get("unstable"):
            out["unstable"] = True
        return out

    def _repeat(self, judgement: dict[str, Any]) -> dict[str, Any]:
        """One asking of the judge: its verdict, value or label, reason, or its error."""
        keep: dict[str, Any] = {}
        for key in ("passed", "value", "label", "error"):
            if judgement.get(key) is not None:
                keep[key] = judgement[key]
        if judgement.get("reason"):
            keep["reason"] = self._cut(str(judgement["reason"]), self.caps.reason)
        metrics = judgement.get("metrics")
        if isinstance(metrics, dict) and metrics:
            keep["metrics"] = metrics
        return keep

    def _tool(self, call: Any) -> list[Any]:
        arguments = json.dumps(call.arguments, ensure_ascii=False, default=str)
        result = call.result if call.result is None or isinstance(call.result, str) \
            else json.dumps(call.result, ensure_ascii=False, default=str)
        return [str(call.name), self._cut(arguments, self.caps.tool),
                self._cut(result, self.caps.tool), self._cut(call.error, self.caps.tool),
                _round(call.duration_ms)]

    def _steps(self, trial: TrialRecord) -> list[list[Any]]:
        """An agent's turns (from the agent target's metadata); empty for other targets."""
        agent = trial.output.metadata.get("agent") if trial.output.metadata else None
        steps = agent.get("steps") if isinstance(agent, dict) else None
        if not isinstance(steps, list):
            return []
        out = []
        for step in steps:
            if not isinstance(step, dict):
                continue
            calls = step.get("tool_calls")
            out.append([step.get("turn"), self._cut(str(step.get("text") or ""), self.caps.tool),
                        len(calls) if isinstance(calls, list) else 0,
                        _round(step.get("latency_ms")), step.get("input_tokens"),
                        step.get("output_tokens"), bool(step.get("cached")),
                        step.get("stop_reason")])
        return out


def _attempts(trial: TrialRecord) -> int | None:
    """How many attempts an agent trial made when it made more than one (a tool requirement
    retried): its tools and steps are the last attempt's, its usage every attempt's."""
    agent = trial.output.metadata.get("agent") if trial.output.metadata else None
    attempts = agent.get("attempts") if isinstance(agent, dict) else None
    return attempts if isinstance(attempts, int) and attempts > 1 else None


def trial_status(trial: TrialRecord) -> str:
    """`e` errored (the target or a scorer), `f` a check failed, `p` passed."""
    if trial.error:
        return "e"
    status = "p"
    for score in trial.scores.values():
        if score.error:
            return "e"
        if score.passed is False:
            status = "f"
    return status


def collect(trials: Iterable[TrialRecord], scorers: list[str], conditions: list[str], *,
            epochs: int | None, caps: TextCaps | None = None) -> TrialData:
    data = TrialData(scorers, conditions, epochs=epochs, caps=caps)
    for trial in trials:
        data.add(trial)
    return data


def _as_text(value: Any) -> str:
    """A case field as text: text as is, chat messages one per line, else JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(m, dict) for m in value):
        return "\n".join(f"{m.get('role', '?')}: {m.get('content', '')}" for m in value)
    return json.dumps(value, ensure_ascii=False, default=str)


_NUMBERS = (int, float)


def _round(value: Any) -> int | float | None:
    if not isinstance(value, _NUMBERS) or isinstance(value, bool) or not math.isfinite(value):
        return None
    return round(value) if value >= 10 else round(value, 2)


_SCRIPT_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                              "\u2028": "\\u2028", "\u2029": "\\u2029",
                              **dict.fromkeys(BIDI_CONTROLS, " ")})
"""Also each bidirectional override becomes a space: drawn, it read the words after it (`open
CASE: full outputs`) backwards."""


_UNSAFE = re.compile(f"[<>&\u2028\u2029{BIDI_CONTROLS}]")


def _dump(value: Any) -> str:
    """Compact JSON that cannot end a script block or open a tag.

    By orjson (a page holds every trial of a run); a NaN or an infinity, which JSON.parse
    would refuse, becomes null, and what orjson refuses (an integer past 64 bits) goes
    through `json`. Anything else JSON cannot hold is its `str()`, as `json` would write it.
    """
    try:
        text = orjson.dumps(value, default=str, option=ORJSON_OPTIONS).decode()
    except orjson.JSONEncodeError:
        text = json.dumps(_clean(value), ensure_ascii=False, separators=(",", ":"),
                          default=str)
    if _UNSAFE.search(text):
        text = text.translate(_SCRIPT_SAFE)
    return text


def _dump_rows(rows: list[Any]) -> str:
    """`",".join(_dump(row) for row in rows)`, by one encoding of the whole list when it can."""
    try:
        text = orjson.dumps(rows, default=str, option=ORJSON_OPTIONS).decode()[1:-1]
    except orjson.JSONEncodeError:  # one row orjson refuses: each row as `_dump` writes it
        return ",".join(_dump(row) for row in rows)
    if _UNSAFE.search(text):
        text = text.translate(_SCRIPT_SAFE)
    return text


def _clean(value: Any) -> Any:
    """NaN and infinities (which JSON.parse refuses) as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value
