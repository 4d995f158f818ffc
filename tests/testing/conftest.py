"""Running assay's real judge scorers against the fake server, as a run would."""

from __future__ import annotations

from typing import Any

from assay.case import Case
from assay.output import Output
from assay.providers.config import ProviderConfig
from assay.providers.pool import ProviderPool
from assay.registry import scorers
from assay.score import Score
from assay.services import Services
from assay.testing import FakeLLM

PROTOCOLS = ["openai/gpt-judge", "anthropic/claude-judge"]


def services_for(llm: FakeLLM) -> Services:
    """Services whose provider pool sends `openai/` and `anthropic/` models to `llm`."""
    configs = {name: ProviderConfig(name=name, kind=name, base_url=llm.base_url,
                                    backoff=0.001, max_backoff=0.05, timeout=5.0)
               for name in ("anthropic", "openai")}
    services = Services()
    services.providers = ProviderPool(
        configs, environ={"ANTHROPIC_API_KEY": "sk-ant-fake", "OPENAI_API_KEY": "sk-fake"},
        warn=services.warn)
    return services


async def judge(llm: FakeLLM, case: Case, answer: str, kind: str, model: str,
                **params: Any) -> Score:
    """The Score the registered judge `kind` gives `answer`, asked over the wire."""
    services = services_for(llm)
    cls = scorers.get(kind)
    scorer = cls(cls.Params.model_validate({"type": kind, "model": model, **params}), services)
    try:
        await scorer.setup()
        return await scorer.score(case, Output(text=answer))
    finally:
        await services.aclose()
