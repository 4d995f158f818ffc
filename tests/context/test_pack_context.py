"""Passages put in front of a question, and what a trial records of them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from assay.case import Case
from assay.condition import Condition
from assay.context.pack_context import get_pack, inject_context
from assay.context.pack_index import PackIndex
from assay.services import Services
from assay.testing.config import eval_config

from .helpers import EXAMPLE_DOCS


def _recorded(folder: Path, cache: Path) -> dict[str, object]:
    """The `context` metadata a trial of a pack condition records, the pack opened afresh."""
    services = Services(base_dir=folder)
    services.packs["docs"] = PackIndex.open(folder, name="docs", cache_root=cache)
    condition = Condition(name="pack", target={}, context={"pack": "docs", "top_k": 2})
    case = Case(id="q1", input="Which port do followers use for replication?")
    _messages, metadata = inject_context(case, condition, services,
                                         [{"role": "user", "content": case.input}])
    return metadata


def test_a_trial_records_which_version_of_the_pack_it_read(tmp_path: Path) -> None:
    """Regression: a trial recorded the pack's name and source ids but not its content, so
    two runs (or a resumed run) over an edited pack looked alike; now each records the
    content hash of the documents it was given, and an edit changes it."""
    folder = tmp_path / "docs"
    shutil.copytree(EXAMPLE_DOCS, folder)
    cache = tmp_path / "cache"
    before = _recorded(folder, cache)
    assert before["content_hash"] == PackIndex.open(folder, name="docs",
                                                    cache_root=cache).content_hash
    assert _recorded(folder, cache)["content_hash"] == before["content_hash"]
    (folder / "replication.md").write_text("# Replication\n\nFollowers use port 9000 now.\n")
    after = _recorded(folder, cache)
    assert after["content_hash"] != before["content_hash"]
    assert after["source_ids"][0] == "replication.md#replication"


def test_a_run_warns_of_a_document_left_out_of_its_pack(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The run's warnings (printed with its results, kept in results.json) name the file a
    pack left out as not UTF-8, so answers that miss its content are understood."""
    folder = tmp_path / "docs"
    shutil.copytree(EXAMPLE_DOCS, folder)
    (folder / "cafe.md").write_bytes(b"# Caf\xe9\n")
    monkeypatch.chdir(tmp_path)  # the index cache sits in .assay/packs here
    services = Services(base_dir=tmp_path, config=eval_config(packs={"docs": {"path": "docs"}}))
    get_pack(services, "docs")
    assert services.warnings == [
        "pack 'docs': cafe.md left out: not UTF-8 text (line 1: byte 0xe9); save it as UTF-8"]
