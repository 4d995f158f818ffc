"""Every test the README and docs/ name as holding a promise exists under that name.

docs/guarantees.md sends a reader to `tests/x/test_y.py::test_name` for each
promise; a test renamed or folded into another would leave the page pointing
at nothing, and the promise without its proof in the reader's eyes.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# `tests/a/test_b.py`, `tests/a/test_b.py::test_c`, and a later `::test_d` that
# names another test of the file named last
REFERENCE = re.compile(r"(tests/[\w/]+\.py)(?:::(\w+))?|`::(\w+)")


def named_tests(text: str) -> list[tuple[str, str | None]]:
    """(file, test or None) for each reference, a bare `::name` read against the file before it."""
    found: list[tuple[str, str | None]] = []
    last_file = ""
    for match in REFERENCE.finditer(text):
        if match.group(1):
            last_file = match.group(1)
            found.append((last_file, match.group(2)))
        elif last_file:
            found.append((last_file, match.group(3)))
    return found


def test_a_bare_test_name_is_read_against_the_file_named_before_it() -> None:
    text = "(`tests/a/test_b.py::test_one`, `::test_two`) and `tests/c/test_d.py`"
    assert named_tests(text) == [("tests/a/test_b.py", "test_one"),
                                 ("tests/a/test_b.py", "test_two"),
                                 ("tests/c/test_d.py", None)]


def test_every_file_and_test_the_docs_name_exists() -> None:
    missing = []
    for page in PAGES:
        for file, test in named_tests(page.read_text(encoding="utf-8")):
            path = ROOT / file
            if not path.is_file():
                missing.append(f"{page.name}: {file}")
            elif test and not re.search(rf"def {test}\b", path.read_text(encoding="utf-8")):
                missing.append(f"{page.name}: {file}::{test}")
    assert not missing, "named in the docs but not in tests/:\n" + "\n".join(missing)
