"""A pack's documents: read from a folder, turned into text, cut into chunks.

Markdown is cut at headings, then at paragraph breaks, so a chunk is a
passage a person could cite. HTML is reduced to its text first. Every chunk
gets a stable source id, `path#heading-slug`, that survives re-indexing as
long as the document's headings do.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar

from assay.errors import UserError
from assay.input_files import UTF16_TEXT, NotUtf8Text, require_directory, utf8_text


@dataclass(frozen=True, slots=True)
class Document:
    """One file of a pack, as text."""

    path: str
    """The file's path relative to the pack folder, with `/` separators."""
    title: str
    text: str


@dataclass(frozen=True, slots=True)
class Chunk:
    """One retrievable passage of a document."""

    source_id: str
    """`path#section`, unique within the pack; what a citation names."""
    title: str
    text: str


@dataclass(frozen=True, slots=True)
class PackFiles:
    """The files a pack's patterns select in its folder."""

    files: list[Path]
    """Sorted by relative path, so hashing and ids do not depend on the file system's order."""
    hidden: int
    """Files the patterns matched that were left out as hidden: their name, or a folder's
    on the way to them, starts with a dot (`.git/`, `.notes.md`)."""
    links: list[str]
    """Links left out, as paths in the folder: a link to a folder (never followed) or one
    to a file outside the folder, or to nothing."""


def pack_files(folder: Path, patterns: list[str]) -> PackFiles:
    """The pack's files. Hidden ones are left out, as ripgrep and most indexers do (a
    `.git/` or an editor's notes is not documentation), unless a pattern names a dot
    itself (`.github/**/*.md`, `**/.*.md`).

    A symlink whose target lies outside the folder is left out: a pack is served to
    agents (and over `assay pack serve` to anyone who connects), and a link to
    `/etc/passwd` inside it must not serve that file. A link to a folder is not followed
    (as `**` does not follow it). Both are counted in `links`, so that a pack of
    linked-in folders does not come out empty or short without a word."""
    require_directory(folder, "pack folder")
    root = folder.resolve()
    found: set[Path] = set()
    hidden: set[Path] = set()
    links: set[Path] = set()
    for pattern in patterns:
        names_hidden = _names_hidden(pattern)
        for path in folder.glob(pattern):
            shown = names_hidden or not _hidden(path.relative_to(folder))
            if not path.is_file() or not _inside(path, root):
                if shown and path.is_symlink():
                    links.add(path)
                continue
            if shown:
                found.add(path)
            else:
                hidden.add(path)
    links.update(_folder_links(folder))
    return PackFiles(sorted(found, key=lambda p: p.relative_to(folder).as_posix()),
                     len(hidden - found),
                     sorted(p.relative_to(folder).as_posix() for p in links))


def _folder_links(folder: Path) -> list[Path]:
    """The links to folders under `folder`, outside hidden folders."""
    links: list[Path] = []
    for parent, folders, _ in os.walk(folder):
        links.extend(Path(parent) / name for name in folders
                     if not name.startswith(".") and os.path.islink(os.path.join(parent, name)))
        folders[:] = [name for name in folders if not name.startswith(".")]
    return links


def _hidden(relative: Path) -> bool:
    return any(part.startswith(".") for part in relative.parts)


def _names_hidden(pattern: str) -> bool:
    """Whether a glob pattern asks for hidden files by a segment starting with a dot."""
    return any(part.startswith(".") and part not in (".", "..")
               for part in pattern.replace("\\", "/").split("/"))


def _inside(path: Path, root: Path) -> bool:
    """True when `path`, with every symlink followed, is within `root`."""
    try:
        return path.resolve().is_relative_to(root)
    except (OSError, RuntimeError):  # a broken or looping link
        return False


class NotText(UserError):
    """A file of the pack that is not UTF-8 text. The pack is built without it: one stray
    file (a page saved as Latin-1, a PNG named `.md`) does not refuse the whole pack."""

    def __init__(self, relative: str, reason: str) -> None:
        super().__init__(f"pack document {relative} is {reason}")
        self.left_out = LeftOut(relative, reason)


@dataclass(frozen=True, slots=True)
class LeftOut:
    """A file the pack's patterns matched that was left out of it, and why."""

    path: str
    """Relative to the pack folder, as a document's path."""
    reason: str

    def said(self) -> str:
        return f"{self.path} left out: {self.reason}"


