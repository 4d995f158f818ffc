"""The `model` target: one LLM call per case.

The Knowledge Packs "training baseline" is this target with no context:
the model answers from what it learned in training. A condition may
override any parameter (model, system, prompt, temperature, ...), and one
instance serves one condition. A condition with `context:` gets the
passages retrieved from its knowledge pack in front of the question.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from assay.case import Case
from assay.config.temperature import Temperature
from assay.config.templates import case_variables, render, templates_compile
from assay.errors import Problem
from assay.output import Output
from assay.providers.base import ChatRequest, Provider
from assay.registry import target
from assay.targets.base import Target, TargetParams


class ModelParams(TargetParams):
    """A single call to an LLM."""

    model: str
    """The model as `provider/model`, e.g. `anthropic/claude-sonnet-4-5`, `openai/gpt-4.1`,
    or `<name>/<model>` for a provider declared under `providers:`."""

    system: str | None = None
    """The system prompt; a template over case fields like `prompt`."""

    prompt: str | None = None
    """The user message as a template over case fields, e.g. `"Question: {{ question }}"`.
    Default: the case input as is (text, or its chat messages)."""

    temperature: Temperature | None = 0.0
    """Sampling temperature (0 to 2, Claude 0 to 1); answers at 0 (or null, the provider's default)
    are cached."""

    max_tokens: int = Field(default=1024, ge=1)
    """Longest answer, in tokens."""

    extra: dict[str, Any] = Field(default_factory=dict)
    """Other request parameters passed to the provider as is (e.g. `top_p`)."""

    _templates_compile = field_validator("system", "prompt")(templates_compile)


@target("model")
class ModelTarget(Target):
    Params = ModelParams
    params: ModelParams
    honours = frozenset({"context"})

    def __init__(self, params: ModelParams, condition: Any, services: Any) -> None:
        super().__init__(params, condition, services)
        self._provider: Provider | None = None
        self._model = ""

    async def start(self) -> None:
        """Find the provider now, so a missing key or unknown provider stops the run at once."""
        from assay.context.pack_context import open_context_pack
        from assay.providers.pool import get_pool

        self._provider, self._model = get_pool(self.services).resolve(self.params.model)
        open_context_pack(self.services, self.condition)

    async def answer(self, case: Case) -> Output:
        if self._provider is None:
            await self.start()
        assert self._provider is not None
        request, context = self.request(case)
        response = await self._provider.chat(request, use_cache=self.services.use_cache)
        metadata: dict[str, Any] = {"model": response.model or self._model,
                                    "stop_reason": response.stop_reason}
        if response.system_fingerprint:
            metadata["system_fingerprint"] = response.system_fingerprint
        if response.cached:
            metadata["cached"] = True
        if context:
            metadata["context"] = context
        return Output(text=response.text, usage=response.usage, metadata=metadata,
                      latency_ms=None if response.cached else response.latency_ms)

    def request(self, case: Case) -> tuple[ChatRequest, dict[str, Any]]:
        """The chat request for `case`, and what was retrieved for it (empty without context)."""
        variables = case_variables(case)
        system = render(self.params.system, variables) if self.params.system else None
        if self.params.prompt is not None:
            messages = [{"role": "user", "content": render(self.params.prompt, variables)}]
        else:
            messages = case.messages
        messages, context = self.with_context(case, messages)
        request = ChatRequest(
            model=self._model,
            messages=messages,
            system=system,
            temperature=self.params.temperature,
            max_tokens=self.params.max_tokens,
            extra=dict(self.params.extra),
        )
        return request, context

    def with_context(self, case: Case, messages: list[dict[str, Any]]
                     ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The condition's `context:` (knowledge-pack passages) put in front of the question."""
        if not self.condition.context:
            return messages, {}
        from assay.context.pack_context import inject_context

        return inject_context(case, self.condition, self.services, messages)

    def template_problems(self, case: Case) -> list[Problem]:
        from assay.config.templates import render_problem

        variables = case_variables(case)
        problems = []
        for name in ("system", "prompt"):
            source = getattr(self.params, name)
            problem = render_problem(source, variables) if source else None
            if problem is not None:
                problems.append(Problem(f"{problem} (rendered for case '{case.id}')",
                                        field=name))
        return problems

    def describe(self) -> dict[str, Any]:
        return self.params.model_dump(exclude_none=True, exclude_defaults=True) | {
            "type": "model", "model": self.params.model}
