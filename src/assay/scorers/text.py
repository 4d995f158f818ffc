"""Checks on the answer text: exact match, contains, regex and SQuAD-style token F1."""

from __future__ import annotations

from typing import ClassVar, Literal

import regex
from pydantic import Field, field_validator

from assay.case import Case
from assay.config.templates import templates_compile
from assay.output import Output
from assay.registry import scorer
from assay.score import Score
from assay.scorers._expected import CheckParams, Reference, clip
from assay.scorers._normalize import SQUAD, Normalization, Whitespace
from assay.scorers._regex import MATCH_SECONDS, RegexPattern, compile_pattern, timed_out
from assay.scorers.base import CheckScorer
from assay.services import Services
from assay.shown_numbers import fixed


class ReferenceParams(CheckParams):
    """Params of a check that compares the output with reference text."""

    value: str | list[str] | None = None
    """Compare with this text (or any of these texts) instead of the case's `expected`.
    May be a template over the case, e.g. `"{{ metadata.answer }}"`."""

    template_fields: ClassVar[tuple[str, ...]] = ("value",)

    _value_compiles = field_validator("value")(templates_compile)


@scorer("exact_match")
class ExactMatch(CheckScorer):
    """Passes when the normalised output equals the normalised reference (any one, for a list)."""

    bounded = True

    class Params(ReferenceParams):
        ignore_case: bool = False
        """Compare case-insensitively (Unicode case folding)."""

        ignore_punctuation: bool = False
        """Drop punctuation (ASCII punctuation and Unicode category P) before comparing."""

        ignore_articles: bool = False
        """Drop the English articles a, an and the (and collapse the whitespace they leave)."""

        whitespace: Whitespace = "strip"
        """`exact` compares whitespace as is, `strip` trims both ends, `collapse` also turns
        every run of whitespace into one space."""

        nfkc: bool = False
        """Apply Unicode NFKC first: full-width characters and ligatures equal their plain forms."""

    params: Params

    def __init__(self, params: Params, services: Services) -> None:
        super().__init__(params, services)
        self.reference: Reference = Reference(params.value)
        self.normalize = Normalization(
            ignore_case=params.ignore_case,
            ignore_punctuation=params.ignore_punctuation,
            ignore_articles=params.ignore_articles,
            whitespace=params.whitespace,
            nfkc=params.nfkc,
        ).build()

    def check(self, case: Case, output: Output) -> Score:
        references = self.reference.texts(case)
        if isinstance(references, Score):
            return references
        answer = self.normalize(output.text)
        for reference in references:
            if answer == self.normalize(reference):
                return Score.binary(True, f"matches {clip(reference)}", matched=reference)
        if len(references) == 1:
            reason = f"expected {clip(references[0])}, got {clip(output.text)}"
        else:
            reason = f"matches none of {len(references)} expected answers, got {clip(output.text)}"
        return Score.binary(False, reason, normalized_output=answer)


@scorer("contains")
class Contains(CheckScorer):
    """Passes when the output contains the value(s): any one of them, or all of them."""

    bounded = True

    class Params(ReferenceParams):
        mode: Literal["any", "all"] = "any"
        """`any`: one of the values must appear; `all`: every value must appear."""

        case_sensitive: bool = False
        """Match case exactly; by default `Paris` is found in `paris is the capital`."""

    params: Params

    def __init__(self, params: Params, services: Services) -> None:
        super().__init__(params, services)
        self.reference: Reference = Reference(params.value)

    def check(self, case: Case, output: Output) -> Score:
        values = self.reference.texts(case)
        if isinstance(values, Score):
            return values
        text = output.text if self.params.case_sensitive else output.text.casefold()
        found: list[str] = []
        missing: list[str] = []
        for value in values:
            needle = value if self.params.case_sensitive else value.casefold()
            (found if needle in text else missing).append(value)
        if self.params.mode == "all":
            passed = not missing
            reason = ("contains all of " if passed else "missing ") + _listing(
                values if passed else missing)
        else:
            passed = bool(found)
            reason = ("contains " + _listing(found)) if passed else (
                "contains none of " + _listing(values))
        return Score.binary(passed, reason, found=found, missing=missing)


def _listing(values: list[str]) -> str:
    return ", ".join(clip(value, 40) for value in values)


RegexFlag = Literal["ignorecase", "multiline", "dotall", "verbose", "ascii"]

_FLAGS: dict[str, int] = {
    "ignorecase": regex.IGNORECASE,
    "multiline": regex.MULTILINE,
    "dotall": regex.DOTALL,
    "verbose": regex.VERBOSE,
    "ascii": regex.ASCII,
}


