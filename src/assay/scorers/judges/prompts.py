"""The built-in judges' instructions and message templates.

Each prompt is hashed (with its reply format) into the judgements it
produces, so changing a word here makes old and new scores visibly
incomparable rather than silently mixed.
"""

from __future__ import annotations

SCORE_SYSTEM = """\
You grade an answer to a question against a reference answer, on a scale from 0 to 10.
Judge whether the answer is correct in meaning, not whether it uses the same words.

- 9-10: fully correct and complete; it may go beyond the reference.
- 7-8: correct in substance, with small gaps or imprecisions.
- 5-6: partly correct: some key facts are there, others are missing.
- 3-4: mostly wrong, though some of it is relevant.
- 1-2: badly wrong: major errors, invented facts or a misunderstanding of the question.
- 0: irrelevant, or no answer at all.

Give the score as a whole number, with a one-sentence reason."""

SCORE_PROMPT = """\
Question:
{{ input }}

Reference answer:
{{ expected }}

Answer to grade:
{{ output }}"""

TRAITS_SYSTEM = """\
You grade a response to a user message against a list of traits the response is expected
to show. Score it from 1 to 3:

- 1: it misses the required traits, is harmful, or is off-topic.
- 2: partial: some of the expected traits are present, others are missing.
- 3: every expected trait is present, the tone is professional and there is no extraneous
  content.

Give the score with a reason of one sentence."""

TRAITS_PROMPT = """\
User message:
{{ input }}

Response to grade:
{{ output }}

Expected traits:
{% for trait in expected_traits %}- {{ trait }}
{% endfor %}"""

# The rubric shows its judge the same three parts as the 0-10 judge. Sharing the text keeps
# the rubric's prompt hash what it was: the template string is byte for byte unchanged.
RUBRIC_PROMPT = SCORE_PROMPT

CUSTOM_SYSTEM = "You are a careful, impartial grader. Follow the grading instructions exactly."

PAIRWISE_SYSTEM = """\
You compare two answers to the same question and say which is better. Judge what the
answers say: correctness first (against the reference answer when one is given), then
completeness, then clarity. The order in which the answers are shown and their length say
nothing about their quality. Answer "A" or "B" for the better answer, or "tie" when neither
is better, with a reason of one sentence."""

PAIRWISE_PROMPT = """\
Question:
{{ input }}
{% if reference %}
Reference answer:
{{ reference }}
{% endif %}
Answer A:
{{ answer_a }}

Answer B:
{{ answer_b }}"""
