"""Text packed as gzip in base64 while it is written, as report.html carries its trials."""

from __future__ import annotations

import base64
import gzip
import io

from assay.reports.packed_text import GzipBase64Writer, unpack


def packed(pieces: list[str]) -> str:
    out = io.StringIO()
    writer = GzipBase64Writer(out)
    for piece in pieces:
        writer.write(piece)
    writer.close()
    return out.getvalue()


def test_text_written_in_pieces_of_any_size_unpacks_whole() -> None:
    text = "".join(f"trial {i}: l'été, 東京, 🙂 <script>&amp;\n" for i in range(3_000))
    for size in (1, 7, 4096, len(text)):
        assert unpack(packed([text[i:i + size] for i in range(0, len(text), size)])) == text


def test_the_packing_is_plain_gzip_and_base64_as_a_browser_reads_it() -> None:
    block = packed(['{"trials":[', "[1,2]", "]}"])
    assert gzip.decompress(base64.b64decode(block, validate=True)) == b'{"trials":[[1,2]]}'


def test_nothing_written_still_packs_an_empty_text() -> None:
    assert unpack(packed([])) == ""
