"""Documents become citable chunks: cut at headings, then paragraphs; HTML reduced to text."""

from __future__ import annotations

from pathlib import Path

from assay.context.documents import Document, chunk_document, read_document


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
