"""The fake judge's opinion of an answer: a quality between 0 and 1, and why.

With a reference, quality is the square root of the share of the
reference's content words the answer uses (a right answer put in other
words shares only part of the reference's words, so half of them already
reads as a 7 of 10); with expected traits, the share of traits whose words it uses;
with neither, how much of the question it takes up. Every verdict shape
(a 0-10 score, 1-3 traits, rubric metrics, labels, a pairwise preference)
is read from this one number, so the judge's formats agree with each other
and a better answer never scores lower.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from assay.testing.judge_prompt import PromptParts
from assay.testing.similarity import content_words, missing_words, recall, sentences, word_set

TRAIT_MET = 0.5
"""A trait counts as shown when the answer uses at least this share of its words."""


@dataclass(frozen=True)
class Assessment:
    """How good an answer looks to the fake judge."""

    quality: float
    reason: str
    answer: str = ""
    reference: str = ""
    """The text the answer was held against (a reference, the traits or the question)."""


def assess(parts: PromptParts, answer: str | None = None) -> Assessment:
    """The quality of `answer` (default: the prompt's answer) against what the prompt gives."""
    answer = parts.answer if answer is None else answer
    if answer is None:
        return Assessment(0.5, "the message does not say which text is the answer to grade, "
                               "so this verdict is neutral")
    if not answer.strip():
        return Assessment(0.0, "the answer is empty", answer)
    if parts.traits:
        return _against_traits(parts.traits, answer)
    if parts.reference:
        return _against_reference(parts.reference, answer)
    if parts.question:
        share = recall(parts.question, answer)
        return Assessment(share, f"with no reference to compare with, the answer takes up "
                                 f"{share:.0%} of the question's key terms", answer,
                          parts.question)
    return Assessment(0.5, "the message gives nothing to compare the answer with, so this "
                           "verdict is neutral", answer)


def _against_reference(reference: str, answer: str) -> Assessment:
    wanted = set(content_words(reference))
    share = recall(reference, answer)
    said = round(share * len(wanted))
    reason = f"the answer states {said} of the reference's {len(wanted)} key terms"
    missing = missing_words(reference, answer)
    if missing:
        reason += f"; it lacks {', '.join(missing)}"
    return Assessment(math.sqrt(share), reason, answer, reference)


def _against_traits(traits: list[str], answer: str) -> Assessment:
    missed = [trait for trait in traits if recall(trait, answer) < TRAIT_MET]
    shown = len(traits) - len(missed)
    reason = f"the response shows {shown} of {len(traits)} expected traits"
    if missed:
        reason += f"; missing: {'; '.join(missed[:3])}"
    return Assessment(shown / len(traits), reason, answer, "\n".join(traits))


def metric_quality(metric: str, assessment: Assessment) -> tuple[float, str]:
    """The quality of one rubric metric, by what its name says it measures, with a reasoning.

    Clarity-like metrics (helpfulness, clarity, concision, format, style)
    read the answer's length against the reference's; every other metric
    (completeness, factual adherence, accuracy, relevance...) the quality,
    though a factual metric never falls below a quarter of its scale, since
    missing a fact is not stating a falsehood.
    """
    name = metric.lower()
    share = assessment.quality
    if any(word in name for word in ("help", "clar", "concis", "format", "readab", "style",
                                     "tone", "fluen", "brev")):
        return _brevity(assessment), f"{_length_note(assessment)}; {assessment.reason}"
    if any(word in name for word in ("complete", "coverage", "recall", "thorough")):
        return share, assessment.reason
    return max(0.25, share), assessment.reason


def unverified_claims(assessment: Assessment, limit: int = 5) -> list[str]:
    """Sentences of the answer that mostly say things the reference does not."""
    known = word_set(assessment.reference)
    claims: list[str] = []
    for sentence in sentences(assessment.answer):
        words = set(content_words(sentence))
        if len(words) >= 3 and len(words & known) / len(words) < 0.5:
            claims.append(sentence)
    return claims[:limit]


def _brevity(assessment: Assessment) -> float:
    ratio = len(content_words(assessment.answer)) / max(1, len(content_words(
        assessment.reference)))
    plain = 1.0 if ratio <= 2 else 0.75 if ratio <= 4 else 0.5 if ratio <= 8 else 0.25
    return min(plain, 0.25 + assessment.quality)


def _length_note(assessment: Assessment) -> str:
    words = len(assessment.answer.split())
    return f"the answer is {words} word{'s' if words != 1 else ''} long"
