"""Framework overhead of the agent target's tool loop, per tool call.

Runs `AgentTarget.answer` in process over a scripted model (the `Provider`
interface, no HTTP) that asks for `--calls` tool calls on each of `--turns`
turns and then answers, and a toolbox whose tools answer at once: every
microsecond measured is the loop's own work (requests, transcript, the
trajectory and its steps), none of it waiting on a model or a server.
Reports the median and best CPU time per tool call over `--repeat` rounds
of `--trials` trials each.

    uv run python benchmarks/agent_loop.py [--trials 200] [--turns 5] [--calls 10] [--repeat 7]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from dataclasses import dataclass
from typing import Any, ClassVar

from assay.case import Case
from assay.condition import Condition
from assay.output import Usage
from assay.providers.base import ChatRequest, ChatResponse, RequestedToolCall
from assay.services import Services
from assay.targets.agent import AgentParams, AgentTarget


@dataclass(frozen=True)
class Spec:
    name: str


@dataclass(frozen=True)
class Result:
    text: str
    is_error: bool
    duration_ms: float
    server: str


class InstantToolbox:
    """One tool, `lookup` of server `docs`, answering at once."""

    specs: ClassVar[list[Spec]] = [Spec("lookup")]
    renamed: ClassVar[dict[str, str]] = {}  # one server: no tool is renamed

    def __bool__(self) -> bool:
        return True

    def server_of(self, name: str) -> str:
        return "docs"

    async def call(self, name: str, arguments: dict[str, Any]) -> Result:
        return Result(f"the value of {arguments['key']}", False, 0.1, "docs")


class ScriptedModel:
    """Asks for `calls` lookups on each of `turns` turns, then answers."""

    name = "scripted"

    def __init__(self, turns: int, calls: int) -> None:
        self.turns, self.calls = turns, calls

    async def chat(self, request: ChatRequest, *, use_cache: bool = True) -> ChatResponse:
        turn = sum(1 for message in request.messages if message["role"] == "assistant")
        if turn >= self.turns:
            return ChatResponse(text="the answer", usage=Usage(10, 5, 0.001, 1))
        asked = [RequestedToolCall(f"call_{turn}_{i}", "lookup", {"key": f"k{i}"})
                 for i in range(self.calls)]
        return ChatResponse(text="", tool_calls=asked, usage=Usage(20, 8, 0.002, 1),
                            stop_reason="tool_use")


def agent(turns: int, calls: int) -> AgentTarget:
    target = AgentTarget(AgentParams(type="agent", model="scripted/m", max_turns=turns + 1),
                         Condition(name="tools"), Services())
    target.provider, target.model_name = ScriptedModel(turns, calls), "m"
    target.toolbox = InstantToolbox()
    return target


async def one_round(target: AgentTarget, trials: int) -> float:
    """CPU seconds for `trials` answers."""
    started = time.process_time()
    for number in range(trials):
        output = await target.answer(Case(f"case-{number}", "look them up"))
        assert output.error is None, output.error
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200)
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    target = agent(args.turns, args.calls)
    asyncio.run(one_round(target, 10))  # warm up
    seconds = [asyncio.run(one_round(target, args.trials)) for _ in range(args.repeat)]
    per_call = [s / (args.trials * args.turns * args.calls) * 1e6 for s in seconds]
    print(f"agent loop: {args.trials} trials x {args.turns} turns x {args.calls} tool calls; "
          f"CPU per tool call: median {statistics.median(per_call):.2f} us, "
          f"best {min(per_call):.2f} us")


if __name__ == "__main__":
    main()
