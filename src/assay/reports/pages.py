"""The jinja2 environment of assay's self-contained HTML pages (autoescaped, strict)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1)
def template_environment() -> Any:
    """The templates of `assay/reports/templates/` (jinja2 is imported only when a page is
    rendered)."""
    from jinja2 import Environment, PackageLoader, StrictUndefined

    from assay.reports.text import unreordered

    env = Environment(loader=PackageLoader("assay.reports", "templates"), autoescape=True,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                      finalize=unreordered)
    env.filters["pct"] = lambda x: f"{100 * x:.1f}%"
    return env
