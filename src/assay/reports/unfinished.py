"""The sentence that says an answer scored was not a finished one.

Two answers look like any other and are not: an agent cut at `max_turns` still
has an answer, its last turn's text (often a half-thought said while it called a
tool), and a reply cut at the request's `max_tokens` ends mid-sentence. The
scorers judge either text like any other, so a failed check over it reads as a
wrong answer unless the report says the answer was never finished; report.md and
report.html say it with these words.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from assay.wording import plural

CUT_STOP_REASONS = frozenset({"max_tokens", "length"})
"""How the providers say a reply was cut at `max_tokens`: Anthropic's `max_tokens`,
OpenAI's (and LiteLLM's) `length`, Gemini's `MAX_TOKENS` (compared in lower case)."""


def unfinished(metadata: Mapping[str, Any] | None) -> str | None:
    """Why the answer of a trial with this output metadata is not a finished one, if it is
    not: an agent out of turns, or a reply cut at max_tokens. None for a finished answer."""
    return ran_out_of_turns(metadata) or cut_at_max_tokens(metadata)


def ran_out_of_turns(metadata: Mapping[str, Any] | None) -> str | None:
    """`stopped at max_turns after 3 turns, ...` for an agent trial that did, else None."""
    agent = metadata.get("agent") if metadata else None
    if not isinstance(agent, Mapping) or agent.get("stop_reason") != "max_turns":
        return None
    steps = agent.get("steps")
    turns = f" after {plural(len(steps), 'turn')}" if isinstance(steps, list) else ""
    return (f"the agent stopped at max_turns{turns}, still calling tools; the answer scored "
            "is its last turn's text")


def cut_at_max_tokens(metadata: Mapping[str, Any] | None) -> str | None:
    """`the reply was cut at max_tokens; ...` for a model target's reply, or an agent's last
    turn, that the provider stopped at the request's token limit, else None."""
    if not metadata:
        return None
    reason = metadata.get("stop_reason")
    agent = metadata.get("agent")
    if isinstance(agent, Mapping):
        steps = agent.get("steps")
        last = steps[-1] if isinstance(steps, list) and steps else None
        reason = last.get("stop_reason") if isinstance(last, Mapping) else None
    if not isinstance(reason, str) or reason.lower() not in CUT_STOP_REASONS:
        return None
    return (f"the reply was cut at max_tokens, stop reason {reason}; the answer scored is "
            "the cut text")
