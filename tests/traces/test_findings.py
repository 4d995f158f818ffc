"""The judge step, through the provider interface, with a scripted provider."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import pytest

from assay.output import Usage
from assay.providers.base import ChatRequest, ChatResponse
from assay.traces.exchanges import Exchange
from assay.traces.findings import JudgeReplyError, build_prompt, parse_findings
from assay.traces.judging import judge_all


class ScriptedProvider:
    """Answers each chat request with the next scripted reply (or raises it)."""

    name = "scripted"

    def __init__(self, *replies: str | Exception) -> None:
        self.replies = list(replies)
        self.requests: list[ChatRequest] = []

    async def chat(self, request: ChatRequest, *, use_cache: bool = True) -> ChatResponse:
        self.requests.append(request)
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return ChatResponse(text=reply, usage=Usage(input_tokens=100, output_tokens=20, calls=1))

    async def aclose(self) -> None:
        pass


GOOD = json.dumps({"findings": [{
    "type": "citation", "severity": "error",
    "detail": "Answer says clause 303, the file says clause 304",
    "recommendation": "Quote the clause number from the file"}]})


def test_prompt_carries_the_excerpts_the_agent_saw(make_exchange: Callable[..., Exchange]) -> None:
    exchange = make_exchange(question="Which clause?", answer="Clause 303.", reads=("act.md",))
    prompt = build_prompt(exchange)
    assert "Which clause?" in prompt and "Clause 303." in prompt
    assert "content of act.md" in prompt


def test_findings_are_read_from_the_reply(make_exchange: Callable[..., Exchange]) -> None:
    provider = ScriptedProvider(GOOD, '```json\n{"findings": []}\n```')
    exchanges = [make_exchange(answer="Clause 303.", reads=("act.md",), line=1),
                 make_exchange(answer="fine", line=9)]
    judgements = asyncio.run(judge_all(provider, "judge-1", exchanges))
    assert [len(j.findings) for j in judgements] == [1, 0]
    assert judgements[0].findings[0].type == "citation"
    assert judgements[0].findings[0].exchange_id == exchanges[0].id
    assert all(j.error is None for j in judgements)
    assert provider.requests[0].model == "judge-1"
    assert provider.requests[0].response_schema is not None


@pytest.mark.parametrize("reply", [
    "Looks fine to me!",
    '{"findings": [{"type": "style", "severity": "error", "detail": "x"}]}',
    '{"findings": [{"type": "citation", "severity": "fatal", "detail": "x"}]}',
    '{"verdict": "ok"}',
])
def test_an_unreadable_reply_is_a_judge_error_not_no_findings(reply: str, make_exchange: Callable[..., Exchange]) -> None:
    [judgement] = asyncio.run(judge_all(ScriptedProvider(reply), "m", [make_exchange()]))
    assert judgement.error is not None and "unreadable judge reply" in judgement.error
    assert judgement.findings == []
    with pytest.raises(JudgeReplyError):
        parse_findings(reply)


def test_a_failed_call_is_recorded_against_the_exchange(make_exchange: Callable[..., Exchange]) -> None:
    provider = ScriptedProvider(ConnectionError("refused"))
    [judgement] = asyncio.run(judge_all(provider, "m", [make_exchange()]))
    assert judgement.error == "judge call failed: ConnectionError: refused"


def test_unanswered_exchanges_are_not_judged(make_exchange: Callable[..., Exchange]) -> None:
    provider = ScriptedProvider()
    assert asyncio.run(judge_all(provider, "m", [make_exchange(answer="")])) == []
    assert provider.requests == []
