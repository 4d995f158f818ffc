"""Documents become citable chunks: cut at headings, then paragraphs; HTML reduced to text."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.context.documents import (
    Document,
    LeftOut,
    NotText,
    chunk_document,
    pack_files,
    read_document,
)
from assay.context.pack_config import DEFAULT_PATTERNS


def test_markdown_is_cut_at_headings_with_stable_source_ids() -> None:
    doc = Document("guide/errors.md", "Errors", "# Errors\n\nIntro.\n\n## Wrapping\n\nUse %w.\n\n"
                   "## Wrapping\n\nAgain.\n")
    chunks = chunk_document(doc, max_chars=500)
    assert [c.source_id for c in chunks] == [
        "guide/errors.md#errors", "guide/errors.md#wrapping", "guide/errors.md#wrapping-2"]
    assert chunks[1].title == "Errors / Wrapping"
    assert chunks[1].text == "## Wrapping\n\nUse %w."


def test_a_heading_with_nothing_under_it_is_not_a_chunk() -> None:
    doc = Document("a.md", "A", "# A\n\n## B\n\ntext under b\n")
    assert [c.source_id for c in chunk_document(doc, 500)] == ["a.md#b"]


def test_long_sections_are_split_at_paragraphs_and_never_exceed_the_limit() -> None:
    paragraphs = [f"Paragraph {i} " + "word " * 30 for i in range(10)]
    doc = Document("long.md", "Long", "# Long\n\n" + "\n\n".join(paragraphs))
    chunks = chunk_document(doc, max_chars=400)
    assert len(chunks) > 1
    assert all(len(c.text) <= 400 for c in chunks)
    joined = " ".join(c.text for c in chunks)
    assert all(f"Paragraph {i} " in joined for i in range(10))


def test_headings_inside_code_fences_do_not_start_sections() -> None:
    doc = Document("c.md", "C", "# C\n\n```sh\n# not a heading\necho hi\n```\n")
    [chunk] = chunk_document(doc, 500)
    assert "# not a heading" in chunk.text


def test_html_is_read_as_text_with_its_title_and_headings(tmp_path: Path) -> None:
    (tmp_path / "page.html").write_text(
        "<html><head><title>Help</title><script>var x = 1;</script></head><body>"
        "<h2>Locks</h2><p>Remove the <code>LOCK</code> file.</p></body></html>")
    doc = read_document(tmp_path, tmp_path / "page.html")
    assert doc.title == "Help"
    assert "var x" not in doc.text
    assert "## Locks" in doc.text and "Remove the LOCK file." in doc.text
    assert [c.source_id for c in chunk_document(doc, 500)] == ["page.html#locks"]


def test_a_document_that_is_not_utf8_names_the_line_of_its_first_bad_byte(
        tmp_path: Path) -> None:
    """Regression: it read '...a.md: not UTF-8 text (invalid continuation byte)', naming
    neither the byte nor its line."""
    (tmp_path / "a.md").write_bytes(b"# Caf\xc3\xa9\n\nIntro.\n\ncaf\xe9 au lait\n")
    with pytest.raises(NotText) as caught:
        read_document(tmp_path, tmp_path / "a.md")
    assert caught.value.left_out == LeftOut(
        "a.md", "not UTF-8 text (line 5: byte 0xe9); save it as UTF-8")


def test_a_utf16_document_is_told_to_be_saved_as_utf8(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# Title\n\nText.\n", encoding="utf-16")
    with pytest.raises(NotText, match=r"a.md is UTF-16 text \(as Windows PowerShell writes "
                                      r"it\); save it as UTF-8"):
        read_document(tmp_path, tmp_path / "a.md")


def test_a_binary_document_is_refused_instead_of_indexed_as_text(tmp_path: Path) -> None:
    """Regression: a file of NUL and control bytes named like a document was indexed as
    text, its bytes served to the agent as a passage."""
    (tmp_path / "logo.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    (tmp_path / "plain.md").write_bytes(b"\x00\x01\x02 text")
    for name in ("logo.md", "plain.md"):
        with pytest.raises(NotText, match=f"{name} is (not UTF-8|a binary file)"):
            read_document(tmp_path, tmp_path / name)


def _with_hidden_files(folder: Path) -> None:
    for name in ("guide.md", "sub/more.md", ".notes.md", ".git/HEAD.md", "sub/.draft/x.md",
                 ".github/CONTRIBUTING.md"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(f"# {name}\n\nText of {name}.\n")


def test_hidden_files_and_folders_are_left_out_and_counted(tmp_path: Path) -> None:
    """Regression: `.git/*.md` and `.notes.md` were indexed into a pack with its documents
    and served as passages; hidden files are now left out, as ripgrep does, and counted."""
    _with_hidden_files(tmp_path)
    found = pack_files(tmp_path, DEFAULT_PATTERNS)
    assert [p.relative_to(tmp_path).as_posix() for p in found.files] == [
        "guide.md", "sub/more.md"]
    assert found.hidden == 4


def test_a_pattern_that_names_a_dot_keeps_the_hidden_files_it_matches(tmp_path: Path) -> None:
    _with_hidden_files(tmp_path)
    found = pack_files(tmp_path, ["**/*.md", ".github/**/*.md", "**/.*.md"])
    assert [p.relative_to(tmp_path).as_posix() for p in found.files] == [
        ".github/CONTRIBUTING.md", ".notes.md", "guide.md", "sub/more.md"]
    assert found.hidden == 2  # .git/HEAD.md and sub/.draft/x.md
