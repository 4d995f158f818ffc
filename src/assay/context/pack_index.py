"""A knowledge pack's BM25 index: built once per content, cached on disk, searched often.

The cache key is a hash of every file's path and bytes plus the chunking
settings, so editing a document rebuilds the index and nothing else does.
The index lives in `<cache_root>/<name>-<hash>/`; a half-written one is
never used, because the manifest is written last.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from assay.context.documents import (
    Chunk,
    Document,
    LeftOut,
    NotText,
    chunk_document,
    pack_files,
    read_document,
)
from assay.context.pack_config import DEFAULT_PATTERNS
from assay.errors import UserError
from assay.wording import plural

INDEX_FORMAT = 1
"""Bump when chunking or tokenizing changes, so old caches are not reused."""

DEFAULT_CACHE_ROOT = Path(".assay") / "packs"


@dataclass(frozen=True, slots=True)
class Passage:
    """One search hit: a chunk and how well it matched."""

    source_id: str
    title: str
    text: str
    score: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def content_hash(folder: Path, patterns: list[str], chunk_chars: int) -> str:
    """A digest of the pack's files (paths and bytes) and the settings that shape the index."""
    digest = hashlib.sha256(f"assay-pack-v{INDEX_FORMAT}:{chunk_chars}\n".encode())
    for file in pack_files(folder, patterns).files:
        digest.update(file.relative_to(folder).as_posix().encode() + b"\0")
        try:
            digest.update(hashlib.sha256(file.read_bytes()).digest())
        except OSError as exc:  # no permission, or gone since it was listed
            raise UserError(f"cannot read {file}: {exc.strerror or exc}") from None
    return digest.hexdigest()


class PackIndex:
    """Search and read one pack. Build it with `PackIndex.open`."""

    def __init__(self, name: str, directory: Path, chunks: list[Chunk],
                 documents: list[Document], retriever: Any, content_hash: str,
                 left_out: list[LeftOut]) -> None:
        self.name = name
        self.directory = directory
        """Where the cached index lives."""
        self.content_hash = content_hash
        """The digest of the documents indexed: which version of the pack a run read."""
        self.chunks = chunks
        self.documents = {doc.path: doc for doc in documents}
        self._by_id = {chunk.source_id: chunk for chunk in chunks}
        self._retriever = retriever
        self.left_out = left_out
        """Files the patterns matched that are not text, so not in the pack."""

    @classmethod
    def open(cls, folder: str | Path, *, name: str | None = None,
             patterns: list[str] | None = None, chunk_chars: int = 1200,
             cache_root: str | Path | None = None, digest: str | None = None) -> PackIndex:
        """Load the cached index for the folder's current content, building it if missing;
        `digest`: that content's hash, when the caller has just taken it."""
        folder = Path(folder).resolve()
        patterns = patterns or list(DEFAULT_PATTERNS)
        name = name or folder.name
        digest = digest or content_hash(folder, patterns, chunk_chars)
        root = Path(cache_root) if cache_root is not None else DEFAULT_CACHE_ROOT
        directory = root / f"{_safe(name)}-{digest[:16]}"
        if not (directory / "manifest.json").is_file():
            _build(folder, patterns, chunk_chars, directory, name, digest)
        return cls._load(name, directory, digest)

    @classmethod
    def _load(cls, name: str, directory: Path, digest: str) -> PackIndex:
        import bm25s

        chunks = [Chunk(**row) for row in _read_jsonl(directory / "chunks.jsonl")]
        documents = [Document(**row) for row in _read_jsonl(directory / "documents.jsonl")]
        retriever = bm25s.BM25.load(str(directory / "bm25"), show_progress=False) \
            if chunks else None
        manifest = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))
        left_out = [LeftOut(**row) for row in manifest.get("left_out", [])]
        return cls(name, directory, chunks, documents, retriever, digest, left_out)

    def left_out_said(self) -> list[str]:
        """A line per file left out, for the terminal and a run's warnings."""
        return [f"pack '{self.name}': {file.said()}" for file in self.left_out]

    def search(self, query: str, top_k: int = 5) -> list[Passage]:
        """The `top_k` chunks that best match `query`, best first; chunks that share no
        term with the query are never returned."""
        tokens = tokenize(query)
        if not tokens or self._retriever is None:
            return []
        known = [token for token in tokens if token in self._retriever.vocab_dict]
        if not known:
            return []
        scores = self._retriever.get_scores(known)
        ranked = sorted(range(len(self.chunks)), key=lambda i: (-float(scores[i]), i))
        hits = []
        for i in ranked[:top_k]:
            if float(scores[i]) <= 0.0:
                break
            chunk = self.chunks[i]
            hits.append(Passage(chunk.source_id, chunk.title, chunk.text,
                                round(float(scores[i]), 4)))
        return hits

    def read(self, source_id: str) -> Passage:
        """A chunk by its source id (`path#section`), or a whole document by its path."""
        if source_id in self._by_id:
            chunk = self._by_id[source_id]
            return Passage(chunk.source_id, chunk.title, chunk.text, 1.0)
        document = self.documents.get(source_id.split("#", 1)[0])
        if document is None or "#" in source_id:
            raise KeyError(f"no document or passage '{source_id}' in pack '{self.name}'")
        return Passage(document.path, document.title, document.text, 1.0)


