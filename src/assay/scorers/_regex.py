"""Regular expressions in scorer params: checked when the config is read, bounded when run.

A pattern that does not compile is a config error (exit code 2) naming the
field, not an exception on the first trial.

Patterns run on the `regex` package, not Python's `re`: `re` cannot be
interrupted, so a catastrophic pattern (`(a+)+$` on a long answer) would hold
its thread forever, while `regex` takes a timeout and raises TimeoutError,
which the check records as its error on that trial. `regex`'s VERSION0
syntax is the syntax of `re`.
"""

from __future__ import annotations

from typing import Annotated, Any

import regex
from pydantic import AfterValidator

MATCH_SECONDS = 2.0
"""How long one search may take before the check gives up with an error."""


def compile_pattern(pattern: str, flags: int = 0) -> Any:
    """`pattern` compiled with `re`'s syntax; `regex.error` if it does not compile."""
    return regex.compile(pattern, flags | regex.VERSION0)


def compiles(pattern: str) -> str:
    """`pattern` unchanged if it compiles; a ValueError saying why if not."""
    try:
        compile_pattern(pattern)
    except (regex.error, ValueError, OverflowError, RecursionError) as exc:
        raise ValueError(f"invalid regular expression: {exc}") from None
    return pattern


def timed_out(pattern: str) -> str:
    """The error text of a search that ran out of time."""
    return (f"pattern /{pattern}/ took longer than {MATCH_SECONDS:g}s on this output "
            "(catastrophic backtracking?); rewrite it without nested repetition")


RegexPattern = Annotated[str, AfterValidator(compiles)]
"""A `str` param that must be a valid regular expression (Python's `re` syntax)."""
