"""A small, honest question answerer for the quickstart.

Under the `memory` condition it answers from a few facts it "remembers";
under `docs` it looks the answer up in the documents next to this file,
picking the sentence that shares the most words with the question. Neither
is perfect, which is the point: the eval shows by how much `docs` helps.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from assay import Case, Condition

MEMORY = {
    "largest": "Jupiter is the largest planet.",
    "smallest": "Mercury is the smallest planet.",
    "rings": "Saturn is famous for its rings.",
    "apollo": "Apollo 11 landed on the Moon in 1969.",
}

STOPWORDS = {"a", "an", "the", "is", "in", "of", "on", "which", "what", "when", "where", "why",
             "did", "does", "do", "are", "its", "to", "from", "called", "than", "and", "two"}


def answer(case: Case, condition: Condition, source: str = "docs") -> dict:
    question = case.input_text
    if source == "memory":
        for key, fact in MEMORY.items():
            if key in question.lower():
                return {"output": fact, "metadata": {"source": "memory"}}
        return {"output": "I don't know.", "metadata": {"source": "memory"}}
    sentence, document = best_sentence(question)
    return {"output": sentence, "metadata": {"source": document}}


def best_sentence(question: str) -> tuple[str, str]:
    wanted = _words(question)
    best, best_doc, best_score = "I don't know.", "", 0
    for document, sentence in _sentences():
        score = len(wanted & _words(sentence))
        if score > best_score:
            best, best_doc, best_score = sentence, document, score
    return best, best_doc


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOPWORDS}


@lru_cache(maxsize=1)
def _sentences() -> list[tuple[str, str]]:
    found = []
    for path in sorted((Path(__file__).parent / "docs").glob("*.md")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                found.append((path.name, line.strip()))
    return found
