"""The agent target: an LLM in a tool loop over the condition's MCP tools.

Each turn the model either answers or asks for tool calls; the calls run on
the condition's MCP servers (shared by the run) and their results go back
as tool messages, until the model answers or `max_turns` is spent. The whole
trajectory lands on the Output: the transcript the model saw, every tool
call with its arguments, result (capped at `tool_result_cap` characters),
error and duration, and each turn's text, tokens and latency in
`metadata["agent"]`. k-eval's `require_mcp_tool_use` / `_success` retry a
trial that breaks them, up to `requirement_attempts` tries, then record it
as an error naming the requirement. Each retry's model calls carry a
`cache_tag` (`attempt-2`, ...): a retry answered from the cache would repeat
the broken attempt word for word, yet each retry is still cached, so a
resumed run pays for none of them twice.

A retried trial is read two ways. What the agent did, every attempt of it,
is in its usage and cost and in the counts of `metadata["agent"]` (`turns`,
`tool_calls`, `tool_errors`), which the cost table adds up: the failed calls
of an attempt thrown away were made and paid for. What it answered is the
last attempt alone: `Output.tool_calls` (the trajectory the scorers judge),
the transcript and `steps`.

A trial cut by `run.timeout` keeps what it did up to the cut (`unfinished`):
its turns, its tool calls (the one under way counted as made and failed) and
an error naming what it was waiting on, the model or which tool of which server.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import Field

from assay.case import Case
from assay.config.temperature import Temperature
from assay.errors import AssayError, UserError
from assay.output import Output, ToolCall, Usage
from assay.registry import target
from assay.targets.base import Target, TargetParams
from assay.targets.unfinished import report_so_far

if TYPE_CHECKING:
    from assay.providers.base import RequestedToolCall


class AgentParams(TargetParams):
    """An LLM with tools from MCP servers."""

    model: str
    """The model as `provider/model`, e.g. `anthropic/claude-sonnet-4-5`."""

    system: str | None = None
    """The system prompt."""

    max_turns: int = Field(default=10, ge=1, le=200)
    """Model calls allowed per trial; a trial that is still calling tools after them
    ends with `stop_reason: max_turns` and its last text as the answer."""

    temperature: Temperature | None = None
    """Sampling temperature (0 to 2, Claude 0 to 1); the provider's default when omitted."""

    max_tokens: int = Field(default=1024, ge=1)
    """Longest reply per turn."""

    tool_result_cap: int = Field(default=8000, ge=100)
    """Characters of a tool result the model reads (and the trial records); the rest is cut
    with a note saying how much."""

    requirement_attempts: int = Field(default=3, ge=1, le=10)
    """Tries per trial when the condition requires MCP tool use or success and a try breaks
    the requirement."""


@dataclass
class _Attempt:
    """One run of the tool loop."""

    text: str = ""
    transcript: list[dict[str, Any]] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    turns: list[dict[str, Any]] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    stop_reason: str = "answer"
    error: str | None = None
    waiting_on: str | None = None
    """What the loop awaits now (the model, or a tool): said when a deadline cuts it."""
    pending: tuple[RequestedToolCall, str] | None = None
    """The tool call under way, if any, and its server: made, though its result may never
    come (its ToolCall and step are built only if the trial is cut short)."""

    @property
    def tool_errors(self) -> int:
        return sum(1 for call in self.tool_calls if call.error is not None)


