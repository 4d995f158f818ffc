"""A pack's index: built once per content, reused from the cache, searched by keywords."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from assay.context.pack_index import PackIndex, tokenize
from assay.errors import UserError

from .helpers import EXAMPLE_DOCS


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    shutil.copytree(EXAMPLE_DOCS, folder)
    return folder


def test_search_ranks_the_passage_that_answers_first(docs: Path, tmp_path: Path) -> None:
    index = PackIndex.open(docs, name="larkspur", cache_root=tmp_path / "cache")
    hits = index.search("How often does the compactor run by default?", top_k=3)
    assert hits[0].source_id == "configuration.md#compaction-settings"
    assert "15 minutes" in hits[0].text
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert index.search("E-LOCKED", top_k=1)[0].source_id == "troubleshooting.html#e-locked"


def test_a_query_sharing_no_word_with_the_pack_finds_nothing(docs: Path, tmp_path: Path) -> None:
    index = PackIndex.open(docs, cache_root=tmp_path / "cache")
    assert index.search("zebra quantum", top_k=5) == []
    assert index.search("the of and", top_k=5) == []  # stopwords only


def test_the_index_is_cached_by_content_and_rebuilt_when_a_file_changes(
        docs: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = PackIndex.open(docs, name="larkspur", cache_root=cache)
    again = PackIndex.open(docs, name="larkspur", cache_root=cache)
    assert again.directory == first.directory
    assert first.directory.name.startswith("larkspur-")
    (docs / "replication.md").write_text("# Replication\n\nFollowers use port 9000 now.\n")
    changed = PackIndex.open(docs, name="larkspur", cache_root=cache)
    assert changed.directory != first.directory
    assert "9000" in changed.search("follower port", 1)[0].text
    assert sorted(p.name for p in cache.iterdir()) == sorted(
        [first.directory.name, changed.directory.name])  # no half-built leftovers


def test_read_returns_a_passage_or_a_whole_document(docs: Path, tmp_path: Path) -> None:
    index = PackIndex.open(docs, cache_root=tmp_path / "cache")
    assert "7411" in index.read("replication.md#replication").text
    whole = index.read("replication.md")
    assert "7411" in whole.text and "max_lag_segments" in whole.text
    with pytest.raises(KeyError, match="no document or passage 'nope.md#x'"):
        index.read("nope.md#x")


def test_an_empty_or_missing_folder_is_a_user_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(UserError, match="no documents"):
        PackIndex.open(tmp_path / "empty", cache_root=tmp_path / "cache")
    with pytest.raises(UserError, match="pack folder not found"):
        PackIndex.open(tmp_path / "absent", cache_root=tmp_path / "cache")


def test_a_pack_path_too_long_or_not_a_folder_is_a_clear_error_not_an_os_error(
        tmp_path: Path) -> None:
    """Regression: a pack `path:` of 300 characters raised OSError (File name too long) out
    of `Path.is_dir()`, an internal error; a file or /dev/zero given as the pack was
    reported "not found", though it exists."""
    with pytest.raises(UserError, match="cannot open pack folder .*File name too long"):
        PackIndex.open(tmp_path / ("x" * 300), cache_root=tmp_path / "cache")
    (tmp_path / "notes.md").write_text("# Notes\n")
    for path in (tmp_path / "notes.md", Path("/dev/zero")):
        with pytest.raises(UserError, match=f"pack folder {path} is not a folder"):
            PackIndex.open(path, cache_root=tmp_path / "cache")


def test_a_pack_whose_documents_hold_no_text_is_a_user_error_naming_them(
        tmp_path: Path) -> None:
    """Regression: it was indexed with 0 chunks, so every search found nothing and a
    condition given the pack ran as one without it, with no word said."""
    (tmp_path / "pack").mkdir()
    (tmp_path / "pack" / "empty.md").write_text("")
    (tmp_path / "pack" / "blank.txt").write_text("  \n\n")
    (tmp_path / "pack" / "title.md").write_text("# Only a title\n")
    with pytest.raises(UserError) as caught:
        PackIndex.open(tmp_path / "pack", name="docs", cache_root=tmp_path / "cache")
    assert str(caught.value) == (
        f"pack 'docs': no document in {tmp_path / 'pack'} holds text to search (3 documents "
        "read: blank.txt, empty.md, title.md); each is empty, blank or a heading with nothing "
        "under it")


def test_a_document_that_is_not_utf8_is_left_out_and_the_pack_loads_without_it(
        docs: Path, tmp_path: Path) -> None:
    """Regression: one page saved as Latin-1 refused the whole pack ('pack document ... is not
    UTF-8 text'), and with it every run of a condition that reads the pack. It is left out,
    named with why, the same when the cached index is loaded again; it is not read as
    Latin-1, which would serve a Windows-1252 or Shift-JIS page garbled."""
    (docs / "cafe.md").write_bytes(b"# Caf\xe9\n\nThe caf\xe9 serves espresso.\n")
    for _ in range(2):  # built, then loaded from the cache
        pack = PackIndex.open(docs, name="docs", cache_root=tmp_path / "cache")
        assert pack.left_out_said() == [
            "pack 'docs': cafe.md left out: not UTF-8 text (line 1: byte 0xe9); save it as UTF-8"]
        assert "cafe.md" not in pack.documents and pack.search("replication")
        assert pack.search("espresso") == []


def test_a_pack_whose_every_document_is_not_text_is_a_user_error_naming_them(
        tmp_path: Path) -> None:
    (tmp_path / "pack").mkdir()
    (tmp_path / "pack" / "cafe.md").write_bytes(b"caf\xe9\n")
    (tmp_path / "pack" / "logo.md").write_bytes(b"\x00PNG")
    with pytest.raises(UserError) as caught:
        PackIndex.open(tmp_path / "pack", name="docs", cache_root=tmp_path / "cache")
    assert str(caught.value) == (
        f"pack 'docs': no document in {tmp_path / 'pack'} is text: cafe.md left out: not "
        "UTF-8 text (line 1: byte 0xe9); save it as UTF-8; logo.md left out: a binary file "
        "(it holds NUL bytes), not text")


def test_an_index_cache_that_cannot_be_written_is_a_user_error(docs: Path,
                                                                tmp_path: Path) -> None:
    """Regression: `--cache` naming a file ended in 'internal error: FileExistsError'."""
    (tmp_path / "taken").write_text("a file, not a folder")
    with pytest.raises(UserError, match=f"pack 'docs': cannot write its index in "
                                        f"{tmp_path / 'taken'}: "):
        PackIndex.open(docs, cache_root=tmp_path / "taken")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_document_is_named_in_a_user_error(tmp_path: Path) -> None:
    (tmp_path / "pack").mkdir()
    secret = tmp_path / "pack" / "secret.md"
    secret.write_text("# Secret\n")
    secret.chmod(0)
    with pytest.raises(UserError, match=f"cannot read {secret}"):
        PackIndex.open(tmp_path / "pack", cache_root=tmp_path / "cache")


def test_tokens_fold_case_plurals_and_drop_stopwords() -> None:
    assert tokenize("The Goroutines and a channel's errors") == [
        "goroutine", "channel", "error"]


def test_a_symlink_pointing_outside_the_pack_is_neither_indexed_nor_read(
        docs: Path, tmp_path: Path) -> None:
    """Regression: `assay pack serve` served a symlinked file that pointed outside the pack
    (the system password file was found by `search`)."""
    secret = tmp_path / "outside" / "passwords.md"
    secret.parent.mkdir()
    secret.write_text("# Passwords\n\nroot hunter2 zebracorn\n")
    (docs / "leak.md").symlink_to(secret)
    (docs / "notes").mkdir(exist_ok=True)
    (docs / "notes" / "inside.md").write_text("# Inside\n\nzebracorn grazing notes\n")
    (docs / "alias.md").symlink_to(docs / "notes" / "inside.md")  # inside: still served
    index = PackIndex.open(docs, name="larkspur", cache_root=tmp_path / "cache")
    assert all("hunter2" not in passage.text for passage in index.search("zebracorn", 10))
    with pytest.raises(KeyError):
        index.read("leak.md")
    assert "zebracorn grazing" in index.read("alias.md").text


def test_a_word_repeated_through_a_pack_is_held_once_while_it_is_indexed() -> None:
    """Regression: each occurrence of a word was its own string in the corpus handed to
    BM25, so indexing one 42 MB document peaked at 705 MB (348 MB now)."""
    first, second = tokenize("Goroutines block; a goroutine blocks."), tokenize("goroutine")
    assert first[0] == second[0] == "goroutine"
    assert first[0] is first[2] is second[0]
