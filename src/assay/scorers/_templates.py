"""Templates in scorer and target params: tried on a case by `validate`.

A syntax error is known from the text alone, so it is a config error located
at its field like any other. An unknown variable depends on the dataset; the
dry render against one real case catches the typo (`{{ expcted }}`) before a
run spends anything.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from assay.errors import UserError
from assay.config.templates import render

_UNDEFINED = re.compile(r"'([^']+)' is undefined")


def render_problem(source: str, variables: dict[str, Any]) -> str | None:
    """Why `source` does not render with `variables` (with a did-you-mean), or None."""
    try:
        render(source, variables)
    except UserError as exc:
        message = str(exc)
        unknown = _UNDEFINED.search(message)
        if unknown:
            hint = difflib.get_close_matches(unknown.group(1), list(variables), n=1)
            if hint:
                message += f"; did you mean '{hint[0]}'?"
        return message
    except Exception as exc:  # noqa: BLE001 - whatever the sandbox raises is the answer
        return f"template does not render: {type(exc).__name__}: {exc}"
    return None
