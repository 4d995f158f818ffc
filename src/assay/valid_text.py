"""Text that can be stored: no lone surrogates, and a length cut at a byte limit.

A Python string may hold a surrogate code point on its own (`json.loads`
accepts `"\\ud800"`; a reply cut in the middle of an emoji can end in one),
but no UTF-8 encoder, database or file accepts it. Text from outside (dataset
fields, targets' answers) passes through here first: each lone surrogate
becomes U+FFFD, the replacement character, and the caller notes that it did.
"""

from __future__ import annotations

import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def valid_text(text: str) -> tuple[str, int]:
    """`text` with each lone surrogate replaced by U+FFFD, and how many there were."""
    if text.isascii():  # most text, checked without building its UTF-8 bytes
        return text, 0
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.subn(REPLACEMENT, text)
    return text, 0


def valid_record(value: Any) -> tuple[Any, int]:
    """`value` with every string made storable (a lone surrogate, which JSON's `\\ud800`
    escape can produce, becomes U+FFFD), keys included; and how many were replaced."""
    if isinstance(value, str):
        return valid_text(value)
    if isinstance(value, dict):
        replaced, out = 0, {}
        for key, item in value.items():
            key, in_key = valid_record(key)
            out[key], in_item = valid_record(item)
            replaced += in_key + in_item
        return out, replaced
    if isinstance(value, list):
        replaced, items = 0, []
        for item in value:
            item, count = valid_record(item)
            items.append(item)
            replaced += count
        return items, replaced
    return value, 0


def cut_to_bytes(text: str, limit: int) -> tuple[str, int]:
    """`text` cut to at most `limit` bytes of UTF-8 (never inside a character), and its size."""
    encoded = text.encode("utf-8", errors="surrogatepass")
    if len(encoded) <= limit:
        return text, len(encoded)
    return encoded[:limit].decode("utf-8", errors="ignore"), len(encoded)
