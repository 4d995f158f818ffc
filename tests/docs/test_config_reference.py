"""docs/config.md is every key a config takes, as the config's models document them.

The page is written from the models (`config_reference.py`), so a key added,
renamed or re-explained in the code is a page that no longer matches them.
"""

from __future__ import annotations

from pathlib import Path

from assay.config.schema import config_schema
from tests.docs.config_reference import reference

PAGE = Path(__file__).resolve().parents[2] / "docs" / "config.md"


def test_the_config_reference_is_what_the_models_say() -> None:
    assert PAGE.read_text(encoding="utf-8") == reference(), (
        "docs/config.md differs from the config's models: write it again with "
        "`uv run python -m tests.docs.config_reference > docs/config.md`")


def test_the_reference_has_a_row_for_every_key_of_every_section() -> None:
    page = PAGE.read_text(encoding="utf-8")
    schema = config_schema()
    for section in [schema, *schema["$defs"].values()]:
        for key in section.get("properties", {}):
            assert f"\n| `{key}` |" in page, key
