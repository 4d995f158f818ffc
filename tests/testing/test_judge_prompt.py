"""Reading the parts of a judge's message: assay's own templates and hand-written ones."""

from __future__ import annotations

from assay.config.templates import render
from assay.scorers.judges.prompts import SCORE_PROMPT, TRAITS_PROMPT
from assay.testing.judge_prompt import read_parts, role_of


def test_the_built_in_templates_are_read_part_by_part():
    scored = read_parts(render(SCORE_PROMPT, {"input": "Q?", "expected": "Ref.",
                                              "output": "Ans."}))
    assert (scored.question, scored.reference, scored.answer) == ("Q?", "Ref.", "Ans.")
    traits = read_parts(render(TRAITS_PROMPT, {"input": "Hi", "output": "Hello!",
                                               "expected_traits": ["greets", "is brief"]}))
    assert (traits.question, traits.answer, traits.traits) == ("Hi", "Hello!",
                                                               ["greets", "is brief"])


def test_headings_are_read_by_their_words_first_match_wins():
    assert role_of("Reference answer") == "reference"
    assert role_of("Answer to grade") == "answer"
    assert role_of("Expected traits") == "traits"
    assert role_of("Ground truth") == "reference"
    assert role_of("Model output") == "answer"
    assert role_of("Response B") == "second"
    assert role_of("Assistant A's answer") == "first"
    assert role_of("Notes") is None


def test_inline_headings_tags_and_markdown_headings_all_work():
    inline = read_parts("Question: What is 2+2?\nExpected: 4\nSubmission: four")
    assert (inline.question, inline.reference, inline.answer) == ("What is 2+2?", "4", "four")
    tagged = read_parts("<question>Why?</question> <reference>Because.</reference>"
                        "<answer>No idea.</answer>")
    assert (tagged.question, tagged.reference, tagged.answer) == ("Why?", "Because.",
                                                                  "No idea.")
    markdown = read_parts("## Question\nWhy?\n## Ideal answer\nBecause.\n## Response\nHm.")
    assert (markdown.question, markdown.reference, markdown.answer) == ("Why?", "Because.",
                                                                        "Hm.")


def test_an_answer_that_says_answer_colon_itself_stays_whole():
    parts = read_parts("Question:\nCapital?\n\nAnswer to grade:\nAnswer: Paris.\nNote: sure.")
    assert parts.answer == "Answer: Paris.\nNote: sure."


def test_a_pairwise_prompt_gives_both_answers_in_the_order_shown():
    parts = read_parts("Question: Capital of France?\n\n[The Start of Assistant A's Answer]\n"
                       "Paris\n[The End of Assistant A's Answer]\n\n"
                       "[The Start of Assistant B's Answer]\nLyon\n"
                       "[The End of Assistant B's Answer]")
    assert parts.pair == ("Paris", "Lyon")
    assert read_parts("Answer 1: yes\nAnswer 2: no").pair == ("yes", "no")


def test_a_message_without_headings_has_no_parts():
    parts = read_parts("Is this right? Paris")
    assert (parts.question, parts.reference, parts.answer, parts.pair) == (None, None, None,
                                                                          None)
