"""The judge step: an LLM checks each answer against the file content the agent saw.

Each exchange yields a Judgement: a list of findings, or an error when the
judge could not be asked or its reply could not be read. An unreadable
reply is never taken to mean "no findings".
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from assay.errors import RunFailed
from assay.output import Usage
from assay.providers.base import ChatRequest, Provider
from assay.reports.text import one_line
from assay.scorers.judges.parse import extract_json
from assay.traces.exchanges import Exchange

FINDING_TYPES = ("citation", "contradiction", "wiki-gap", "wasted-read")
SEVERITIES = ("error", "warning")
ANSWER_CHARS = 4000
NAME_CHARS = 80
"""A session's name (text from the log) is cut to this where a finding says where it is."""

SYSTEM = (
    "You audit answers given by a knowledge-base assistant. You compare each answer "
    "with the file excerpts the assistant actually read and report problems as JSON. "
    "Reply with JSON only."
)

INSTRUCTIONS = f"""Audit the exchange above. Report a finding for each problem of these kinds:
- "citation": the answer attributes a claim to a file, or quotes one, and the excerpt \
does not back it up (wrong section, number, name or wording).
- "contradiction": the answer states something the excerpts say otherwise.
- "wiki-gap": a topic the assistant had to open source files for, and that a short wiki \
entry would have answered; name the topic.
- "wasted-read": a file that was read but contributed nothing to the answer.

Judge only against the excerpts shown; an excerpt may be cut short, so do not flag a claim \
merely because it is absent from a truncated excerpt.
Use severity "error" for citation and contradiction problems that would mislead a reader, \
"warning" otherwise.

Reply with one JSON object: {{"findings": [{{"type": one of {json.dumps(list(FINDING_TYPES))}, \
"severity": "error" or "warning", "detail": what is wrong, citing the text, \
"recommendation": what to change}}]}}. With no problems, reply {{"findings": []}}."""

RESPONSE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "findings": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "type": {"type": "string", "enum": list(FINDING_TYPES)},
                    "severity": {"type": "string", "enum": list(SEVERITIES)},
                    "detail": {"type": "string"},
                    "recommendation": {"type": "string"},
                },
                "required": ["type", "severity", "detail", "recommendation"],
            },
        }
    },
    "required": ["findings"],
}


@dataclass(frozen=True)
class Asked:
    """Where a finding comes from, as a person recognises it: the question (not an id like
    `…-770abc:13`), the session it was asked in, and when."""

    question: str = ""
    session: str = ""
    """The session's name, else its file's name."""
    at: str | None = None
    """When the question was asked, as the log wrote it."""
    file: str = ""
    """The session file, as the path it was read by: what a person opens."""
    line: int | None = None
    """The question's line in `file`."""

    @classmethod
    def of(cls, exchange: Exchange) -> Asked:
        meta = exchange.session
        return cls(exchange.question, meta.name or PurePosixPath(meta.path).name,
                   exchange.started, meta.path, exchange.line)

    @property
    def place(self) -> str:
        """`query: leases (logs/s.jsonl:12)`: the session by its name, if it has one, and the
        file and line of the question, which the name alone does not lead to."""
        if not self.file:
            return self.session
        place = f"{self.file}:{self.line}" if self.line else self.file
        named = self.session != PurePosixPath(self.file).name
        return f"{one_line(self.session, NAME_CHARS)} ({place})" if self.session and named \
            else place


@dataclass
class Finding:
    type: str
    severity: str
    detail: str
    recommendation: str
    exchange_id: str = ""
    asked: Asked = field(default_factory=Asked)

    def to_dict(self) -> dict[str, str | int | None]:
        return {"type": self.type, "severity": self.severity, "detail": self.detail,
                "recommendation": self.recommendation, "exchange": self.exchange_id,
                "question": self.asked.question, "session": self.asked.session,
                "asked_at": self.asked.at, "file": self.asked.file, "line": self.asked.line,
                "where": self.asked.place}


@dataclass
class Judgement:
    exchange_id: str
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None
    """Set when the exchange could not be judged; `findings` is then meaningless."""
    usage: Usage = field(default_factory=Usage)
    asked: Asked = field(default_factory=Asked)


class JudgeReplyError(ValueError):
    """The judge's reply is not the JSON we asked for."""


def build_prompt(exchange: Exchange) -> str:
    """The user message for one exchange: question, answer, and every excerpt read."""
    excerpts = "\n\n".join(
        f"--- file: {read.path} (first {len(read.content)} characters as the assistant saw them)"
        f"\n{read.content}"
        for read in exchange.files_read
    ) or "(the assistant read no files: it answered from its wiki or memory)"
    skipped = ", ".join(PurePosixPath(p).name for p in exchange.files_skipped) or "(none listed)"
    return (
        f"QUESTION\n{exchange.question}\n\n"
        f"ANSWER\n{exchange.answer[:ANSWER_CHARS]}\n\n"
        f"FILES READ\n{excerpts}\n\n"
        f"FILES AVAILABLE BUT NOT READ\n{skipped}\n\n"
        f"{INSTRUCTIONS}"
    )


def parse_findings(text: str, exchange_id: str = "", asked: Asked | None = None
                   ) -> list[Finding]:
    """Read the judge's reply; raise JudgeReplyError on anything but the asked-for JSON."""
    data = extract_json(text)
    if data is None:
        snippet = text.strip().replace("\n", " ")[:120]
        raise JudgeReplyError(f"reply is not JSON: {snippet!r}")
    items = data.get("findings") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise JudgeReplyError("reply has no `findings` list")
    findings: list[Finding] = []
    for number, item in enumerate(items, 1):
        if not isinstance(item, dict):
            raise JudgeReplyError(f"finding {number} is not an object")
        kind, severity = item.get("type"), item.get("severity")
        if kind not in FINDING_TYPES:
            raise JudgeReplyError(f"finding {number}: unknown type {kind!r}")
        if severity not in SEVERITIES:
            raise JudgeReplyError(f"finding {number}: unknown severity {severity!r}")
        detail = item.get("detail")
        if not isinstance(detail, str) or not detail.strip():
            raise JudgeReplyError(f"finding {number}: no detail")
        recommendation = item.get("recommendation")
        findings.append(Finding(kind, severity, detail.strip(),
                                recommendation.strip() if isinstance(recommendation, str) else "",
                                exchange_id, asked or Asked()))
    return findings


async def judge_exchange(provider: Provider, model: str, exchange: Exchange,
                         use_cache: bool = True) -> Judgement:
    request = ChatRequest(
        model=model, system=SYSTEM, temperature=0.0, max_tokens=1500,
        messages=[{"role": "user", "content": build_prompt(exchange)}],
        response_schema=RESPONSE_SCHEMA,
    )
    asked = Asked.of(exchange)
    try:
        response = await provider.chat(request, use_cache=use_cache)
    except RunFailed:  # the key is refused: every other question would fail alike
        raise
    except Exception as exc:  # noqa: BLE001 - any failure is recorded against the exchange
        return Judgement(exchange.id, error=f"judge call failed: {type(exc).__name__}: {exc}",
                         asked=asked)
    try:
        findings = parse_findings(response.text, exchange.id, asked)
    except JudgeReplyError as exc:
        return Judgement(exchange.id, error=f"unreadable judge reply: {exc}", usage=response.usage,
                         asked=asked)
    return Judgement(exchange.id, findings, usage=response.usage, asked=asked)