TEMPLATE_LIKE = regex.compile(r"(?<!\\)\{\{\s*[A-Za-z_][\w.\[\]'\"]*\s*(\|[^}]*)?\}\}")
"""A Jinja variable (`{{ expected }}`, `{{ metadata.city | lower }}`), not escaped braces."""


@scorer("regex")
class Regex(CheckScorer):
    """Passes when the pattern occurs in the output (with `must_match: false`, when it does not)."""

    bounded = True

    class Params(CheckParams):
        pattern: RegexPattern
        """A Python regular expression, searched anywhere in the output."""

        flags: list[RegexFlag] = Field(default_factory=list)
        """Regex flags by name: ignorecase, multiline, dotall, verbose, ascii."""

        must_match: bool = True
        """`false` turns the check around: it passes when the pattern does not occur."""

        full_match: bool = False
        """Require the whole output (ends stripped of whitespace) to match, not only a part."""

        @field_validator("pattern", mode="before")
        @classmethod
        def _not_a_template(cls, pattern: object) -> object:
            # `{{ expected }}` here would be matched as those characters, failing every case
            if isinstance(pattern, str) and TEMPLATE_LIKE.search(pattern):
                raise ValueError(
                    "a regex pattern is not a template: `{{ ... }}` would be matched as those "
                    "characters. To look for the expected answer use `contains` or `exact_match` "
                    "(value: \"{{ expected }}\"); to match literal braces write \\{\\{")
            return pattern

    params: Params

    def __init__(self, params: Params, services: Services) -> None:
        super().__init__(params, services)
        flags = 0
        for name in params.flags:
            flags |= _FLAGS[name]
        compiled = compile_pattern(params.pattern, flags)
        self.find = compiled.fullmatch if params.full_match else compiled.search

    def check(self, case: Case, output: Output) -> Score:
        text = output.text.strip() if self.params.full_match else output.text
        try:
            match = self.find(text, timeout=MATCH_SECONDS)
        except TimeoutError:
            return Score.failure(timed_out(self.params.pattern))
        shown = f"/{self.params.pattern}/"
        if match is None:
            passed = not self.params.must_match
            return Score.binary(passed, f"pattern {shown} not found", match=None)
        passed = self.params.must_match
        verb = "matched" if passed else "must not match but matched"
        return Score.binary(passed, f"pattern {shown} {verb} {clip(match.group(0), 60)}",
                            match=match.group(0), groups=list(match.groups()))


@scorer("token_f1")
class TokenF1(CheckScorer):
    """SQuAD-style token overlap F1 between output and reference; the best over a list."""

    bounded = True

    class Params(ReferenceParams):
        threshold: float = Field(default=0.5, ge=0.0, le=1.0)
        """The F1 at or above which the check passes."""

    params: Params

    def __init__(self, params: Params, services: Services) -> None:
        super().__init__(params, services)
        self.reference: Reference = Reference(params.value)
        self.normalize = SQUAD.build()

    def check(self, case: Case, output: Output) -> Score:
        references = self.reference.texts(case)
        if isinstance(references, Score):
            return references
        answer = self.normalize(output.text).split()
        best: tuple[float, float, float] = (-1.0, 0.0, 0.0)
        best_reference = references[0]
        for reference in references:
            scores = token_f1(answer, self.normalize(reference).split())
            if scores[0] > best[0]:
                best, best_reference = scores, reference
        f1, precision, recall = best
        passed = f1 >= self.params.threshold
        reason = (f"token F1 {fixed(f1, 2)} (precision {fixed(precision, 2)}, "
                  f"recall {fixed(recall, 2)})")
        if not answer:
            reason += "; output has no tokens"
        return Score(value=f1, passed=passed, reason=reason,
                     details={"precision": precision, "recall": recall,
                              "best_expected": best_reference})


def token_f1(predicted: list[str], gold: list[str]) -> tuple[float, float, float]:
    """(F1, precision, recall) over token multisets; two empty sides match, as in SQuAD."""
    if not predicted or not gold:
        same = float(predicted == gold)
        return same, same, same
    unmatched: dict[str, int] = {}  # the gold tokens not yet matched, counted
    for token in gold:
        unmatched[token] = unmatched.get(token, 0) + 1
    common = 0  # the size of the multisets' intersection
    for token in predicted:
        left = unmatched.get(token, 0)
        if left:
            unmatched[token] = left - 1
            common += 1
    if common == 0:
        return 0.0, 0.0, 0.0
    precision = common / len(predicted)
    recall = common / len(gold)
    # 2PR/(P+R) in one division: the product form rounds 0.2 down to 0.19999999999999998,
    # which would fail an answer sitting exactly at its threshold.
    return 2 * common / (len(predicted) + len(gold)), precision, recall
