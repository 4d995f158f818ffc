"""A report written whole still gets the permissions a plain write would give it."""

from __future__ import annotations

import os
from pathlib import Path

from assay.reports.atomic import write_text


def test_a_new_report_is_readable_as_the_umask_allows_not_private(tmp_path: Path) -> None:
    # issue case: every report was -rw------- (the temporary file's mode), which broke
    # CI artefact upload and sharing with other users
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    write_text(tmp_path / "report.md", "# report\n")
    assert (tmp_path / "report.md").stat().st_mode & 0o777 == plain.stat().st_mode & 0o777


def test_a_replaced_report_keeps_its_permissions(tmp_path: Path) -> None:
    path = tmp_path / "r.html"
    path.write_text("old")
    os.chmod(path, 0o644)
    write_text(path, "new")
    assert path.stat().st_mode & 0o777 == 0o644 and path.read_text() == "new"