def read_document(folder: Path, file: Path) -> Document:
    """Read one file as text; HTML is stripped of its markup. A file that is not UTF-8 text
    raises `NotText`, saying why (and the line of its first byte that is not UTF-8): read as
    Latin-1 instead, a Windows-1252 or Shift-JIS page would be served as garbled text."""
    relative = file.relative_to(folder).as_posix()
    try:
        raw = file.read_bytes()
    except OSError as exc:  # no permission, or gone since it was listed
        raise UserError(f"cannot read pack document {file}: {exc.strerror or exc}") from None
    try:
        text = utf8_text(raw)
    except NotUtf8Text as exc:
        reason = UTF16_TEXT if exc.byte is None else (
            f"not UTF-8 text (line {exc.line}: byte 0x{exc.byte:02x}); save it as UTF-8")
        raise NotText(relative, reason) from None
    if "\x00" in text:
        raise NotText(relative, "a binary file (it holds NUL bytes), not text")
    if file.suffix.lower() in (".html", ".htm"):
        title, text = _html_to_text(text)
    else:
        title = _markdown_title(text)
    return Document(path=relative, title=title or file.stem, text=text.strip())


def chunk_document(document: Document, max_chars: int) -> list[Chunk]:
    """Cut a document at headings, then at paragraphs, into chunks of at most `max_chars`."""
    chunks: list[Chunk] = []
    used: dict[str, int] = {}
    for heading, body in _sections(document.text):
        title = f"{document.title} / {heading}" if heading and heading != document.title \
            else document.title
        for piece in _pack_paragraphs(body, max_chars):
            slug = _slug(heading) or "top"
            used[slug] = used.get(slug, 0) + 1
            if used[slug] > 1:
                slug = f"{slug}-{used[slug]}"
            chunks.append(Chunk(f"{document.path}#{slug}", title, piece))
    return chunks


_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")


def _markdown_title(text: str) -> str:
    for line in text.splitlines():
        match = _HEADING.match(line)
        if match and len(match.group(1)) == 1:
            return match.group(2)
    return ""


def _sections(text: str) -> list[tuple[str, str]]:
    """(heading, body) pairs; the heading line stays in its body so a chunk reads whole."""
    sections: list[tuple[str, list[str]]] = [("", [])]
    in_fence = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        match = None if in_fence else _HEADING.match(line)
        if match:
            sections.append((match.group(2), [line]))
        else:
            sections[-1][1].append(line)
    # A heading with nothing under it (a title right before a subheading) is not a passage.
    return [(h, "\n".join(lines).strip()) for h, lines in sections
            if any(line.strip() for line in (lines[1:] if h else lines))]


def _pack_paragraphs(body: str, max_chars: int) -> list[str]:
    """Join paragraphs greedily up to `max_chars`; cut a longer paragraph at `max_chars`."""
    pieces: list[str] = []
    current = ""
    for paragraph in re.split(r"\n\s*\n", body):
        paragraph = paragraph.strip()
        if not paragraph:
            continue
        while len(paragraph) > max_chars:
            if current:
                pieces.append(current)
                current = ""
            pieces.append(paragraph[:max_chars])
            paragraph = paragraph[max_chars:]
        if current and len(current) + 2 + len(paragraph) > max_chars:
            pieces.append(current)
            current = paragraph
        else:
            current = f"{current}\n\n{paragraph}" if current else paragraph
    if current:
        pieces.append(current)
    return pieces


def _slug(heading: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", heading.lower()).strip("-")


class _TextExtractor(HTMLParser):
    """Collects an HTML page's visible text, one block element per paragraph."""

    _BLOCKS: ClassVar[set[str]] = {"p", "div", "section", "article", "li", "tr", "pre", "br", "table", "ul", "ol"}
    _SKIP: ClassVar[set[str]] = {"script", "style", "head", "nav", "noscript"}

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.title = ""
        self._skip = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        elif tag in self._SKIP:
            self._skip += 1
        elif re.fullmatch(r"h[1-6]", tag):
            self.parts.append("\n\n" + "#" * int(tag[1]) + " ")
        elif tag in self._BLOCKS:
            self.parts.append("\n\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag in self._SKIP:
            self._skip = max(0, self._skip - 1)
        elif re.fullmatch(r"h[1-6]", tag) or tag in self._BLOCKS:
            self.parts.append("\n\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        elif not self._skip:
            self.parts.append(re.sub(r"\s+", " ", data))


def _html_to_text(raw: str) -> tuple[str, str]:
    extractor = _TextExtractor()
    extractor.feed(raw)
    text = "".join(extractor.parts)
    text = "\n".join(line.strip() for line in text.splitlines())
    text = re.sub(r"\n{3,}", "\n\n", text)
    title = extractor.title.strip() or _markdown_title(text)
    return title, text
