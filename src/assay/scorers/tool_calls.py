"""The tool-call check: did the agent call the expected tools with the expected arguments?

The agent-suite grader: the same tool names in the same order, every expected
argument equal (arguments the agent adds are allowed), the same number of
calls, and a reason naming the first mismatch the way a person reads it:
`call 1: arg 'order_id' expected '12345', got '999'`. Calls are numbered from 1.
An unordered mode matches the calls as a multiset, and `allow_extra_calls`
lets the agent make calls beyond the expected ones (beyond at least one: a case
that expects no call, `[]` or `if_missing: no_calls`, allows none).

The check is of what the agent asked for, as the agent-suite grader's is: a
call that matches counts even when the tool answered it with an error, and
the reason then says so (`the tool call matches, but call 1 (lookup) failed:
no entry for 'zeta'`), so a pass over a call that did nothing is not read as
one that worked. Whether the calls succeeded is the condition's
`require_mcp_tool_success` to require. A call of a tool the agent was not offered
(an agent target lists its tools) matches nothing, whatever its name: a case
expecting a tool no server has, and a model that made up the same name, is no pass.

A case without `expected_tool_calls` says nothing about tools, so the check
does not apply to it: no verdict (see `Scorer.check`), rather than a pass or a
fail that would count in the pass rate and the comparisons. Only an explicit
`expected_tool_calls: []` means "no tool may be called".
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from assay.case import Case
from assay.output import Output, ToolCall
from assay.registry import scorer
from assay.score import Score
from assay.scorers._expected import CheckParams
from assay.scorers.base import CheckScorer


@dataclass(frozen=True, slots=True)
class ExpectedCall:
    """One expected call: the tool's name and the arguments that must be present and equal."""

    name: str
    arguments: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": self.arguments}


def parse_expected_calls(case: Case, if_missing: str) -> list[ExpectedCall] | Score | None:
    """The case's expected calls, a `Score.failure` saying what is wrong with them, or None
    when the case has none and `if_missing` is `not_applicable`."""
    raw = case.expected_tool_calls
    if raw is None:
        if if_missing == "error":
            return Score.failure(f"case '{case.id}' has no expected_tool_calls")
        if if_missing == "not_applicable":
            return None
        return []
    if not isinstance(raw, list):
        return Score.failure(f"case '{case.id}' expected_tool_calls is not a list")
    calls: list[ExpectedCall] = []
    for index, item in enumerate(raw):
        where = f"case '{case.id}' expected_tool_calls[{index}]"
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            return Score.failure(f"{where} needs a 'name'")
        given = [key for key in ("args", "arguments", "input") if key in item]
        if len(given) > 1:
            return Score.failure(f"{where} gives arguments twice ({' and '.join(given)})")
        arguments = item[given[0]] if given else {}
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            return Score.failure(f"{where} arguments must be a mapping")
        calls.append(ExpectedCall(item["name"], arguments))
    return calls


def same_value(expected: Any, actual: Any) -> bool:
    """JSON equality: `True` is not `1`, `1` is `1.0`, containers compare item by item."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, dict):
        return (isinstance(actual, dict) and expected.keys() == actual.keys()
                and all(same_value(expected[key], actual[key]) for key in expected))
    if isinstance(expected, list):
        return (isinstance(actual, list) and len(expected) == len(actual)
                and all(same_value(e, a) for e, a in zip(expected, actual, strict=True)))
    return bool(expected == actual)


def names(expected: ExpectedCall, actual: ToolCall) -> bool:
    """Whether `actual` calls the tool `expected` names: by the name the agent called, or by
    its MCP server's name for a tool the agent was shown renamed (`docs__search`)."""
    return expected.name == actual.name or expected.name == actual.tool


def call_mismatch(expected: ExpectedCall, actual: ToolCall,
                  offered: Collection[str] | None = None) -> str | None:
    """What differs between an expected and an actual call, or None when the actual one fits;
    `offered` (the names the agent was shown, when known) rules out a call of any other."""
    if not names(expected, actual):
        return f"expected {expected.name}, got {actual.name}"
    if offered is not None and actual.name not in offered:
        return f"{actual.name} is no tool the agent was offered"
    for key, value in expected.arguments.items():
        if key not in actual.arguments:
            return f"arg {key!r} missing, expected {_show(value)}"
        if not same_value(value, actual.arguments[key]):
            return f"arg {key!r} expected {_show(value)}, got {_show(actual.arguments[key])}"
    return None


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass(slots=True)
class Pairing:
    """One row of the comparison: an expected call, the actual call set against it, the verdict."""

    expected: ExpectedCall | None
    actual: ToolCall | None
    status: Literal["match", "mismatch", "missing", "extra", "extra_allowed"]
    mismatch: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "expected": self.expected.to_dict() if self.expected else None,
            "actual": {"name": self.actual.name, "arguments": self.actual.arguments,
                       **({"error": self.actual.error} if self.actual.error is not None else {})}
            if self.actual else None,
            "status": self.status,
            "mismatch": self.mismatch,
        }


