"""What a run hands to its targets and scorers: paths, the store's cache, shared resources.

Targets and scorers never reach for globals: the base directory for
relative paths, the store (for the response cache), the LLM providers, the
MCP servers and the knowledge packs all come through `Services`. The heavy
ones are created on first use by the package that owns them
(`providers.pool.get_pool`, `context.mcp_servers.get_mcp_servers`,
`context.pack_context.get_pack`) and kept here for the rest of the run.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assay.config.models import EvalConfig
    from assay.context.mcp_servers import McpServers
    from assay.context.pack_index import PackIndex
    from assay.providers.pool import ProviderPool
    from assay.store import Store


@dataclass
class Services:
    base_dir: Path = field(default_factory=Path.cwd)
    """Directory that relative paths in the config are resolved against."""

    config: EvalConfig | None = None
    """The validated config, when running from one (None for `assay traces`)."""

    store: Store | None = None
    """The run's store, which also holds the response cache; None to cache nothing."""

    use_cache: bool = True
    """False when the user passed --no-cache."""

    keyless_from_cache: bool = False
    """Whether a provider whose API key is not set still answers what the response cache
    holds of it (a run: a CI job re-running from a warm cache, without secrets), where
    other commands, whose calls the cache cannot hold (a rejudge asks afresh), refuse it."""

    warnings: list[str] = field(default_factory=list)
    """Things worth telling the user that do not stop the run."""

    providers: ProviderPool | None = None
    """The run's LLM providers, created on first use (`providers.pool.get_pool`)."""

    mcp_servers: McpServers | None = None
    """The run's MCP servers, started on first use (`context.mcp_servers.get_mcp_servers`)."""

    packs: dict[str, PackIndex] = field(default_factory=dict)
    """Knowledge packs opened so far, by name (`context.pack_context.get_pack`)."""

    pack_digests: dict[str, str] = field(default_factory=dict)
    """The content hash of each pack read so far, by name (`context.pack_context`): the run
    records it and opens the pack's index under it, so the documents are hashed once."""

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    def resolve_path(self, path: str | Path) -> Path:
        candidate = Path(path).expanduser()
        return candidate if candidate.is_absolute() else (self.base_dir / candidate)

    async def aclose(self) -> None:
        """Stop the MCP servers, then close the providers; each closes even if another fails."""
        servers, providers = self.mcp_servers, self.providers
        self.mcp_servers = self.providers = None
        self.packs.clear()
        self.pack_digests.clear()
        if servers is not None:
            with contextlib.suppress(Exception):
                await servers.aclose()
        if providers is not None:
            await providers.aclose()
