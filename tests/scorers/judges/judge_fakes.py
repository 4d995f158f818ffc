"""A scripted in-process Provider for judge unit tests (end-to-end tests use the fake server)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from assay.case import Case
from assay.output import Output, Usage
from assay.providers.base import ChatRequest, ChatResponse
from assay.registry import scorers
from assay.scorers.judges.base import JudgeScorer
from assay.services import Services

Answer = str | ChatResponse | Exception


@dataclass
class ScriptedProvider:
    """Answers each chat call with the next scripted reply (the last one repeats).

    Records every request and its `use_cache` flag, so tests can check what
    the judge asked and whether it bypassed the cache.
    """

    replies: Sequence[Answer]
    name: str = "scripted"
    fingerprint: str | None = "fp_test"
    requests: list[ChatRequest] = field(default_factory=list)
    use_cache_flags: list[bool] = field(default_factory=list)

    async def chat(self, request: ChatRequest, *, use_cache: bool = True) -> ChatResponse:
        index = min(len(self.requests), len(self.replies) - 1)
        self.requests.append(request)
        self.use_cache_flags.append(use_cache)
        answer = self.replies[index]
        if isinstance(answer, Exception):
            raise answer
        if isinstance(answer, ChatResponse):
            return answer
        return ChatResponse(text=answer, model=request.model,
                            system_fingerprint=self.fingerprint,
                            usage=Usage(input_tokens=100, output_tokens=10, cost_usd=0.001))

    async def aclose(self) -> None:
        return None


class FakePool:
    """Stands in for the run's provider pool: every `provider/model` goes to one provider."""

    def __init__(self, provider: Any) -> None:
        self.provider = provider
        self.resolved: list[str] = []

    def resolve(self, model: str) -> tuple[Any, str]:
        self.resolved.append(model)
        return self.provider, model.split("/", 1)[-1]


def make_judge(kind: str, provider: Any, *, config: Any = None,
               services: Services | None = None, **params: Any) -> JudgeScorer:
    """A judge of `kind` built as a config would build it, answering through `provider`."""
    params.setdefault("model", "openai/judge-model")
    cls = scorers.get(kind)
    validated = cls.Params.model_validate({"type": kind, **params})
    services = services or Services(config=config)
    services.providers = FakePool(provider)  # what get_pool(services) returns
    return cls(validated, services)


def case(expected: Any = "Paris is the capital of France.", **fields: Any) -> Case:
    fields.setdefault("id", "q1")
    return Case(input="What is the capital of France?", expected=expected, **fields)


def answer(text: str = "Paris.") -> Output:
    return Output(text=text)
