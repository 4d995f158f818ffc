"""Reading a judge's message: which part is the question, the reference, the answer, the traits.

Judge prompts label their parts with headings, as assay's own do
("Question:", "Reference answer:", "Answer to grade:", "Expected traits:")
and as most hand-written ones do. A heading is a short line ending in a
colon (text may follow on the same line), a Markdown heading, an XML-like
tag pair (`<answer>...</answer>`), or an MT-bench style `[The Start of
Assistant A's Answer]`. Its words say its role; the first heading of each
role opens that part, and a later heading of a role already seen is read as
text of the current part (so an answer that itself says "Answer: ..." stays
whole).

A pairwise prompt shows two answers, headed by position: "Answer A" /
"Answer B", "Response 1" / "Response 2", "First answer" / "Second answer",
"Assistant A's answer", or tags `<answer_a>`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_POSITION = r"(?:answer|response|output|completion|candidate|assistant|model)"
ROLES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("first", re.compile(rf"^(?:the\s+)?(?:{_POSITION}[\s_]*(?:a|1|one)\b|first\s+{_POSITION})")),
    ("second", re.compile(rf"^(?:the\s+)?(?:{_POSITION}[\s_]*(?:b|2|two)\b|second\s+{_POSITION})")),
    ("traits", re.compile(r"\b(?:traits?|criteria|criterion)\b")),
    ("reference", re.compile(r"\b(?:reference|expected|ground[\s_-]*truth|gold|correct|ideal)\b")),
    ("answer", re.compile(r"\b(?:answers?|responses?|output|submission|completion|prediction"
                          r"|reply)\b")),
    ("question", re.compile(r"\b(?:question|message|input|prompt|query|task|request)\b")),
    ("context", re.compile(r"\b(?:context|passages?|documents?|sources?|excerpts?)\b")),
)
"""Heading words -> role, tried in order: "Reference answer" is a reference, not an answer."""

_COLON_HEADING = re.compile(r"^\s*(?:#+\s*)?\**([A-Za-z][\w '’/()-]{0,48}?)\**\s*:\s*(.*)$")
_MARKDOWN_HEADING = re.compile(r"^\s*#+\s*([A-Za-z][\w '’/()-]{0,48}?)\s*$")
_BRACKET_START = re.compile(r"^\s*\[(?:the\s+)?start\s+of\s+(.+?)\]\s*$", re.IGNORECASE)
_BRACKET_END = re.compile(r"^\s*\[(?:the\s+)?end\s+of\s+.+?\]\s*$", re.IGNORECASE)
_TAG = re.compile(r"<([A-Za-z][\w-]{0,40})>(.*?)</\1>", re.DOTALL)
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")


@dataclass(frozen=True)
class PromptParts:
    """The parts of a judge's message that the fake judge reads; None when absent."""

    question: str | None = None
    reference: str | None = None
    answer: str | None = None
    traits: list[str] = field(default_factory=list)
    pair: tuple[str, str] | None = None
    """The two answers of a pairwise prompt, in the order shown."""


def role_of(label: str) -> str | None:
    """The role a heading's words name, or None for a heading of no interest."""
    words = re.sub(r"[_\s]+", " ", label.strip().lower())
    if len(words.split()) > 6:
        return None
    return next((role for role, pattern in ROLES if pattern.search(words)), None)


def read_parts(text: str) -> PromptParts:
    """The question, reference, answer, traits and pair found in a judge's message."""
    found = _tagged_parts(text)
    for role, body in _headed_parts(text).items():
        found.setdefault(role, body)
    pair = None
    if found.get("first") is not None and found.get("second") is not None:
        pair = (found["first"], found["second"])
    traits = [line for line in (_BULLET.sub("", raw).strip()
                                for raw in (found.get("traits") or "").splitlines()) if line]
    return PromptParts(question=found.get("question"), reference=found.get("reference"),
                       answer=found.get("answer"), traits=traits, pair=pair)


def _tagged_parts(text: str) -> dict[str, str]:
    parts: dict[str, str] = {}
    for match in _TAG.finditer(text):
        role = role_of(match.group(1))
        if role is not None:
            parts.setdefault(role, match.group(2).strip())
    return parts


def _headed_parts(text: str) -> dict[str, str]:
    """Each role's text under its first heading, up to the next heading of a new role."""
    bodies: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if _BRACKET_END.match(line):
            current = None
            continue
        role, rest = _heading(line)
        if role is not None and role not in bodies:
            current = bodies[role] = [rest] if rest else []
        elif current is not None:
            current.append(line)
    return {role: "\n".join(lines).strip() for role, lines in bodies.items()}


def _heading(line: str) -> tuple[str | None, str]:
    """(role, text after the heading) when `line` is a heading, else (None, "")."""
    for pattern in (_BRACKET_START, _MARKDOWN_HEADING, _COLON_HEADING):
        match = pattern.match(line)
        if match is not None:
            rest = match.group(2).strip() if pattern is _COLON_HEADING else ""
            return role_of(match.group(1)), rest
    return None, ""
