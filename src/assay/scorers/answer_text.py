"""The answer a scorer function gets when it does not say which form it wants.

A function `(case, output)` is written one of two ways: treating `output` as
the answer's text (`output == case.expected`, `"Paris" in output`) or as the
`assay.Output` (`output.text`, `output.tool_calls`). Guessing wrong fails
silently: `Output == "Paris"` is just False, a score of 0 for every case. So
an unannotated `output` is an `AnswerText`: the text itself, a real `str`, that
also carries every field of the Output (`.text`, `.tool_calls`, `.usage`,
`.metadata`, `.transcript`, ...), and both ways read right.
"""

from __future__ import annotations

from typing import Any, Self

from assay.output import Output


class AnswerText(str):
    """The answer's text, with its `Output`'s fields as attributes (`.output` is the whole)."""

    output: Output

    def __new__(cls, output: Output) -> Self:
        text = super().__new__(cls, output.text)
        text.output = output
        return text

    def __getnewargs__(self) -> tuple[Output]:  # type: ignore[override]
        """A copy (or pickle) is made from the Output, as the original was."""
        return (self.output,)

    def __getattr__(self, name: str) -> Any:
        if name == "output":  # not set yet (a copy being made): no recursion
            raise AttributeError(name)
        return getattr(self.output, name)
