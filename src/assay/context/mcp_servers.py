"""The MCP servers of a run: started once, shared by every trial, restarted if they die.

`McpServers` lives in `services.mcp_servers` (see `get_mcp_servers`).
Targets call `start(names)` before the first trial: a server that cannot
start or list its tools raises `RunFailed` with its stderr, so the run stops
before any trial. A server that dies mid-run fails the calls in flight (their
trials become errors) and is restarted, at most `max_restarts` times, for the
trials that follow. Once it dies with its restarts spent, or cannot be
restarted, it is down: the next call raises `RunFailed` and the run stops
(exit 3), since every trial left that needs it could only fail.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.context.mcp_config import McpServerConfig, pack_server_name
from assay.context.mcp_connection import Connection, ServerDied, connect, connect_in_process
from assay.errors import RunFailed, UserError
from assay.wording import plural

if TYPE_CHECKING:
    from assay.services import Services



class ManagedServer:
    """One named server and its current connection; restarts it when it has died."""

    def __init__(self, name: str, factory: Any, tool_timeout: float, startup_timeout: float,
                 max_restarts: int) -> None:
        self.name = name
        self._factory = factory  # () -> Connection, a fresh one per (re)start
        self.tool_timeout = tool_timeout
        self.startup_timeout = startup_timeout
        self.max_restarts = max_restarts
        self.restarts = 0
        self.connection: Connection | None = None
        self._lock = asyncio.Lock()

    @property
    def tools(self) -> list[Any]:
        return self.connection.tools if self.connection is not None else []

    async def start(self) -> None:
        """Start once; later calls return at once. Raises `RunFailed` with the server's stderr."""
        async with self._lock:
            if self.connection is not None:
                return
            connection = self._factory()
            try:
                await connection.open(self.startup_timeout)
            except ServerDied as exc:
                raise RunFailed(f"MCP server '{self.name}' failed to start: {exc}") from None
            self.connection = connection

    async def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        """Call a tool on a live connection, restarting a dead server first; `RunFailed`
        when the server is down for good."""
        connection = await self._live()
        return await connection.call(tool, arguments, self.tool_timeout)

    async def _live(self) -> Connection:
        async with self._lock:
            current = self.connection
            if current is None:
                raise ServerDied("server was never started")
            if not current.dead:
                return current
            if self.restarts >= self.max_restarts:
                raise RunFailed(
                    f"MCP server '{self.name}' is down: it died again after "
                    f"{plural(self.restarts, 'restart')} (max_restarts: {self.max_restarts}), "
                    "so the run stops instead of failing every trial left that needs it"
                    f"{current.stderr_note()}")
            await current.close()
            self.restarts += 1
            fresh: Connection = self._factory()
            try:
                await fresh.open(self.startup_timeout)
            except ServerDied as exc:
                self.connection = fresh  # stays dead: a resume starts it afresh
                raise RunFailed(f"MCP server '{self.name}' is down: it died during the run and "
                                f"could not be restarted: {exc}") from None
            self.connection = fresh
            return fresh

    async def aclose(self) -> None:
        if self.connection is not None:
            await self.connection.close()


class McpServers:
    """Every MCP server a run may use, by the name conditions refer to."""

    def __init__(self, configs: dict[str, McpServerConfig], *, base_dir: Path,
                 packs: Any = None) -> None:
        self.configs = dict(configs)
        self.base_dir = base_dir
        self._packs = packs  # callable: pack name -> PackIndex
        self._servers: dict[str, ManagedServer] = {}
        self._stderr_dir = Path(tempfile.mkdtemp(prefix="assay-mcp-"))

    def validate_names(self, names: Iterable[str]) -> None:
        """A `UserError` for any name that is neither a declared server nor `pack:NAME`."""
        for name in names:
            if pack_server_name(name) is None and name not in self.configs:
                known = ", ".join(sorted(self.configs)) or "none declared"
                raise UserError(f"unknown MCP server '{name}' (declared: {known})")

    def server(self, name: str) -> ManagedServer:
        if name not in self._servers:
            self.validate_names([name])
            self._servers[name] = self._make(name)
        return self._servers[name]

    async def start(self, names: Iterable[str]) -> list[ManagedServer]:
        """Start the named servers (each once per run), concurrently."""
        servers = [self.server(name) for name in dict.fromkeys(names)]
        results = await asyncio.gather(*(s.start() for s in servers), return_exceptions=True)
        failures = [r for r in results if isinstance(r, BaseException)]
        if failures:
            raise failures[0]
        return servers

    def _make(self, name: str) -> ManagedServer:
        pack = pack_server_name(name)
        if pack is not None:
            if self._packs is None:
                raise UserError(f"'{name}' names a knowledge pack, but no packs are declared")
            index = self._packs(pack)

            def pack_factory() -> Connection:
                from assay.context.pack_server import build_pack_server

                return connect_in_process(name, build_pack_server(index))

            return ManagedServer(name, pack_factory, tool_timeout=60.0, startup_timeout=30.0,
                                 max_restarts=3)
        config = self.configs[name]
        return ManagedServer(
            name, lambda: connect(name, config, self.base_dir, self._stderr_dir),
            tool_timeout=config.tool_timeout, startup_timeout=config.startup_timeout,
            max_restarts=config.max_restarts,
        )

    async def aclose(self) -> None:
        servers, self._servers = list(self._servers.values()), {}
        await asyncio.gather(*(server.aclose() for server in servers), return_exceptions=True)
        shutil.rmtree(self._stderr_dir, ignore_errors=True)


def get_mcp_servers(services: Services) -> McpServers:
    """The run's shared `McpServers`, created from `services.config` on first use."""
    if services.mcp_servers is None:
        from assay.context.pack_context import get_pack

        config = services.config
        declared = dict(config.mcp_servers if config is not None else {})
        configs = {name: McpServerConfig.model_validate(value)
                   for name, value in declared.items()}
        services.mcp_servers = McpServers(configs, base_dir=Path(services.base_dir),
                                          packs=lambda name: get_pack(services, name))
    return services.mcp_servers
