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


def test_a_port_in_use_is_a_usage_error_before_the_pack_is_indexed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a port another server listens on ended in uvicorn's error, exit 3, after
    "serving pack ... at http://127.0.0.1:PORT/mcp" was printed."""
    import socket

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\nText.\n")
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = str(taken.getsockname()[1])
        code, out = assay(capsys, "pack", "serve", str(tmp_path / "docs"), "--transport",
                          "http", "--port", port, "--cache", str(tmp_path / "cache"))
    assert code == 2, out
    assert f"cannot listen on 127.0.0.1:{port}" in out and "serving pack" not in out
    assert not (tmp_path / "cache").exists()  # nothing indexed for a server that cannot start


def test_an_index_cache_that_cannot_be_written_exits_2_naming_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `assay pack index DIR --cache /dev/null` ended in 'internal error:
    FileExistsError: [Errno 17] File exists: '/dev/null'', exit 3."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\nText.\n")
    code, out = assay(capsys, "pack", "index", str(tmp_path / "docs"), "--cache", "/dev/null")
    assert code == 2, out
    assert "pack 'docs': cannot write its index in /dev/null" in out
    assert "internal error" not in out


def test_pack_index_says_how_many_hidden_files_it_left_out(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: `.git/` and `.notes.md` were indexed with the documents, without a word."""
    (tmp_path / "docs" / ".git").mkdir(parents=True)
    (tmp_path / "docs" / "a.md").write_text("# A\n\nText.\n")
    (tmp_path / "docs" / ".notes.md").write_text("# Notes\n\nTo do.\n")
    (tmp_path / "docs" / ".git" / "b.md").write_text("# B\n\nObject.\n")
    code, out = assay(capsys, "pack", "index", str(tmp_path / "docs"), "--cache",
                      str(tmp_path / "cache"))
    assert code == 0, out
    assert "pack 'docs': 1 document, 1 chunk, index at " in out
    assert "2 hidden files left out (a name or folder starting with '.'" in out


def test_pack_index_says_which_links_it_left_out(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a pack whose documents were linked in (`docs/go -> ../vendor/go-docs`,
    a link to a file elsewhere) was indexed without them and without a word: 'pack 'docs':
    1 document', or, with nothing else in it, 'no documents in docs matching **/*.md ...'."""
    docs, vendor = tmp_path / "docs", tmp_path / "vendor"
    (vendor / "go").mkdir(parents=True)
    (vendor / "go" / "maps.md").write_text("# Maps\n\nA map is a hash table.\n")
    (vendor / "slices.md").write_text("# Slices\n\nA slice is a view of an array.\n")
    docs.mkdir()
    (docs / "go").symlink_to(vendor / "go", target_is_directory=True)
    (docs / "slices.md").symlink_to(vendor / "slices.md")
    code, out = assay(capsys, "pack", "index", str(docs), "--cache", str(tmp_path / "cache"))
    assert code == 2, out
    assert ("2 links left out (go, slices.md): a pack follows no link to a folder, nor one "
            "to a file outside its folder") in out
    (docs / "a.md").write_text("# A\n\nText.\n")
    (docs / "alias.md").symlink_to(docs / "a.md")  # a link to a file inside is read
    code, out = assay(capsys, "pack", "index", str(docs), "--cache", str(tmp_path / "cache"))
    assert code == 0, out
    assert "pack 'docs': 2 documents, 2 chunks, index at " in out
    assert "; 2 links left out (go, slices.md)" in out


def test_pack_index_takes_the_include_patterns_a_configs_pack_takes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a pack of reStructuredText (`include: ["**/*.txt", "**/*.rst"]` in a config)
    ran, but `assay pack index` and `assay pack serve` knew only the default patterns: they
    indexed the text file alone, not the pack the run read."""
    from assay.context.pack_index import content_hash

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.rst").write_text("Alpha\n=====\n\nPort 7070.\n")
    (docs / "b.txt").write_text("Beta follows alpha.\n")
    code, out = assay(capsys, "pack", "index", str(docs), "--cache", str(tmp_path / "cache"))
    assert code == 0 and "pack 'docs': 1 document, 1 chunk" in out
    patterns = ["**/*.txt", "**/*.rst"]
    code, out = assay(capsys, "pack", "index", str(docs), "--cache", str(tmp_path / "cache"),
                      "--include", patterns[0], "--include", patterns[1], "-q", "port")
    assert code == 0, out
    assert "pack 'docs': 2 documents, 2 chunks, index at " in out
    assert f"docs-{content_hash(docs.resolve(), patterns, 1200)[:16]}" in out  # the run's index
    assert "[a.rst" in out and "7070" in out


def test_pack_index_names_a_document_it_left_out_as_not_utf8(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: one Latin-1 page ended `assay pack index` with exit 2 and no index."""
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\nText.\n")
    (tmp_path / "docs" / "cafe.md").write_bytes(b"# Caf\xe9\n")
    code, out = assay(capsys, "pack", "index", str(tmp_path / "docs"), "--cache",
                      str(tmp_path / "cache"))
    assert code == 0, out
    assert "pack 'docs': 1 document, 1 chunk, index at " in out
    assert ("warning: pack 'docs': cafe.md left out: not UTF-8 text (line 1: byte 0xe9); "
            "save it as UTF-8") in out
