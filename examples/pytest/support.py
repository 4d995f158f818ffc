"""A small support bot: the app under test.

Version 1 matches the question against its FAQ by one keyword; version 2
also knows synonyms, so it finds more answers. Neither calls a model, so
the example runs offline in seconds.
"""

from __future__ import annotations

from assay import Case

FAQ = {
    "refund": "Refunds are paid within 14 days to the card you paid with.",
    "shipping": "Shipping is free on orders over 50 euros; otherwise it costs 4.90 euros.",
    "password": "Reset your password from the sign-in page with 'Forgot password'.",
    "cancel": "You can cancel an order until it ships, from the Orders page.",
    "warranty": "Every device has a two-year warranty.",
}
SYNONYMS = {
    "money back": "refund", "reimburse": "refund", "delivery": "shipping",
    "postage": "shipping", "log in": "password", "sign in": "password",
    "guarantee": "warranty",
}


def answer(case: Case, version: int = 2) -> str:
    question = case.input_text.lower()
    topics = dict(FAQ)
    if version >= 2:
        topics.update({phrase: FAQ[topic] for phrase, topic in SYNONYMS.items()})
    for phrase, reply in topics.items():
        if phrase in question:
            return reply
    return "Sorry, I don't know. A colleague will get back to you."
