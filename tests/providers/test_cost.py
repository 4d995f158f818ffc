"""Cost from the price table, counted per run and per model, and the budget that stops a run."""

from __future__ import annotations

import asyncio

import pytest

from assay.errors import RunFailed
from assay.providers.base import ChatRequest
from assay.providers.config import Price
from assay.providers.pricing import DEFAULT_PRICES, cost_usd, find_price
from assay.testing import FakeLLM, Reply


def ask(model: str, text: str = "hello") -> ChatRequest:
    return ChatRequest(model=model, messages=[{"role": "user", "content": text}])


def test_cost_is_tokens_times_the_configured_price(make_pool):
    price = Price(input_per_mtok=3.0, output_per_mtok=15.0)
    reply = Reply(text="ok", input_tokens=1200, output_tokens=300)

    async def scenario():
        async with FakeLLM(default=reply) as llm:
            pool = make_pool(llm, prices={"my-model": price})
            provider, model = pool.resolve("openai/my-model")
            response = await provider.chat(ask(model))
            await provider.chat(ask(model, "again"))
            await pool.aclose()
            return response, pool.stats(), pool.spent_usd()

    response, stats, spent = asyncio.run(scenario())
    expected = (1200 * 3.0 + 300 * 15.0) / 1e6
    assert response.usage.cost_usd == pytest.approx(expected)
    assert spent == pytest.approx(2 * expected)
    by_model = stats.by_model["openai/my-model"]
    assert (by_model.input_tokens, by_model.output_tokens) == (2400, 600)
    assert stats.to_dict()["cost_usd"] == pytest.approx(2 * expected)


def test_dated_model_names_find_their_family_price():
    assert find_price("claude-sonnet-4-5-20250929", DEFAULT_PRICES) == DEFAULT_PRICES[
        "claude-sonnet-4-5"]
    assert find_price("gpt-4.1-mini-2025-04-14", DEFAULT_PRICES) == DEFAULT_PRICES[
        "gpt-4.1-mini"]
    assert find_price("llama3.1:8b", DEFAULT_PRICES) is None
    assert cost_usd(None, 10, 10) is None


def test_platform_model_ids_find_their_family_price():
    sonnet, opus = DEFAULT_PRICES["claude-sonnet-4-5"], DEFAULT_PRICES["claude-opus-4-5"]
    assert find_price("us.anthropic.claude-sonnet-4-5-20250929-v1:0", DEFAULT_PRICES) == sonnet
    assert find_price("anthropic.claude-opus-4-5-20251101-v1:0", DEFAULT_PRICES) == opus
    assert find_price("claude-opus-4-5@20251101", DEFAULT_PRICES) == opus
    assert find_price("gemini-2.5-flash-lite-preview-06-17", DEFAULT_PRICES) == DEFAULT_PRICES[
        "gemini-2.5-flash-lite"]
    assert find_price("meta.llama3-1-70b-instruct-v1:0", DEFAULT_PRICES) is None


def _asked_twice(make_pool, model_string: str, default: Reply | str = "ok",
                 **pool_options):
    """The first of two calls to `model_string` through a fresh pool, and the pool's stats."""
    async def scenario():
        async with FakeLLM(default=default) as llm:
            pool = make_pool(llm, **pool_options)
            provider, model = pool.resolve(model_string)
            response = await provider.chat(ask(model))
            await provider.chat(ask(model, "twice"))
            await pool.aclose()
            return response, pool.stats()

    return asyncio.run(scenario())


def test_an_unpriced_model_has_unknown_cost_and_a_warning(make_pool):
    warnings: list[str] = []
    response, stats = _asked_twice(make_pool, "openai/llama3.1:8b", warnings=warnings)
    assert response.usage.cost_usd is None
    assert stats.total.unpriced_calls == 2 and stats.total.cost_usd == 0.0
    assert len(warnings) == 1 and "openai/llama3.1:8b" in warnings[0]


def test_regression_a_reply_without_usage_has_unknown_cost_not_0(make_pool):
    """An OpenAI-compatible server that sends no `usage` gave 0 tokens, priced at $0.00:
    a run of paid calls read as free, and a cost budget never stopped it."""
    warnings: list[str] = []
    price = Price(input_per_mtok=3.0, output_per_mtok=15.0)
    response, stats = _asked_twice(make_pool, "openai/my-model",
                                   Reply(text="ok", usage=False),
                                   prices={"my-model": price}, warnings=warnings)
    assert not response.usage_reported and response.usage.cost_usd is None
    assert stats.total.unpriced_calls == 2
    assert warnings == [("openai/my-model sent no token usage: its tokens and cost are unknown "
                        "and not counted toward run.max_cost_usd")]


def test_the_budget_refuses_new_paid_calls_once_spent(make_pool):
    price = Price(input_per_mtok=1_000_000.0, output_per_mtok=0.0)  # $1 per input token
    reply = Reply(text="ok", input_tokens=1, output_tokens=1)

    async def scenario():
        async with FakeLLM(default=reply) as llm:
            pool = make_pool(llm, max_cost_usd=2.0, prices={"dear": price})
            provider, model = pool.resolve("anthropic/dear")
            await provider.chat(ask(model, "one"))
            await provider.chat(ask(model, "two"))
            with pytest.raises(RunFailed) as caught:
                await provider.chat(ask(model, "three"))
            cached = await provider.chat(ask(model, "one"))  # free: still allowed
            await pool.aclose()
            return caught.value, llm.received, cached

    error, received, cached = asyncio.run(scenario())
    assert received == 2
    assert "max_cost_usd" in str(error) and "$2.0000" in str(error)
    assert cached.cached


@pytest.mark.parametrize("field", ["input_per_mtok", "output_per_mtok"])
def test_a_price_must_be_a_finite_amount(field: str) -> None:
    """`.inf` in YAML was taken: every call then cost $inf, and each cost printed
    '$Infinity'."""
    from pydantic import ValidationError

    fields = {"input_per_mtok": 1.0, "output_per_mtok": 1.0, field: float("inf")}
    with pytest.raises(ValidationError, match="finite number"):
        Price(**fields)
