"""How much two texts say the same thing, judged by their content words.

This is the fake server's only sense of meaning. A text becomes its content
words: lower-cased runs of letters and digits, common English words
dropped, and a light suffix strip so that "returns" meets "return". The
share of a reference's content words found in an answer (`recall`) stands
in for "the answer says what the reference says": crude, but deterministic,
explainable in a sentence, and it moves the right way when an answer gets
better or worse.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

STOP_WORDS = frozenset({
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
    "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
    "but", "by", "can", "cannot", "could", "did", "do", "does", "doing", "done", "down", "during",
    "each", "either", "else", "etc", "even", "ever", "every", "few", "for", "from", "further",
    "get", "gets", "got", "had", "has", "have", "having", "he", "her", "here", "hers", "him",
    "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself", "just", "let", "like",
    "may", "me", "might", "more", "most", "much", "must", "my", "no", "nor", "not", "now", "of",
    "off", "often", "on", "once", "one", "only", "or", "other", "our", "ours", "out", "over",
    "own", "per", "please", "rather", "same", "shall", "she", "should", "so", "some", "such",
    "than", "that", "the", "their", "theirs", "them", "then", "there", "these", "they", "this",
    "those", "through", "thus", "to", "too", "under", "until", "up", "upon", "us", "use", "used",
    "uses", "using", "very", "via", "was", "we", "were", "what", "when", "where", "whether",
    "which", "while", "who", "whom", "whose", "why", "will", "with", "within", "without", "would",
    "yes", "yet", "you", "your"
})

_WORD = re.compile(r"[a-z0-9]+")
_SUFFIXES = ("ing", "ed", "es", "s")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9`\"'(\[*])")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)]|#+)\s+")


def stem(word: str) -> str:
    """`word` without a plural or verb ending and a final e: "slices", "slice" -> "slic"."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                break
            word = word[: -len(suffix)]
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def content_words(text: str) -> list[str]:
    """The words of `text` that carry meaning, stemmed, in order (repeats kept)."""
    return [stem(word) for word in _WORD.findall(text.lower()) if word not in STOP_WORDS]


def word_set(text: str) -> set[str]:
    return set(content_words(text))


def recall(reference: str, answer: str) -> float:
    """The share of the reference's distinct content words that the answer also uses.

    A reference with no content word (empty, or only stop words) is met by any
    answer that is not empty.
    """
    wanted = word_set(reference)
    if not wanted:
        return 1.0 if answer.strip() else 0.0
    return len(wanted & word_set(answer)) / len(wanted)


def missing_words(reference: str, answer: str, limit: int = 5) -> list[str]:
    """Up to `limit` content words of the reference the answer lacks, as the reference has them."""
    have = word_set(answer)
    missing: dict[str, str] = {}
    for word in _WORD.findall(reference.lower()):
        stemmed = stem(word)
        if word not in STOP_WORDS and stemmed not in have and stemmed not in missing:
            missing[stemmed] = word
    return list(missing.values())[:limit]


def sentences(text: str) -> list[str]:
    """`text` cut into sentences: wrapped lines joined, list items and headings kept apart."""
    out: list[str] = []
    for block in _blocks(text):
        out.extend(part.strip() for part in _SENTENCE_END.split(block) if part.strip())
    return out


def _blocks(text: str) -> list[str]:
    """Paragraphs with their wrapped lines joined, each list item apart; headings dropped."""
    blocks: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        starts_item = _BULLET.match(line) is not None
        if not stripped or starts_item or stripped.startswith(("---", "```")):
            if current:
                blocks.append(" ".join(current))
            current = []
        if stripped and not stripped.startswith(("---", "```", "#")):
            current.append(_BULLET.sub("", line).strip())
    if current:
        blocks.append(" ".join(current))
    return blocks


def best_sentences(question: str, texts: Iterable[str], count: int = 2) -> list[str]:
    """The `count` sentences of `texts` sharing the most content words with `question`,
    each with the sentence that follows it in its paragraph (which often completes it:
    "`max_value_bytes`: the largest value accepted. The default is 1 MiB.").

    Ties go to the earlier sentence; the chosen ones come back in reading
    order. A sentence sharing no word with the question is never chosen.
    """
    asked = word_set(question)
    candidates: list[tuple[int, int]] = []  # (block number, sentence number)
    blocks = [[part.strip() for part in _SENTENCE_END.split(block) if part.strip()]
              for text in texts for block in _blocks(text)]
    for number, block in enumerate(blocks):
        candidates.extend((number, index) for index in range(len(block)))
    overlap = {place: len(asked & word_set(blocks[place[0]][place[1]]))
               for place in candidates}
    ranked = sorted((place for place in candidates if overlap[place] > 0),
                    key=lambda place: (-overlap[place], place))[:count]
    chosen = set(ranked)
    for number, index in ranked:
        if index + 1 < len(blocks[number]):
            chosen.add((number, index + 1))
    return [blocks[number][index] for number, index in sorted(chosen)]


def on_scale(quality: float, low: float, high: float, *, integer: bool = True) -> float:
    """`quality` in [0, 1] placed on the scale [low, high], rounded to a whole score if asked."""
    quality = min(1.0, max(0.0, quality))
    value = low + quality * (high - low)
    return float(math.floor(value + 0.5)) if integer else round(value, 2)