@target("agent")
class AgentTarget(Target):
    Params = AgentParams
    params: AgentParams

    def __init__(self, params: TargetParams, condition: Any, services: Any) -> None:
        super().__init__(params, condition, services)
        self.provider: Any = None
        """The provider answering chat requests; resolved from the model name at start."""
        self.model_name = ""
        self.toolbox: Any = None

    async def start(self) -> None:
        """Resolve the model's provider and start this condition's MCP servers (once per run)."""
        from assay.context.mcp_servers import get_mcp_servers
        from assay.context.toolbox import Toolbox

        if self.provider is None:
            from assay.providers.pool import get_pool

            self.provider, self.model_name = get_pool(self.services).resolve(self.params.model)
        servers = get_mcp_servers(self.services)
        servers.validate_names(self.condition.mcp_servers)
        self.toolbox = Toolbox(await servers.start(self.condition.mcp_servers))
        if self.condition.mcp_servers and not self.toolbox:
            raise UserError(
                f"condition '{self.condition.name}': its MCP servers "
                f"({', '.join(self.condition.mcp_servers)}) offer no tool, so its agent would be "
                "asked exactly as with none, and the condition would differ from the others in "
                "name only; check that the server lists its tools (tools/list), or leave it "
                "out of the condition")
        for note in self.toolbox.notes:
            self.services.warn(f"condition '{self.condition.name}': {note}")
        from assay.context.pack_context import open_context_pack

        open_context_pack(self.services, self.condition)

    async def answer(self, case: Case) -> Output:
        started = time.perf_counter()
        messages, context_meta = self._messages(case)
        attempts: list[_Attempt] = []
        report_so_far(lambda: self._cut_short(attempts, context_meta))
        broken: str | None = None
        for number in range(1, self._max_attempts() + 1):
            attempt = _Attempt()
            attempts.append(attempt)
            await self._loop(messages, None if number == 1 else f"attempt-{number}", attempt)
            broken = None if attempt.error else self._broken_requirement(attempt)
            if broken is None:
                break
        output = self._output(attempts, broken, context_meta)
        output.latency_ms = round((time.perf_counter() - started) * 1000, 2)
        return output

    def _messages(self, case: Case) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        messages = case.messages
        if self.condition.context is None:
            return messages, {}
        from assay.context.pack_context import inject_context

        return inject_context(case, self.condition, self.services, messages)

    def _max_attempts(self) -> int:
        required = self.condition.require_tool_use or self.condition.require_tool_success
        return self.params.requirement_attempts if required else 1

    async def _loop(self, question: list[dict[str, Any]], cache_tag: str | None,
                    attempt: _Attempt) -> None:
        """One trial of the tool loop, recorded turn by turn into `attempt` (so a deadline
        that cuts it finds what it did); `cache_tag` keeps a retry's calls apart from the
        earlier attempts' in the response cache."""
        from assay.context.toolbox import ServerCrashed
        from assay.providers.base import ChatRequest
        from assay.providers.failures import ProviderError

        messages = [dict(message) for message in question]
        if self.params.system:
            attempt.transcript.append({"role": "system", "content": self.params.system})
        attempt.transcript.extend(messages)
        tools = list(self.toolbox.specs) if self.toolbox else []
        for turn in range(1, self.params.max_turns + 1):
            request = ChatRequest(model=self.model_name, messages=list(messages),
                                  system=self.params.system, tools=tools,
                                  temperature=self.params.temperature,
                                  max_tokens=self.params.max_tokens, cache_tag=cache_tag)
            attempt.waiting_on = f"the model's reply on turn {turn}"
            try:
                response = await self.provider.chat(request, use_cache=self.services.use_cache)
            except AssayError:
                raise
            except Exception as exc:  # the provider already retried what can be retried
                if isinstance(exc, ProviderError) and exc.kind == "connection":
                    raise  # an unreachable endpoint is no trajectory: the runner sees it whole
                attempt.error = f"model call failed on turn {turn}: {type(exc).__name__}: {exc}"
                return
            attempt.usage.add(response.usage)
            attempt.text = response.text
            record: dict[str, Any] = {
                "turn": turn, "text": response.text, "stop_reason": response.stop_reason,
                "input_tokens": response.usage.input_tokens,
                "output_tokens": response.usage.output_tokens,
                "cost_usd": response.usage.cost_usd, "latency_ms": response.latency_ms,
                "cached": response.cached, "tool_calls": [],
            }
            attempt.turns.append(record)
            assistant: dict[str, Any] = {"role": "assistant", "content": response.text}
            if not response.tool_calls:
                messages.append(assistant)
                attempt.transcript.append(assistant)
                return
            assistant["tool_calls"] = [{"id": c.id, "name": c.name, "arguments": c.arguments}
                                       for c in response.tool_calls]
            messages.append(assistant)
            attempt.transcript.append(assistant)
            for call in response.tool_calls:
                server = self.toolbox.server_of(call.name) if self.toolbox else None
                attempt.waiting_on = f"tool '{call.name}'" + (
                    f" of MCP server '{server}'" if server else "") + f", called on turn {turn}"
                attempt.pending = (call, server or "")
                try:
                    result = await self.toolbox.call(call.name, call.arguments) \
                        if self.toolbox else None
                except ServerCrashed as exc:
                    attempt.pending = None
                    attempt.error = str(exc)
                    attempt.tool_calls.append(_tool_call(call, self.toolbox, error=str(exc)))
                    return
                attempt.pending = None
                text, is_error, duration, server = _result_fields(call.name, result)
                shown, cut = _cap(text, self.params.tool_result_cap)
                attempt.tool_calls.append(_tool_call(
                    call, self.toolbox, result=None if is_error else shown, error=shown if is_error else None,
                    duration_ms=duration))
                record["tool_calls"].append(_step(call, server, is_error=is_error,
                                                  duration_ms=duration, result_chars=len(text),
                                                  cut_chars=cut))
                tool_message = {"role": "tool", "tool_call_id": call.id, "content": shown,
                                "is_error": is_error}
                messages.append(tool_message)
                attempt.transcript.append(tool_message)
        attempt.stop_reason = "max_turns"

    def _broken_requirement(self, attempt: _Attempt) -> str | None:
        """Which of the condition's tool requirements this attempt broke (k-eval's rules)."""
        if self.condition.require_tool_use and not attempt.tool_calls:
            offered = ", ".join(spec.name for spec in self.toolbox.specs) if self.toolbox else ""
            return ("require_mcp_tool_use: the agent answered without calling an MCP tool "
                    f"(offered: {offered or 'none'})")
        if (self.condition.require_tool_success and attempt.tool_calls
                and attempt.tool_errors == len(attempt.tool_calls)):
            return (f"require_mcp_tool_success: all {len(attempt.tool_calls)} MCP tool "
                    "calls failed")
        return None

    def _output(self, attempts: list[_Attempt], broken: str | None,
                context_meta: dict[str, Any]) -> Output:
        """The trial's Output: the last attempt's answer and trajectory, with the usage and
        the counts (turns, tool calls, tool errors) of every attempt."""
        last = attempts[-1]
        usage = Usage()
        for attempt in attempts:
            usage.add(attempt.usage)  # retries cost money too
        error = last.error
        if error is None and broken is not None:
            error = f"requirement not met after {len(attempts)} attempt(s): {broken}"
        agent_meta: dict[str, Any] = {  # counts of every attempt, as its usage is
            "turns": sum(len(attempt.turns) for attempt in attempts),
            "tool_calls": sum(len(attempt.tool_calls) for attempt in attempts),
            "tool_errors": sum(attempt.tool_errors for attempt in attempts),
            "stop_reason": "error" if last.error else last.stop_reason,
            "attempts": len(attempts),
            "tool_result_cap": self.params.tool_result_cap,
            "tools": [spec.name for spec in self.toolbox.specs] if self.toolbox else [],
            "mcp_servers": list(self.condition.mcp_servers),
            "steps": last.turns,  # the trajectory: the last attempt's, as Output.tool_calls
        }
        if len(attempts) > 1:
            agent_meta["retried_for"] = [self._broken_requirement(a) for a in attempts[:-1]]
        metadata: dict[str, Any] = {"agent": agent_meta}
        if context_meta:
            metadata["context"] = context_meta
        return Output(text=last.text, tool_calls=last.tool_calls, transcript=last.transcript,
                      usage=usage, metadata=metadata, error=error)

    def _cut_short(self, attempts: list[_Attempt], context_meta: dict[str, Any]) -> Output:
        """The trial as far as it went when its deadline passed: the tool call under way
        counts as made and failed, and the error says what the agent was waiting on."""
        last = attempts[-1] if attempts else _Attempt()
        if last.pending is not None:
            call, server = last.pending
            last.tool_calls.append(_tool_call(
                call, self.toolbox, error="no result: the trial's deadline passed while it ran"))
            last.turns[-1]["tool_calls"].append(_step(call, server, is_error=True))
            last.pending = None
        output = self._output(attempts or [last], None, context_meta)
        output.metadata["agent"]["stop_reason"] = "timeout"
        if last.waiting_on is not None:
            output.error = f"the agent was waiting on {last.waiting_on}"
        return output

    def describe(self) -> dict[str, Any]:
        described = super().describe()
        described["mcp_servers"] = list(self.condition.mcp_servers)
        return described


