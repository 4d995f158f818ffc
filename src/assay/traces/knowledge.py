"""The knowledge folder an agent answers from: which files exist, which a read refers to."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from assay.input_files import require_directory
from assay.traces.exchanges import Exchange


@dataclass(frozen=True)
class KnowledgeFolder:
    root: Path
    files: tuple[str, ...]
    """Paths relative to `root`, POSIX style, hidden files and folders left out."""

    @classmethod
    def scan(cls, root: str | Path) -> KnowledgeFolder:
        base = Path(root)
        require_directory(base, "--knowledge folder")
        files = sorted(
            p.relative_to(base).as_posix() for p in base.rglob("*")
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(base).parts)
        )
        return cls(base.resolve(), tuple(files))

    def match(self, read: str) -> str | None:
        """The folder file a read path refers to: absolute under root, or ending in its path."""
        path = PurePosixPath(read.replace("\\", "/"))
        if path.is_absolute():
            try:
                return self._known(path.relative_to(self.root.as_posix()).as_posix())
            except ValueError:
                pass
        text = path.as_posix().removeprefix("./")
        for name in self.files:
            if text == name or text.endswith("/" + name):
                return name
        return None

    def _known(self, relative: str) -> str | None:
        return relative if relative in self.files else None

    def annotate(self, exchange: Exchange) -> None:
        """Fill in the files the agent could have read and the ones it did not."""
        read = {self.match(f.path) for f in exchange.files_read}
        exchange.files_available = list(self.files)
        exchange.files_skipped = [name for name in self.files if name not in read]
