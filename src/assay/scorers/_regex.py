"""A config field holding a regular expression, checked when the config is read.

A pattern that does not compile is a config error (exit code 2) naming the
field, not an exception on the first trial.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator


def compiles(pattern: str) -> str:
    """`pattern` unchanged if Python's `re` can compile it; a ValueError saying why if not."""
    try:
        re.compile(pattern)
    except re.error as exc:
        raise ValueError(f"invalid regular expression: {exc}") from None
    return pattern


RegexPattern = Annotated[str, AfterValidator(compiles)]
"""A `str` param that must be a valid Python regular expression."""
