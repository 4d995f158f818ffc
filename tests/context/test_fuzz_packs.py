"""Fuzz: 100 knowledge-pack folders holding the files real folders hold by accident index and
answer searches with no internal error and no hang.

The seed is the example pack's documents. Each folder adds odd files under the pack's
patterns: damaged copies of a document, binary bytes, an empty or blank file, UTF-16,
a large document, NUL bytes, a FIFO, a directory named like a document, links to outside
the pack, to /dev/zero, to nowhere and to their own folder. Every folder either indexes
(and searches), naming each file it left out as not text, or raises a UserError naming
the file.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

from assay.context.pack_index import PackIndex
from assay.errors import UserError
from tests.fuzzing import Mutator, Tally, run_input

INPUTS = 100
DOCS = Path(__file__).resolve().parents[2] / "examples" / "knowledge-packs" / "docs"


def _damaged(folder: Path, mutator: Mutator, name: str) -> None:
    source = mutator.random.choice(sorted(DOCS.glob("*.md")))
    (folder / name).write_bytes(mutator.damage(source.read_bytes()))


ODD_FILES: list[tuple[str, Callable[[Path, Mutator, str], None]]] = [
    ("damaged", _damaged),
    ("binary", lambda f, m, n: (f / n).write_bytes(bytes(m.random.randrange(256)
                                                         for _ in range(4096)))),
    ("empty", lambda f, m, n: (f / n).write_bytes(b"")),
    ("blank", lambda f, m, n: (f / n).write_text("\n\n   \n# \n")),
    ("utf-16", lambda f, m, n: (f / n).write_text("# Title\n\nText", encoding="utf-16")),
    ("large", lambda f, m, n: (f / n).write_text(("# Part\n\n" + "word " * 2000 + "\n\n")
                                                  * 200)),
    ("nul bytes", lambda f, m, n: (f / n).write_bytes(b"# A\x00B\n\n\x00\x00 text\n")),
    ("fifo", lambda f, m, n: os.mkfifo(f / n)),
    ("directory", lambda f, m, n: (f / n).mkdir()),
    ("link outside", lambda f, m, n: (f / n).symlink_to(DOCS / "errors.md")),
    ("link to /dev/zero", lambda f, m, n: (f / n).symlink_to("/dev/zero")),
    ("broken link", lambda f, m, n: (f / n).symlink_to(f / "nowhere.md")),
    ("looping link", lambda f, m, n: (f / n).symlink_to(f / n)),
    ("link to own folder", lambda f, m, n: (f / n).symlink_to(f, target_is_directory=True)),
    ("html", lambda f, m, n: (f / (n + ".html")).write_text(
        "<html><title>T</title>" + "<div>" * 3000 + "deep" + "<script>x</script>")),
]


def _index_and_search(folder: Path, cache_root: Path) -> PackIndex:
    """Index the folder as a pack, search it and read every passage found."""
    pack = PackIndex.open(folder, cache_root=cache_root)
    for passage in pack.search("goroutine error context", top_k=5):
        pack.read(passage.source_id)
    return pack


def test_pack_folders_with_odd_files_index_or_fail_naming_the_file(tmp_path: Path) -> None:
    mutator = Mutator(seed=13)
    tally = Tally(INPUTS, accepted="indexed")
    for index in range(INPUTS):
        folder = tmp_path / f"pack-{index}"
        folder.mkdir()
        for doc in mutator.random.sample(sorted(DOCS.glob("*.md")), 2):
            shutil.copy(doc, folder / doc.name)
        kinds = mutator.random.sample(ODD_FILES, mutator.random.randint(1, 3))
        sub = folder / "sub"
        sub.mkdir()
        for number, (kind, make) in enumerate(kinds):
            make(mutator.random.choice([folder, sub]), mutator, f"odd-{number}.md")
        label = f"input {index} ({[k for k, _ in kinds]})"
        ended = run_input(UserError, _index_and_search, folder, tmp_path / "cache")
        if tally.record(label, ended):
            left_out = ended.result.left_out
            tally.outcomes["left out"] += len(left_out)
            if any(not (folder / file.path).is_file() or not file.reason for file in left_out):
                tally.fail(label, f"a file left out is not named with why: {left_out}")
        elif ended.refused is not None and str(folder) not in str(ended.refused):
            tally.fail(label, f"error names no file: {ended.refused}")
    tally.check({"indexed": 50, "left out": 10})
