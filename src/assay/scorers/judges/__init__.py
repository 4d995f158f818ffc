"""LLM judges: scorers whose judgement comes from a model.

Owns the judge kinds (`kinds`: judge_score, rubric, traits, judge), what
they share (`base`: asking, re-asking, repeats, recording), the reply
formats and their tolerant parsing (`formats`, `rubric`, `parse`), one
judgement and how repeats reduce (`judgement`), and the built-in prompts.
May import providers, the root nouns and `scorers.base`.
"""
