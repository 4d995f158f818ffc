"""What a target reads from a process or a service, bounded by `run.max_output_bytes`.

A command that prints without end, or a service that streams a 100 MB body,
must not fill memory: reading keeps the first `limit` bytes (or, for stderr,
the last ones), counts the rest and drops it. The output then says, in its
metadata, that it was cut and how much there was.
"""

from __future__ import annotations

import codecs
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from assay.output import Output

DEFAULT_MAX_OUTPUT_BYTES = 1_000_000
REPLACEMENT = "\ufffd"
REPLACEMENT_BYTES = REPLACEMENT.encode()
INVALID_NOTE = "replaced_invalid_utf8"
"""The output metadata key counting bytes that were not UTF-8, each replaced by U+FFFD."""


def output_limit(services: Any) -> int:
    """The run's `max_output_bytes` (the default outside a configured run)."""
    config = getattr(services, "config", None)
    run = getattr(config, "run", None)
    return int(getattr(run, "max_output_bytes", DEFAULT_MAX_OUTPUT_BYTES))


class Captured:
    """Bytes read from a stream: the first `limit` (`keep="head"`) or the last (`"tail"`)."""

    def __init__(self, limit: int, keep: Literal["head", "tail"] = "head") -> None:
        self.limit = limit
        self.keep = keep
        self.total = 0
        self._chunks: list[bytes] = []
        self._kept = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        if self.keep == "head":
            room = self.limit - self._kept
            if room > 0:
                self._chunks.append(chunk[:room])
                self._kept += min(room, len(chunk))
            return
        self._chunks.append(chunk)
        self._kept += len(chunk)
        while self._chunks and self._kept - len(self._chunks[0]) >= self.limit:
            self._kept -= len(self._chunks.pop(0))

    @property
    def cut(self) -> bool:
        return self.total > self.limit

    def annotate(self, output: Output, invalid: int) -> None:
        """Say in `output`'s metadata what became of these bytes: cut to the limit, and how
        many invalid UTF-8 sequences were replaced."""
        if self.cut:
            output.metadata["truncated"] = self.note()
        if invalid:
            output.metadata[INVALID_NOTE] = invalid

    def data(self) -> bytes:
        joined = b"".join(self._chunks)
        return joined[:self.limit] if self.keep == "head" else joined[-self.limit:]

    def text(self) -> str:
        """The kept bytes as text; a character split at the cut, or bytes that are not UTF-8,
        become U+FFFD (never a lone surrogate)."""
        return self.data().decode("utf-8", errors="replace")

    def decoded(self) -> tuple[str, int]:
        """`text()`, and how many U+FFFD stand for bytes that were not UTF-8 (an answer
        records them: it is not what was sent). A character split by the cut is the cut's
        doing, not counted."""
        data = self.data()
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        whole = decoder.decode(data, final=not self.cut)  # when cut, a split end waits
        invalid = whole.count(REPLACEMENT) - data.count(REPLACEMENT_BYTES)
        return whole + decoder.decode(b"", final=True), invalid

    def note(self) -> dict[str, Any]:
        """What `metadata["truncated"]` records about a cut output."""
        return {"bytes": self.total, "kept_bytes": min(self.total, self.limit),
                "limit": "run.max_output_bytes"}
