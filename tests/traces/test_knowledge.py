"""The knowledge folder a session's reads are matched against (`assay traces --knowledge`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.errors import UserError
from assay.traces.knowledge import KnowledgeFolder


def test_the_folder_lists_its_files_without_hidden_ones(tmp_path: Path) -> None:
    (tmp_path / "guide").mkdir()
    (tmp_path / "guide" / "setup.md").write_text("# Setup\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref\n")
    folder = KnowledgeFolder.scan(tmp_path)
    assert folder.files == ("guide/setup.md",)
    assert folder.match(str(tmp_path / "guide" / "setup.md")) == "guide/setup.md"


@pytest.mark.parametrize(("name", "says"), [
    ("missing", "--knowledge folder not found"),
    ("a-file.md", "is not a folder"),
    ("x" * 300, "cannot open --knowledge folder"),
])
def test_a_knowledge_path_that_is_no_folder_is_a_user_error(
        tmp_path: Path, name: str, says: str) -> None:
    """Regression: a name too long for the file system raised OSError from Path.is_dir."""
    (tmp_path / "a-file.md").write_text("# A\n")
    with pytest.raises(UserError, match=says):
        KnowledgeFolder.scan(tmp_path / name)