@scorer("tool_calls")
class ToolCalls(CheckScorer):
    """Passes when the output's tool calls match the case's `expected_tool_calls`."""

    bounded = True

    class Params(CheckParams):
        ordered: bool = True
        """Calls must come in the expected order; `false` matches them as an unordered multiset."""

        allow_extra_calls: bool = False
        """Allow calls beyond the expected ones (in order mode the expected calls must still
        appear in order, with other calls between or around them). A case that expects no
        call (`expected_tool_calls: []`, or `if_missing: no_calls`) still allows none."""

        if_missing: Literal["not_applicable", "no_calls", "error"] = "not_applicable"
        """What a case without `expected_tool_calls` means: `not_applicable`, the check does not
        apply (no verdict, outside the pass rate); `no_calls`, the agent must call no tool;
        or `error`, the case cannot be scored. `expected_tool_calls: []` always means no calls."""

    params: Params

    @property
    def may_not_apply(self) -> bool:
        return self.params.if_missing == "not_applicable"

    def not_applicable(self, case: Case) -> str | None:
        if not self.may_not_apply or case.expected_tool_calls is not None:
            return None
        return (f"case '{case.id}' has no expected_tool_calls; give the cases some, or set "
                "`if_missing: no_calls` to require that no tool is called")

    def check(self, case: Case, output: Output) -> Score | None:
        expected = parse_expected_calls(case, self.params.if_missing)
        if expected is None or isinstance(expected, Score):
            return expected
        actual = output.tool_calls
        mismatch = partial(call_mismatch, offered=_offered(output))
        if not expected:  # no call is allowed: there is nothing for a call to be extra to
            rows, reason = _positional(expected, actual, mismatch)
        elif not self.params.ordered:
            rows, reason = _unordered(expected, actual, self.params.allow_extra_calls, mismatch)
        elif self.params.allow_extra_calls:
            rows, reason = _in_order_with_extras(expected, actual, mismatch)
        else:
            rows, reason = _positional(expected, actual, mismatch)
        passed = reason is None
        if passed:
            reason = {0: "no tool calls, as expected", 1: "the tool call matches"}.get(
                len(expected), f"all {len(expected)} tool calls match")
            if len(actual) > len(expected):
                reason += f" ({len(actual) - len(expected)} extra allowed)"
        details: dict[str, Any] = {"expected_count": len(expected),
                                   "actual_count": len(actual),
                                   "calls": [row.to_dict() for row in rows]}
        failed = _failed_matches(rows, actual)
        if failed:
            reason = f"{reason}, but {_failed_note(failed)}"
            details["failed_calls"] = [number for number, _ in failed]
        return Score.binary(passed, reason or "", **details)


Comparison = tuple[list[Pairing], str | None]
Mismatch = Callable[[ExpectedCall, ToolCall], "str | None"]
"""`call_mismatch` with the tools the agent was offered bound."""


def _offered(output: Output) -> list[str] | None:
    """The tool names an agent target showed its model, or None when the target does not
    say (a python or command target reports calls of its own making)."""
    agent = output.metadata.get("agent") if output.metadata else None
    tools = agent.get("tools") if isinstance(agent, dict) else None
    return tools if isinstance(tools, list) else None


def _failed_matches(rows: list[Pairing], actual: list[ToolCall]) -> list[tuple[int, ToolCall]]:
    """The calls that match an expected one yet failed (the tool answered with an error),
    each with its number among the actual calls."""
    numbers = {id(call): number for number, call in enumerate(actual, start=1)}
    return sorted((numbers[id(row.actual)], row.actual) for row in rows
                  if row.status == "match" and row.actual is not None
                  and row.actual.error is not None)


def _failed_note(failed: list[tuple[int, ToolCall]]) -> str:
    """`call 1 (lookup) failed: no entry for 'zeta'`; of several, which failed and the
    first one's error."""
    number, call = failed[0]
    error = _error_line(call.error or "")
    if len(failed) == 1:
        return f"call {number} ({call.name}) failed: {error}"
    numbers = [str(n) for n, _ in failed]
    return (f"calls {', '.join(numbers[:-1])} and {numbers[-1]} failed; "
            f"call {number} ({call.name}): {error}")


