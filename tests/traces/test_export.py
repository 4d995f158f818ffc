"""`assay traces export`: a session's real questions written as dataset drafts."""

from __future__ import annotations

from collections.abc import Callable

from assay.traces.exchanges import Exchange, FileRead
from assay.traces.export import exchange_case


def test_a_key_in_a_file_the_agent_read_stays_out_of_the_drafts_excerpts(
        make_exchange: Callable[..., Exchange]) -> None:
    """Regression: an agent that read a `.env` put its keys, which assay was never told of,
    into the draft's `file_excerpts`, a file meant to be reviewed and shared."""
    exchange = make_exchange(question="why does the deploy fail?", answer="the token expired")
    exchange.files_read = [FileRead(".env", "GITHUB_TOKEN=ghp_abcdefghijklmnop1234\n"
                                            "OPENAI_API_KEY=sk-proj-abcdefghijkl\n"
                                            "REGION=eu-west-1\n", 3)]
    case = exchange_case(exchange)
    assert case.metadata["file_excerpts"] == {
        ".env": "GITHUB_TOKEN=***\nOPENAI_API_KEY=***\nREGION=eu-west-1\n"}
    assert case.input == "why does the deploy fail?" and case.reference == "the token expired"