def _tool_call(call: RequestedToolCall, toolbox: Any, *, result: str | None = None,
               error: str | None = None, duration_ms: float | None = None) -> ToolCall:
    """The trajectory's record of a tool call the model asked for, as it ended, with its
    server's name for the tool where the agent saw it renamed."""
    return ToolCall(name=call.name, arguments=dict(call.arguments), result=result, error=error,
                    duration_ms=duration_ms,
                    tool=toolbox.renamed.get(call.name) if toolbox else None)


def _step(call: RequestedToolCall, server: str, *, is_error: bool,
          duration_ms: float | None = None, result_chars: int = 0,
          cut_chars: int = 0) -> dict[str, Any]:
    """A tool call in its turn's step of `metadata["agent"]["steps"]`: where it ran and how it
    ended (a call cut short by the deadline: an error, no duration, no result)."""
    return {"id": call.id, "name": call.name, "server": server, "is_error": is_error,
            "duration_ms": duration_ms, "result_chars": result_chars, "cut_chars": cut_chars}


def _result_fields(name: str, result: Any) -> tuple[str, bool, float | None, str]:
    if result is None:  # the model asked for a tool in a condition that has none
        return f"no tools are available; '{name}' cannot be called", True, None, ""
    return result.text, result.is_error, result.duration_ms, result.server


def _cap(text: str, cap: int) -> tuple[str, int]:
    """The text cut at `cap` characters, with a note, and how many characters were cut."""
    if len(text) <= cap:
        return text, 0
    cut = len(text) - cap
    return f"{text[:cap]}\n[... {cut} more characters cut at tool_result_cap={cap}]", cut
