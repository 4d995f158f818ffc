"""The jinja2 environments of assay's HTML pages (autoescaped, strict, no reordering text)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from assay.shown_numbers import count


def page_environment(package: str, **options: Any) -> Any:
    """A jinja2 environment over `package`'s `templates/` folder, with what every page of
    assay needs set in one place: autoescaping, strict undefined names, and `unreordered`
    as `finalize`, so text a model wrote can neither become markup nor read the page's
    words backwards; `count` writes a count as every view does (`1,500`), in place of
    jinja's own `count`, a `length`. `options` go to the environment as well (a bytecode
    cache)."""
    from jinja2 import Environment, PackageLoader, StrictUndefined

    from assay.reports.text import unreordered

    env = Environment(loader=PackageLoader(package, "templates"), autoescape=True,
                      undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                      finalize=unreordered, **options)
    env.filters["count"] = count
    return env


@lru_cache(maxsize=1)
def template_environment() -> Any:
    """The templates of `assay/reports/templates/` (jinja2 is imported only when a page is
    rendered)."""
    env = page_environment("assay.reports")
    env.filters["pct"] = lambda x: f"{100 * x:.1f}%"
    return env
