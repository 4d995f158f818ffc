"""A dataset's expected tool names held against the tools a run's agents are offered.

A case whose `expected_tool_calls` names a tool that no condition's MCP servers offer (a
typo, `serch`; a server left out of every condition) fails `tool_calls` in every trial: a
0% that reads as the agent's failing. Once the servers have started, and before the first
trial, the run warns of each such name, with the cases that expect it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from assay.scorers.tool_calls import ToolCalls
from assay.wording import plural

if TYPE_CHECKING:
    from assay.runner.plan import Plan

SHOWN = 3
"""Case ids, and offered names, named per warning; the rest are counted."""


def warn_of_unoffered_tools(plan: Plan) -> None:
    """Warn of each tool name cases expect that no condition's agent is offered, for a run
    graded by `tool_calls` whose targets are all agents (whose tools are known once their
    servers have started; other targets report calls of their own making)."""
    if not any(isinstance(scorer, ToolCalls) for scorer in plan.scorers):
        return
    toolboxes: list[Any] = [getattr(target, "toolbox", None) for target in plan.targets.values()]
    if any(toolbox is None for toolbox in toolboxes) or not any(toolboxes):
        return
    offered: set[str] = set().union(*(toolbox.offered_names() for toolbox in toolboxes))
    expecting: dict[str, list[str]] = {}
    for case in plan.dataset.peek():
        for name in _expected_names(case.expected_tool_calls):
            if name not in offered:
                expecting.setdefault(name, []).append(case.id)
    if not expecting:
        return
    services = next(iter(plan.targets.values())).services
    for name, ids in expecting.items():
        services.warn(f"{_some(ids, quoted=True)}: expected_tool_calls name '{name}', which no "
                      f"condition's MCP servers offer (they offer {_some(sorted(offered))}), "
                      "so each such trial fails tool_calls")


def _expected_names(expected: Any) -> list[str]:
    """The tool names a case's `expected_tool_calls` gives (what is malformed in it is the
    scorer's to say, per trial)."""
    if not isinstance(expected, list):
        return []
    return [item["name"] for item in expected
            if isinstance(item, dict) and isinstance(item.get("name"), str)]


def _some(items: list[str], *, quoted: bool = False) -> str:
    shown = ", ".join(f"'{item}'" if quoted else item for item in items[:SHOWN])
    more = f" and {len(items) - SHOWN} more" if len(items) > SHOWN else ""
    return f"{plural(len(items), 'case')} ({shown}{more})" if quoted else shown + more
