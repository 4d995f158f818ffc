"""docs/config.md is every key a config takes, as the config's models document them.

Its writer (`config_reference.py`) leaves out no key of any section; that the page
is what the writer writes today, `test_written_pages.py` checks.
"""

from __future__ import annotations

from pathlib import Path

from assay.config.schema import config_schema

PAGE = Path(__file__).resolve().parents[2] / "docs" / "config.md"


def test_the_reference_has_a_row_for_every_key_of_every_section() -> None:
    page = PAGE.read_text(encoding="utf-8")
    schema = config_schema()
    for section in [schema, *schema["$defs"].values()]:
        for key in section.get("properties", {}):
            assert f"\n| `{key}` |" in page, key
