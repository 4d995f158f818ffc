"""The pages written from the code are what the code says today.

docs/cli.md is written from the commands (`cli_reference.py`) and docs/config.md
from the config's models (`config_reference.py`), so a flag or key added,
renamed or re-explained in the code is a page that no longer matches it.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WRITERS = {"docs/cli.md": "tests.docs.cli_reference",
           "docs/config.md": "tests.docs.config_reference"}


@pytest.mark.parametrize(("page", "writer"), WRITERS.items())
def test_a_page_written_from_the_code_is_what_the_code_says(page: str, writer: str) -> None:
    assert (ROOT / page).read_text(encoding="utf-8") == (
        importlib.import_module(writer).reference()), (
        f"{page} differs from the code: write it again with "
        f"`uv run python -m {writer} > {page}`")