_TOKEN = re.compile(r"[a-z0-9_]+")


def _stopwords() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN)


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens without English stopwords, plurals folded ("goroutines").

    Each token is interned: a pack's corpus repeats a few thousand words millions of
    times, and one string per occurrence made indexing a 42 MB document peak near 700 MB."""
    stop = _stopwords()
    tokens = []
    for token in _TOKEN.findall(text.lower()):
        if len(token) < 2 or token in stop:
            continue
        if len(token) > 3 and token.endswith("s") and not token.endswith("ss"):
            token = token[:-1]
        tokens.append(sys.intern(token))
    return tokens


def _build(folder: Path, patterns: list[str], chunk_chars: int, directory: Path,
           name: str, digest: str) -> None:
    found = pack_files(folder, patterns)
    files = found.files
    if not files:
        raise UserError(f"pack '{name}': no documents in {folder} matching {', '.join(patterns)}"
                        f"{hidden_note(found.hidden)}{links_note(found.links)}")
    documents, left_out = _read_documents(folder, files)
    chunks = [chunk for doc in documents for chunk in chunk_document(doc, chunk_chars)]
    if not documents:
        raise UserError(f"pack '{name}': no document in {folder} is text: "
                        + "; ".join(file.said() for file in left_out[:3])
                        + (f" and {len(left_out) - 3} more" if len(left_out) > 3 else ""))
    if not chunks:
        raise UserError(f"pack '{name}': no document in {folder} holds text to search "
                        f"({plural(len(documents), 'document')} read: {_listed(documents)}); "
                        "each is empty, blank or a heading with nothing under it")
    try:
        _write_index(directory, name, folder, digest, documents, chunks, left_out)
    except OSError as exc:
        raise UserError(f"pack '{name}': cannot write its index in {directory.parent}: "
                        f"{exc.strerror or exc}; the index cache needs a folder assay can "
                        "write to") from None


def _read_documents(folder: Path, files: list[Path]) -> tuple[list[Document], list[LeftOut]]:
    """The files read as documents, and those left out as not text."""
    documents: list[Document] = []
    left_out: list[LeftOut] = []
    for file in files:
        try:
            documents.append(read_document(folder, file))
        except NotText as exc:
            left_out.append(exc.left_out)
    return documents, left_out


def hidden_note(hidden: int) -> str:
    """What `pack index` and an empty pack say of the hidden files left out."""
    if not hidden:
        return ""
    return (f"; {plural(hidden, 'hidden file')} left out (a name or folder starting with "
            "'.'; a pack's include: can name them, as in .github/**/*.md)")


def links_note(links: list[str], most: int = 3) -> str:
    """What `pack index` and an empty pack say of the links left out."""
    if not links:
        return ""
    shown = ", ".join(links[:most]) + (f" and {len(links) - most} more"
                                       if len(links) > most else "")
    return (f"; {plural(len(links), 'link')} left out ({shown}): a pack follows no link to "
            "a folder, nor one to a file outside its folder")


def _listed(documents: list[Document], most: int = 3) -> str:
    names = [doc.path for doc in documents[:most]]
    more = len(documents) - len(names)
    return ", ".join(names) + (f" and {more} more" if more else "")


def _write_index(directory: Path, name: str, folder: Path, digest: str,
                 documents: list[Document], chunks: list[Chunk], left_out: list[LeftOut]) -> None:
    """Write the index to a staging folder, then move it into place whole."""
    import bm25s

    directory.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{directory.name}-", dir=directory.parent))
    try:
        _write_jsonl(staging / "chunks.jsonl", [asdict(chunk) for chunk in chunks])
        _write_jsonl(staging / "documents.jsonl", [asdict(doc) for doc in documents])
        corpus = [tokenize(f"{chunk.title}\n{chunk.text}") or [""] for chunk in chunks]
        retriever = bm25s.BM25()
        retriever.index(corpus, show_progress=False)
        retriever.save(str(staging / "bm25"), show_progress=False)
        manifest = {"name": name, "folder": str(folder), "content_hash": digest,
                    "format": INDEX_FORMAT, "documents": len(documents), "chunks": len(chunks),
                    "left_out": [asdict(file) for file in left_out]}
        (staging / "manifest.json").write_text(json.dumps(manifest, indent=2))
        try:
            os.replace(staging, directory)
        except OSError:
            if not (directory / "manifest.json").is_file():  # not a concurrent identical build
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as source:
        return [json.loads(line) for line in source if line.strip()]
