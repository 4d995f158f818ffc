"""The model target: one call per case, templated, cached, costed, condition-aware."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import pytest

from assay.case import Case
from assay.condition import Condition
from assay.config.models import EvalConfig
from assay.errors import UserError
from assay.providers.failures import ProviderError
from assay.providers.pool import get_pool
from assay.registry import targets
from assay.services import Services
from assay.testing import FakeLLM, Fault, Reply, Rule
from assay.testing.config import eval_config

QUESTION = Case(id="ge_003", input="What Go version introduced range-over-func iterators?",
                expected="Go 1.23", metadata={"question": "What Go version introduced "
                                                          "range-over-func iterators?"})


def local(base_url: str, **sections: Any) -> EvalConfig:
    """A config whose `local` provider is the server at `base_url`."""
    return eval_config(providers={"local": {"kind": "openai_compatible", "base_url": base_url,
                                            "backoff": 0.001, "max_retries": 1}}, **sections)


async def answer(llm: FakeLLM, params: dict[str, Any], case: Case = QUESTION, *,
                 condition: Condition | None = None, use_cache: bool = True,
                 times: int = 1) -> list[Any]:
    kind = targets.get("model")
    services = Services(config=local(llm.base_url), use_cache=use_cache)
    target = kind(kind.Params.model_validate({"type": "model", **params}),
                  condition or Condition(name="training"), services)
    await target.start()
    try:
        return [await target.answer(case) for _ in range(times)]
    finally:
        await target.close()
        await services.aclose()


def test_the_case_input_is_asked_as_is_with_usage_and_metadata():
    async def scenario():
        async with FakeLLM([Rule(user="range-over-func", reply="Go 1.23")]) as llm:
            [output] = await answer(llm, {"model": "local/qwen2.5", "system": "Answer briefly."})
            return output, llm.requests[0]

    output, seen = asyncio.run(scenario())
    assert output.text == "Go 1.23" and output.error is None
    assert output.usage.calls == 1 and output.usage.input_tokens > 0
    assert output.metadata == {"model": "qwen2.5", "stop_reason": "stop",
                               "system_fingerprint": "fp_fake_llm"}
    assert seen.system == "Answer briefly." and seen.last_user == QUESTION.input
    assert seen.body["temperature"] == 0


def test_prompt_and_system_are_templates_over_case_fields():
    async def scenario():
        async with FakeLLM() as llm:
            await answer(llm, {"model": "local/m", "system": "Expert on {{ tags | join(',') }}.",
                               "prompt": "Q: {{ question }}\nA:"},
                         Case(id="x", input="ignored", tags=["go"],
                              metadata={"question": "What is a goroutine?"}))
            return llm.requests[0]

    seen = asyncio.run(scenario())
    assert seen.system == "Expert on go."
    assert seen.messages == [{"role": "user", "content": "Q: What is a goroutine?\nA:"}]


def test_chat_input_is_sent_as_its_messages():
    chat = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"},
            {"role": "user", "content": "Name a Go keyword."}]

    async def scenario():
        async with FakeLLM() as llm:
            await answer(llm, {"model": "local/m"}, Case(id="c", input=chat))
            return llm.requests[0].messages

    assert asyncio.run(scenario()) == chat


def test_a_repeated_answer_comes_from_the_cache_unless_no_cache():
    async def scenario():
        async with FakeLLM() as llm:
            cached = await answer(llm, {"model": "local/m"}, times=2)
            received_cached = llm.received
            await answer(llm, {"model": "local/m"}, times=2, use_cache=False)
            return cached, received_cached, llm.received - received_cached

    (first, second), with_cache, without_cache = asyncio.run(scenario())
    assert with_cache == 1 and without_cache == 2
    assert second.metadata["cached"] is True and second.usage.cache_hits == 1
    assert first.usage.cache_hits == 0


def test_a_provider_failure_raises_for_the_runner_to_record():
    async def scenario():
        async with FakeLLM([Rule(reply=Reply(fault=Fault("server_error")))]) as llm:
            with pytest.raises(ProviderError, match="HTTP 500"):
                await answer(llm, {"model": "local/m"})
            return llm.received

    assert asyncio.run(scenario()) == 2  # one retry, as configured


def test_an_unreachable_endpoint_raises_a_connection_failure_for_the_runner():
    async def scenario(port: int) -> ProviderError:
        kind = targets.get("model")
        services = Services(config=local(f"http://127.0.0.1:{port}/v1"))
        target = kind(kind.Params.model_validate({"type": "model", "model": "local/m"}),
                      Condition(name="training"), services)
        await target.start()
        try:
            with pytest.raises(ProviderError) as caught:
                await target.answer(QUESTION)
            return caught.value
        finally:
            await target.close()
            await services.aclose()

    with socket.socket() as sock:  # bound, not listening: connections are refused
        sock.bind(("127.0.0.1", 0))
        error = asyncio.run(scenario(sock.getsockname()[1]))
    assert error.kind == "connection" and "connection refused" in str(error)


def test_an_unknown_template_variable_is_a_user_error():
    async def scenario():
        async with FakeLLM() as llm:
            with pytest.raises(UserError, match="unknown variable"):
                await answer(llm, {"model": "local/m", "prompt": "{{ nonexistent }}"})

    asyncio.run(scenario())


def test_start_fails_fast_on_a_missing_key(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    kind = targets.get("model")
    services = Services()
    target = kind(kind.Params.model_validate({"type": "model",
                                              "model": "anthropic/claude-haiku-4-5"}),
                  Condition(name="training"), services)
    with pytest.raises(UserError, match="ANTHROPIC_API_KEY"):
        asyncio.run(target.start())
    assert get_pool(services).stats().total.calls == 0


def test_a_pack_condition_puts_retrieved_passages_before_the_question(tmp_path, monkeypatch):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "iterators.md").write_text(
        "# Range over func\n\nGo 1.23 added range-over-func iterators to the language.\n")
    (docs / "maps.md").write_text("# maps\n\nThe maps package arrived in Go 1.21.\n")
    monkeypatch.chdir(tmp_path)

    async def scenario():
        async with FakeLLM() as llm:
            kind = targets.get("model")
            services = Services(config=local(llm.base_url, packs={"go-docs": {"path": str(docs)}}),
                                base_dir=tmp_path)
            condition = Condition(name="pack", context={"pack": "go-docs", "top_k": 1})
            target = kind(kind.Params.model_validate({"type": "model", "model": "local/m"}),
                          condition, services)
            await target.start()
            output = await target.answer(QUESTION)
            await services.aclose()
            return output, llm.requests[0]

    output, seen = asyncio.run(scenario())
    assert "Go 1.23 added range-over-func" in seen.last_user
    assert seen.last_user.endswith(QUESTION.input)
    assert output.metadata["context"]["pack"] == "go-docs"
    assert len(output.metadata["context"]["source_ids"]) == 1


def test_a_template_syntax_error_in_a_conditions_system_prompt_names_file_line_and_field(
        tmp_path):
    """Regression: it read 'template syntax error on line 1: ...' alone, with no file, line or
    field, when the target was built; the config is now refused where it is written."""
    from assay.config import load_config

    (tmp_path / "cases.jsonl").write_text('{"id": "a", "input": "q", "expected": "x"}\n')
    config = tmp_path / "assay.yaml"
    config.write_text("name: m\ndataset: {path: cases.jsonl}\n"
                      "target: {type: model, model: local/m, system: 'Answer {{ input }}'}\n"
                      "conditions:\n  plain: {}\n  strict:\n    system: 'You {% if %}'\n"
                      "scorers: [{type: contains}]\n")
    with pytest.raises(UserError) as info:
        load_config(config, env={})
    (problem,) = info.value.problems
    assert (problem.file, problem.line) == (str(config), 7)
    assert problem.field == "conditions.strict.system"
    assert problem.message.startswith("template syntax error on line 1: Expected an expression")