def _error_line(error: str) -> str:
    line = (error.strip().splitlines() or ["(no message)"])[0]
    return line if len(line) <= 120 else line[:117] + "..."


def _positional(expected: list[ExpectedCall], actual: list[ToolCall],
                mismatch: Mismatch) -> Comparison:
    """Call i against call i; the first difference is the reason."""
    rows: list[Pairing] = []
    first: str | None = None
    for index in range(max(len(expected), len(actual))):
        want = expected[index] if index < len(expected) else None
        got = actual[index] if index < len(actual) else None
        if want is None and got is not None:
            row = Pairing(None, got, "extra", f"unexpected call {got.name}")
        elif got is None and want is not None:
            row = Pairing(want, None, "missing", f"expected {want.name}, got no call")
        else:
            assert want is not None and got is not None
            problem = mismatch(want, got)
            row = Pairing(want, got, "mismatch" if problem else "match", problem)
        rows.append(row)
        if row.mismatch and first is None:
            first = f"call {index + 1}: {row.mismatch}"
    if len(expected) != len(actual):
        return rows, f"call count mismatch: expected {len(expected)}, got {len(actual)}; {first}"
    return rows, first


def _in_order_with_extras(expected: list[ExpectedCall], actual: list[ToolCall],
                          mismatch: Mismatch) -> Comparison:
    """Each expected call is matched by the next fitting actual call; others are allowed extras."""
    rows: list[Pairing] = []
    used: set[int] = set()
    first: str | None = None
    start = 0
    for index, want in enumerate(expected):
        found = next((k for k in range(start, len(actual))
                      if mismatch(want, actual[k]) is None), None)
        if found is not None:
            used.add(found)
            start = found + 1
            rows.append(Pairing(want, actual[found], "match"))
            continue
        problem = f"expected {want.name}" + _nearest(want, actual, range(start, len(actual)),
                                                     mismatch)
        rows.append(Pairing(want, None, "missing", problem))
        if first is None:
            first = f"call {index + 1}: {problem}"
    rows.extend(Pairing(None, call, "extra_allowed") for k, call in enumerate(actual)
                if k not in used)
    return rows, first


def _unordered(expected: list[ExpectedCall], actual: list[ToolCall],
               allow_extra: bool, mismatch: Mismatch) -> Comparison:
    """A maximum matching between expected and actual calls, in any order."""
    fits = [[k for k, call in enumerate(actual) if mismatch(want, call) is None]
            for want in expected]
    partner = _match(fits)  # actual index -> expected index
    matched = {e: a for a, e in partner.items()}
    rows: list[Pairing] = []
    problems: list[str] = []
    free = [k for k in range(len(actual)) if k not in partner]
    for index, want in enumerate(expected):
        if index in matched:
            rows.append(Pairing(want, actual[matched[index]], "match"))
            continue
        problem = f"no call matches {want.name}" + _nearest(want, actual, free, mismatch)
        rows.append(Pairing(want, None, "missing", problem))
        problems.append(f"expected call {index + 1}: {problem}")
    for k in free:
        rows.append(Pairing(None, actual[k], "extra_allowed" if allow_extra else "extra",
                            None if allow_extra else f"unexpected call {actual[k].name}"))
        if not allow_extra:
            problems.append(f"call {k + 1}: unexpected call {actual[k].name}")
    if not problems:
        return rows, None
    if not allow_extra and len(expected) != len(actual):
        return rows, (f"call count mismatch: expected {len(expected)}, got {len(actual)}; "
                      f"{problems[0]}")
    return rows, problems[0]


def _nearest(want: ExpectedCall, actual: list[ToolCall], candidates: Any,
             mismatch: Mismatch) -> str:
    """Point at the closest actual call (the first with the same name) and what differs."""
    for k in candidates:
        if names(want, actual[k]):
            return f"; nearest is call {k + 1}: {mismatch(want, actual[k])}"
    return ", got no such call"


def _match(fits: list[list[int]]) -> dict[int, int]:
    """Maximum bipartite matching (Kuhn's augmenting paths): actual index -> expected index.

    Greedy matching is not enough: an expected call with few required
    arguments could take the only actual call another expected call fits.
    """
    partner: dict[int, int] = {}

    def augment(expected_index: int, seen: set[int]) -> bool:
        for k in fits[expected_index]:
            if k in seen:
                continue
            seen.add(k)
            if k not in partner or augment(partner[k], seen):
                partner[k] = expected_index
                return True
        return False

    for expected_index in range(len(fits)):
        augment(expected_index, set())
    return partner
