"""`assay pack`: its arguments are checked before any server starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from .evalproject import assay


@pytest.mark.parametrize("port", ["0", "65536", "99999", "-1"])
def test_a_port_no_server_can_bind_is_a_usage_error_not_an_internal_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], port: str) -> None:
    """Regression: `--port 99999` ended in "internal error: OverflowError", exit 3, after the
    pack was indexed and "serving pack ... at http://127.0.0.1:99999/mcp" was printed."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\nText.\n")
    code, out = assay(capsys, "pack", "serve", str(tmp_path / "docs"), "--transport", "http",
                      "--port", port, "--cache", str(tmp_path / "cache"))
    assert code == 2, out
    assert "--port" in out and "serving pack" not in out and "internal error" not in out
