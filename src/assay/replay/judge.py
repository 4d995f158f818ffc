"""`vs_recorded`: is the new answer better than, as good as, or worse than the recorded one?

The recorded answer is the case's `reference`, as `assay traces export`
writes it: what the agent answered in the session. The judge sees the
question, that answer and the new one, and answers with a label; the score
passes unless the new answer is worse, so its pass rate is the share of
questions answered at least as well as then.
"""

from __future__ import annotations

from assay.case import Case
from assay.output import Output
from assay.registry import scorer
from assay.replay import VERSUS
from assay.score import Score
from assay.scorers.judges.base import JudgeScorer
from assay.scorers.judges.formats import LabelFormat, ReplyFormat

LABELS = ("better", "same", "worse")
"""Best first."""
PASSING = ("better", "same")

SYSTEM = """\
You compare a new answer to a question with the answer given to the same question before,
which was recorded in a real session. Judge what each answer says, not its wording: is it
correct, complete and useful for the person who asked?

- better: the new answer is more correct or more complete, or equally so and clearer.
- same: the two answers are about equally good, even if worded differently.
- worse: the new answer is less correct or less complete, misses what the recorded answer
  said, or does not answer.

Give the label with a reason of one sentence naming the difference."""

PROMPT = """\
Question:
{{ input }}

Reference answer (recorded in the session):
{{ reference }}

New answer:
{{ output }}"""


@scorer("vs_recorded")
class VsRecorded(JudgeScorer):
    """The new answer against the answer recorded in the session (the case's `reference`):
    better, same or worse; passes unless worse."""

    default_system = SYSTEM
    default_prompt = PROMPT

    def build_format(self) -> ReplyFormat:
        return LabelFormat(LABELS, PASSING)

    def reference_problem(self, case: Case) -> str | None:
        recorded = case.reference
        if not isinstance(recorded, str) or not recorded.strip():
            return (f"case {case.id} has no recorded answer to compare with: its `reference` "
                    "is empty, as for a question the session never answered; write the "
                    "answer to compare with in `reference`, or leave the case out")
        return None

    async def score(self, case: Case, output: Output) -> Score:
        score = await super().score(case, output)
        score.details["versus"] = VERSUS
        score.details["recorded"] = case.reference
        return score
