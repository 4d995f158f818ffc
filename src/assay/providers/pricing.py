"""Cost of a call from its token usage and a price table.

The built-in `DEFAULT_PRICES` are list prices in US dollars per million
tokens for a few well-known models, as published when this table was
written. They are defaults to override: prices change, and discounts,
batch or cached-token rates are not modelled. Set `prices:` on a provider
in the config to use your own; a model with no price has an unknown cost
(shown as such, never as 0).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from assay.providers.config import Price

_PLATFORM_PREFIX = re.compile(r"^(?:[a-z]{2,6}\.)?(?:anthropic|meta|mistral|amazon|cohere)\.")
"""Bedrock's `[region.]vendor.` before a model id (`us.anthropic.claude-sonnet-4-5-...`)."""

DEFAULT_PRICES: dict[str, Price] = {
    name: Price(input_per_mtok=i, output_per_mtok=o)
    for name, (i, o) in {
        # Anthropic
        "claude-opus-4-1": (15.0, 75.0),
        "claude-opus-4-5": (5.0, 25.0),
        "claude-sonnet-4-5": (3.0, 15.0),
        "claude-sonnet-4-0": (3.0, 15.0),
        "claude-3-7-sonnet-latest": (3.0, 15.0),
        "claude-haiku-4-5": (1.0, 5.0),
        "claude-3-5-haiku-latest": (0.8, 4.0),
        # OpenAI
        "gpt-4.1": (2.0, 8.0),
        "gpt-4.1-mini": (0.4, 1.6),
        "gpt-4.1-nano": (0.1, 0.4),
        "gpt-4o": (2.5, 10.0),
        "gpt-4o-mini": (0.15, 0.6),
        "gpt-5": (1.25, 10.0),
        "gpt-5-mini": (0.25, 2.0),
        "gpt-5-nano": (0.05, 0.4),
        "o3": (2.0, 8.0),
        "o4-mini": (1.1, 4.4),
        # Google (prompts up to 200k tokens; thinking is billed as output)
        "gemini-3-pro-preview": (2.0, 12.0),
        "gemini-2.5-pro": (1.25, 10.0),
        "gemini-2.5-flash": (0.30, 2.50),
        "gemini-2.5-flash-lite": (0.10, 0.40),
        "gemini-2.0-flash": (0.10, 0.40),
        "gemini-2.0-flash-lite": (0.075, 0.30),
    }.items()
}


def find_price(model: str, table: Mapping[str, Price]) -> Price | None:
    """The price of `model`: an exact entry, else the longest entry it starts with.

    Prefix matching lets `claude-sonnet-4-5-20250929` find `claude-sonnet-4-5` (and Vertex
    AI's `claude-sonnet-4-5@20250929`); Bedrock's `us.anthropic.claude-sonnet-4-5-...-v1:0`
    is looked up without its region and vendor.
    """
    if model in table:
        return table[model]
    candidates = [name for name in table if model.startswith(name)]
    if candidates:
        return table[max(candidates, key=len)]
    bare = _PLATFORM_PREFIX.sub("", model)
    return find_price(bare, table) if bare != model else None


def cost_usd(price: Price | None, input_tokens: int, output_tokens: int) -> float | None:
    """Dollars for this usage, or None when the price is unknown."""
    if price is None:
        return None
    return (input_tokens * price.input_per_mtok + output_tokens * price.output_per_mtok) / 1e6
