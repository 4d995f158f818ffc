"""Shared things a run hands to its targets and scorers.

Targets and scorers never reach for globals: what they may use (the base
directory for relative paths, the store for the response cache, the LLM
providers, the MCP servers, the knowledge packs) comes through `Services`.
Heavy parts are created on first use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Services:
    base_dir: Path = field(default_factory=Path.cwd)
    """Directory that relative paths in the config are resolved against."""

    config: Any = None
    """The validated `EvalConfig`, when running from a config file."""

    store: Any = None
    """The `Store` of this run (also holds the response cache), if any."""

    use_cache: bool = True
    """False when the user passed --no-cache."""

    warnings: list[str] = field(default_factory=list)
    """Things worth telling the user that do not stop the run."""

    extras: dict[str, Any] = field(default_factory=dict)
    """Lazily created shared resources (provider pool, MCP servers, packs), by name."""

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    def resolve_path(self, path: str | Path) -> Path:
        candidate = Path(path).expanduser()
        return candidate if candidate.is_absolute() else (self.base_dir / candidate)

    async def aclose(self) -> None:
        """Close every shared resource that knows how to close itself."""
        for resource in list(self.extras.values()):
            closer = getattr(resource, "aclose", None)
            if closer is not None:
                await closer()
        self.extras.clear()
