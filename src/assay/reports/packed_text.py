"""Text written as gzip in base64, as it is written: how report.html carries its trials.

A page holding every trial of a 60,000-trial run is tens of MB of JSON;
gzipped it is a few. Base64 keeps the packed bytes inside a `<script>`
block (its alphabet holds no `<`, `>` or `&`, so nothing can close the
block), and the page's script unpacks it with the browser's own
`DecompressionStream`. The text streams through: it is never held whole.
"""

from __future__ import annotations

import base64
import zlib
from typing import IO

GZIP = 16 + zlib.MAX_WBITS
"""zlib's window bits for a gzip stream (header and checksum), as `DecompressionStream('gzip')`
reads it."""


class GzipBase64Writer:
    """A text sink: what is written to it reaches `handle` gzipped and in base64."""

    def __init__(self, handle: IO[str], *, level: int = 6) -> None:
        self._handle = handle
        self._packer = zlib.compressobj(level, zlib.DEFLATED, GZIP)
        self._pending = b""
        """Packed bytes not yet encoded: base64 takes whole groups of three."""

    def write(self, text: str) -> int:
        self._encode(self._packer.compress(text.encode("utf-8")))
        return len(text)

    def close(self) -> None:
        """Flush the gzip stream's end and the last, padded base64 group."""
        self._encode(self._packer.flush())
        self._handle.write(base64.b64encode(self._pending).decode("ascii"))
        self._pending = b""

    def _encode(self, packed: bytes) -> None:
        data = self._pending + packed
        whole = len(data) - len(data) % 3
        if whole:
            self._handle.write(base64.b64encode(data[:whole]).decode("ascii"))
        self._pending = data[whole:]


def unpack(text: str) -> str:
    """The text a `GzipBase64Writer` packed (what the page's script does, for tests and tools)."""
    return zlib.decompress(base64.b64decode(text), GZIP).decode("utf-8")
