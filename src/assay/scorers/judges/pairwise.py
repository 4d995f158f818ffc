"""`pairwise`: which of two answers is better, asked twice with the positions swapped.

A judge shown two answers tends to favour one position. So every pair is
asked in both orders: A first, then B first. The same winner both times
is the verdict; two different winners are recorded as a
position-inconsistent tie, never as a win for whichever came first.

Two ways to pair:

- `against: reference`: the trial's answer (B) against the case's expected
  answer (A), per trial like any scorer. The value is 1 when the answer
  beats the reference, 0.5 for a tie, 0 when the reference wins.
- `against: conditions` (the default): each condition's answer (B) against
  the baseline condition's (A) for the same case and epoch. This needs two
  trials' outputs at once, which the per-trial pipeline never has: a
  trial is answered, scored and stored alone. So this scorer does not
  score trials; once every trial of the run is stored, the runner reads
  the stored outputs back, judges each pair (`judging.pairs`) and stores
  the verdict as this scorer's score on the candidate's trial (the
  baseline's trials get none). A resumed run judges only the pairs still
  missing. `assay compare RUN_A RUN_B --pairwise` pairs two runs' outputs
  the same way.

The verdict's details keep both orders' choices (`a_first`, `b_first`,
each naming the answer chosen: `a`, `b` or `tie`), so a report can count
wins, ties and losses, the positional consistency and the first-position
rate (`analysis.pairwise_verdicts`).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import Field

from assay.case import Case
from assay.config.templates import case_variables, render
from assay.output import Output, Usage
from assay.providers.base import ChatRequest
from assay.registry import scorer
from assay.score import Score
from assay.scorers.judges.base import Ask, JudgeParams, JudgeScorer
from assay.scorers.judges.formats import ReplyFormat, _object
from assay.scorers.judges.judgement import Judgement, Reduction, ReplyParseError
from assay.scorers.judges.parse import extract_label, extract_object, extract_reason
from assay.scorers.judges.prompts import PAIRWISE_PROMPT, PAIRWISE_SYSTEM

ORDERS = ("a_first", "b_first")


class ChoiceFormat(ReplyFormat):
    """`A`, `B` (or `tie`): the answer shown first or second. Repeats reduce by majority,
    an even split to a tie."""

    reductions = ("majority",)

    def __init__(self, allow_tie: bool) -> None:
        self.options = ["A", "B", "tie"] if allow_tie else ["A", "B"]

    def response_schema(self) -> dict[str, Any]:
        return _object({"reason": {"type": "string", "description": "one sentence"},
                        "winner": {"type": "string", "enum": list(self.options)}})

    def parse(self, text: str) -> Judgement:
        choice = extract_label(text, self.options,
                               keys=("winner", "choice", "better", "verdict", "answer"))
        if choice is None:
            raise ReplyParseError(f"no single choice of {', '.join(self.options)} in the reply")
        return Judgement(passed=False, label=choice,
                         reason=extract_reason(extract_object(text), text))

    def reduce(self, judgements: Sequence[Judgement], how: Reduction) -> Judgement:
        counts = Counter(j.label for j in judgements).most_common()
        if len(counts) > 1 and counts[0][1] == counts[1][1]:
            return Judgement(passed=False, label="tie", reason="the repeats were evenly split")
        label = counts[0][0]
        return next(j for j in judgements if j.label == label)


@scorer("pairwise")
class PairwiseJudge(JudgeScorer):
    """Which of two answers is better, asked in both orders; consistent verdicts win, the
    rest are position-inconsistent ties. Against the baseline condition's answer (after the
    run's trials are stored) or against the case's expected answer."""

    class Params(JudgeParams):
        against: Literal["conditions", "reference"] = "conditions"
        """`conditions`: each condition's answer against the baseline condition's, for the
        same case and epoch; `reference`: each answer against the case's expected answer."""

        baseline: str | None = None
        """With `against: conditions`, the condition the others are compared with (default:
        the first condition)."""

        allow_tie: bool = True
        """Let the judge say neither answer is better."""

        max_tokens: int = Field(default=512, ge=16)
        """Longest reply the judge may give."""

    params: Params
    default_system = PAIRWISE_SYSTEM
    default_prompt = PAIRWISE_PROMPT

    def build_format(self) -> ReplyFormat:
        return ChoiceFormat(self.params.allow_tie)

    @property
    def deferred(self) -> bool:
        """True when it needs two conditions' outputs: judged after the trials are stored."""
        return self.params.against == "conditions"

    def template_variables(self, case: Case) -> dict[str, Any]:
        return case_variables(case, answer_a="", answer_b="", reference=None, output="")

    def reference_problem(self, case: Case) -> str | None:
        if self.params.against == "reference" and not _text(case.expected):
            return f"case {case.id} has no `expected` answer to compare with"
        return None

    async def score(self, case: Case, output: Output) -> Score:
        problem = self.reference_problem(case)
        if problem is not None:
            return Score.failure(problem, details=self._base_details())
        return await self.judge_pair(case, _text(case.expected), output.text,
                                     against="reference", reference=None)

    async def judge_pair(self, case: Case, answer_a: str, answer_b: str, *, against: str,
                         reference: str | None = "expected") -> Score:
        """Judge answer B against answer A in both orders. `reference` shows the case's
        expected answer to the judge as well (the default), or nothing (None)."""
        await self.setup()
        shown = _text(case.expected) if reference == "expected" else None
        requests = [self._request(case, first, second, shown)
                    for first, second in ((answer_a, answer_b), (answer_b, answer_a))]
        repeats = self.params.repeats
        asks = await asyncio.gather(*(self._ask(request, repeat=index + 1)
                                      for request in requests for index in range(repeats)))
        return self._pair_score([list(asks[:repeats]), list(asks[repeats:])], against)

    def _request(self, case: Case, first: str, second: str, reference: str | None
                 ) -> ChatRequest:
        variables = case_variables(case, answer_a=first, answer_b=second,
                                   reference=reference or None, output=second)
        return ChatRequest(
            model=self._model_name,
            messages=[{"role": "user", "content": render(self.template, variables)}],
            system=render(self.system, variables) + "\n\n" + self.reply_instructions,
            temperature=self.temperature, max_tokens=self.params.max_tokens,
            response_schema=self.response_schema)

    def _pair_score(self, orders: list[list[Ask]], against: str) -> Score:
        details = self._base_details()
        details["against"] = against
        usage = Usage()
        for ask in (ask for asks in orders for ask in asks):
            usage.add(ask.usage)
        details["usage"] = usage.to_dict()
        details["judgements"] = [{"order": order, **ask.record()}
                                 for order, asks in zip(ORDERS, orders) for ask in asks]
        failed = [ask for asks in orders for ask in asks if ask.judgement is None]
        if failed:
            details["judge_errors"] = len(failed)
            return Score.failure(failed[0].failure(), details=details, usage=usage)
        choices = []
        unstable = False
        for order, asks in zip(ORDERS, orders):
            judgements = [ask.judgement for ask in asks if ask.judgement is not None]
            shown = self.reply_format.reduce(judgements, "majority").label
            choices.append(_answer(shown, swapped=order == "b_first"))
            unstable = unstable or len({j.label for j in judgements}) > 1
        a_first, b_first = choices
        winner = a_first if a_first == b_first else "tie"
        details.update(a_first=a_first, b_first=b_first, winner=winner,
                       consistent=a_first == b_first)
        if self.params.repeats > 1:
            details["unstable"] = unstable
        value = {"b": 1.0, "tie": 0.5, "a": 0.0}[winner]
        return Score(value=value, scale=(0.0, 1.0), passed=None,
                     reason=_reason(a_first, b_first, against), details=details, usage=usage)


def _answer(shown: str | None, *, swapped: bool) -> str:
    """The answer a positional choice names: `A` shown first is answer a, unless swapped."""
    if shown == "A":
        return "b" if swapped else "a"
    if shown == "B":
        return "a" if swapped else "b"
    return "tie"


def _reason(a_first: str, b_first: str, against: str) -> str:
    other = "the reference" if against == "reference" else f"the {against} answer"
    if a_first != b_first:
        return (f"position-inconsistent: {_said(a_first, other)} with {other} shown first, "
                f"{_said(b_first, other)} with it shown second; counted as a tie")
    if a_first == "tie":
        return f"a tie with {other} in both orders"
    return f"{'better' if a_first == 'b' else 'worse'} than {other} in both orders"


def _said(choice: str, other: str) -> str:
    return {"a": f"{other} won", "b": "this answer won", "tie": "a tie"}[choice]


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(str(item) for item in value)
    return str(value)
