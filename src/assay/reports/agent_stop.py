"""The sentence that says an agent's trial ran out of turns before it answered.

An agent cut at `max_turns` still has an answer, its last turn's text (often a
half-thought said while it called a tool), and the scorers judge that text like
any other. A failed check over it reads as a wrong answer unless the report says
the agent never finished; report.md and report.html say it with these words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assay.wording import plural


def ran_out_of_turns(metadata: Mapping[str, Any] | None) -> str | None:
    """`stopped at max_turns after 3 turns, ...` for an agent trial that did, else None."""
    agent = metadata.get("agent") if metadata else None
    if not isinstance(agent, Mapping) or agent.get("stop_reason") != "max_turns":
        return None
    steps = agent.get("steps")
    turns = f" after {plural(len(steps), 'turn')}" if isinstance(steps, list) else ""
    return (f"the agent stopped at max_turns{turns}, still calling tools; the answer scored "
            "is its last turn's text")
