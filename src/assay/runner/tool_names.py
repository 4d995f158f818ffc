"""The tool names a dataset expects, held against the names each condition's agent sees.

An agent's tool calls are recorded, and graded by `tool_calls`, by the name the model
called: the name it was shown. Where two MCP servers of a condition offer one tool name
(or a name model APIs refuse), the agent sees it renamed (`docs__search`), and a case
expecting `search` failed in every trial, with only a warning among the run's notes to say
why. Which of the servers' tools such a case means cannot be guessed, so the run is refused
before its first trial, naming the names to write instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from assay.errors import Problem, UserError
from assay.scorers.tool_calls import ToolCalls
from assay.wording import plural

if TYPE_CHECKING:
    from assay.config import LoadedConfig
    from assay.runner.plan import Plan

SHOWN_CASES = 3
"""Case ids named per problem; the rest are counted."""


def check_expected_tool_names(loaded: LoadedConfig, plan: Plan) -> None:
    """A `UserError` when a case's `expected_tool_calls` names a tool by a name the agent of
    a condition does not see (its servers' name, renamed), for a run graded by `tool_calls`.
    Call once the targets have started: an agent's tools are known from its servers."""
    if not any(isinstance(scorer, ToolCalls) for scorer in plan.scorers):
        return
    toolboxes = {condition: toolbox for condition, target in plan.targets.items()
                 if (toolbox := getattr(target, "toolbox", None))}
    if not any(toolbox.renamed for toolbox in toolboxes.values()):
        return
    cases: dict[tuple[str, str], list[str]] = {}  # (condition, name) -> case ids
    seen: dict[tuple[str, str], list[str]] = {}
    for case in plan.dataset.peek():
        for name in _expected_names(case.expected_tool_calls):
            for condition, toolbox in toolboxes.items():
                if renamed := toolbox.seen_as(name):
                    seen[(condition, name)] = renamed
                    cases.setdefault((condition, name), []).append(case.id)
    if not cases:
        return
    dataset = loaded.config.dataset.path or loaded.config.dataset.hf or "dataset"
    problems = [Problem(_message(condition, name, ids, seen[(condition, name)]), dataset,
                        field="expected_tool_calls")
                for (condition, name), ids in cases.items()]
    raise UserError("expected_tool_calls name tools that the agent sees under other names; "
                    "a tool call is graded by the name the agent called", problems)


def _expected_names(expected: Any) -> list[str]:
    """The tool names a case's `expected_tool_calls` gives (what is malformed in it is the
    scorer's to say, per trial)."""
    if not isinstance(expected, list):
        return []
    return [item["name"] for item in expected
            if isinstance(item, dict) and isinstance(item.get("name"), str)]


def _message(condition: str, name: str, ids: list[str], renamed: list[str]) -> str:
    shown = ", ".join(f"'{case}'" for case in ids[:SHOWN_CASES])
    more = f" and {len(ids) - SHOWN_CASES} more" if len(ids) > SHOWN_CASES else ""
    names = " or ".join(f"'{exposed}'" for exposed in renamed)
    expect = "expects" if len(ids) == 1 else "expect"
    return (f"{plural(len(ids), 'case')} ({shown}{more}) {expect} a call to '{name}', which "
            f"condition '{condition}' offers its agent as {names}; write the name of the "
            "one meant")
