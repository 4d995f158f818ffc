"""One live connection to one MCP server, owned by its own task.

The SDK's `Client` must be entered and left in the same task, while trials
call tools from many tasks at once. So a background task holds the client
open until asked to stop; trials share it through `call`, which the SDK's
session multiplexes by request id. A stdio server's stderr goes to a file,
so its last lines can explain a failure; so do the SDK's complaints about the
server (a line on its stdout that is not JSON-RPC, as a server that prints a
banner writes), one line each, instead of a traceback on assay's terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import tempfile
from collections.abc import Callable
from contextlib import AsyncExitStack
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from assay.context.mcp_config import McpServerConfig
from assay.redaction import redact

STDERR_TAIL_CHARS = 2000


class ServerDied(Exception):
    """The server went away (process exited, connection closed) during a call."""


_SERVING: ContextVar[Connection | None] = ContextVar("assay_mcp_connection", default=None)
"""The connection the current task (and the SDK's tasks it starts) belongs to."""


class _ServerComplaints(logging.Handler):
    """The SDK's log records about one server, as one line each in that server's stderr
    file. Records of a server with no stderr (HTTP, SSE) or from outside a connection go
    where they went before: Python's last resort handler, as when no handler is set.

    Each record is masked first, in place (`_mask`): the SDK quotes a reply it could not
    read, a service may echo the key it was sent, and the handlers above this one (the
    root logger's: pytest's, an application's) see the same record."""

    def emit(self, record: logging.LogRecord) -> None:
        connection = _SERVING.get()
        secrets = connection._secrets if connection is not None else []
        _mask(record, secrets)
        path = connection.stderr_path if connection is not None else None
        if path is None:
            last_resort = logging.lastResort
            if (last_resort is not None and not logging.getLogger().handlers
                    and record.levelno >= last_resort.level):
                last_resort.handle(record)
            return
        line = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            line = f"{line}: {redact(_one_line(record.exc_info[1]), secrets)}"
        try:
            with path.open("a", encoding="utf-8") as out:
                out.write(f"[assay] {line}\n")
        except OSError:
            pass  # the run's temporary folder is gone: nothing left to explain


def _mask(record: logging.LogRecord, secrets: list[str]) -> None:
    """Mask the secrets (`redact`) in `record`'s message and traceback, which formatters
    then print as they are (a `LogRecord` keeps its formatted traceback in `exc_text`)."""
    record.msg, record.args = redact(record.getMessage(), secrets), None
    if record.exc_info and record.exc_info[1] is not None and not record.exc_text:
        record.exc_text = redact(logging.Formatter().formatException(record.exc_info),
                                 secrets)


def _one_line(exc: BaseException) -> str:
    """An exception without its traceback, its first lines joined (pydantic's say which
    input they refused on the third)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return " ".join(lines[:3])[:500] or type(exc).__name__


def _quiet_sdk_logs() -> None:
    """Send the SDK's log records through `_ServerComplaints` (once per process)."""
    logger = logging.getLogger("mcp")
    if not any(isinstance(handler, _ServerComplaints) for handler in logger.handlers):
        logger.addHandler(_ServerComplaints())


class Connection:
    """A started server: its tools, and `call` for any task."""

    def __init__(self, name: str, open_client: Callable[[AsyncExitStack], Any],
                 stderr_path: Path | None = None, secrets: list[str] | None = None,
                 url: str | None = None) -> None:
        self.name = name
        self._open_client = open_client
        self.url = url
        """Where an HTTP or SSE server was looked for: named when it cannot be reached."""
        self.stderr_path = stderr_path
        self._secrets = list(secrets or [])
        """Values given to the server (its `env`): masked in the stderr we show."""
        self.tools: list[Any] = []
        """The server's `mcp.types.Tool` list, read once at start."""
        self.dead = False
        self._client: Any = None
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def open(self, timeout: float) -> None:
        """Start the server and list its tools; raise with the server's stderr on failure."""
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._own(ready), name=f"mcp-server-{self.name}")
        try:
            await asyncio.wait_for(asyncio.shield(ready), timeout)
        except TimeoutError:
            await self.close()
            raise ServerDied(f"did not start within {timeout:g}s{self._where()}"
                             f"{self.stderr_note()}") from None
        except Exception as exc:  # noqa: BLE001 - any start failure: the server is dead
            await self.close()
            raise ServerDied(f"{redact(describe_error(exc), self._secrets)}{self._where()}"
                             f"{self.stderr_note()}") from None

    def _where(self) -> str:
        return f" (at {redact(self.url, self._secrets)})" if self.url else ""

    async def _own(self, ready: asyncio.Future[None]) -> None:
        _SERVING.set(self)  # this task's own context, and its children's
        try:
            async with AsyncExitStack() as stack:
                client = await self._open_client(stack)
                self.tools = await _list_all_tools(client)
                self._client = client
                ready.set_result(None)
                await self._stop.wait()
        except BaseException as exc:
            self.dead = True
            if not ready.done():
                if isinstance(exc, Exception):
                    ready.set_exception(exc)
                else:
                    ready.cancel()  # the opener gave up and cancelled us
            elif not isinstance(exc, (Exception, asyncio.CancelledError)):
                raise

    async def call(self, tool: str, arguments: dict[str, Any], timeout: float) -> Any:
        """Call one tool; `ServerDied` if the connection is gone, `TimeoutError` if too slow."""
        import anyio
        from mcp import MCPError
        from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

        if self.dead or self._client is None:
            raise ServerDied(f"server is not running{self.stderr_note()}")
        try:
            return await self._client.call_tool(tool, arguments, read_timeout_seconds=timeout)
        except MCPError as exc:
            if exc.code == REQUEST_TIMEOUT:
                raise TimeoutError(f"no answer within {timeout:g}s") from None
            if exc.code == CONNECTION_CLOSED:
                self.dead = True
                raise ServerDied(f"connection closed{self.stderr_note()}") from None
            raise
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream):
            self.dead = True
            raise ServerDied(f"connection closed{self.stderr_note()}") from None

    async def close(self) -> None:
        """Stop the server (the SDK closes stdin, then terminates the process if needed)."""
        self._stop.set()
        if self._task is not None:
            if not self._task.done() and self._client is None:
                self._task.cancel()  # still starting: nothing to wind down politely
            with contextlib.suppress(BaseException):
                await self._task
        self._client = None

    def stderr_tail(self) -> str:
        if self.stderr_path is None or not self.stderr_path.exists():
            return ""
        text = self.stderr_path.read_text(encoding="utf-8", errors="replace")
        return redact(text[-STDERR_TAIL_CHARS:].strip(), self._secrets)

    def stderr_note(self) -> str:
        tail = self.stderr_tail()
        return f"\n--- server stderr (last lines) ---\n{tail}" if tail else ""


def connect(name: str, config: McpServerConfig, base_dir: Path, stderr_dir: Path) -> Connection:
    """A not-yet-opened connection to a declared server."""
    from mcp import Client

    _quiet_sdk_logs()
    if config.type == "stdio":
        from mcp import StdioServerParameters
        from mcp.client.stdio import stdio_client

        stderr_path = Path(tempfile.mkstemp(prefix=f"{_safe(name)}-", suffix=".stderr",
                                            dir=stderr_dir)[1])
        cwd = str(config.working_directory(base_dir))
        # The SDK adds its safe minimum of the environment to `env`; by default the server
        # gets all of assay's environment, so certificates and proxies reach it too.
        env = dict(config.env) if config.clean_env else {**os.environ, **config.env}
        params = StdioServerParameters(command=config.command or "", args=list(config.args),
                                       env=env or None, cwd=cwd)

        async def open_stdio(stack: AsyncExitStack) -> Any:
            # Append mode: the child writes at the end while we read the file by path.
            errlog = stack.enter_context(stderr_path.open("a", encoding="utf-8"))  # noqa: ASYNC230
            return await stack.enter_async_context(Client(stdio_client(params, errlog=errlog)))

        return Connection(name, open_stdio, stderr_path, secrets=list(config.env.values()))

    if config.type == "http":
        from mcp.client.streamable_http import streamable_http_client
        from mcp.shared._httpx_utils import create_mcp_http_client

        async def open_http(stack: AsyncExitStack) -> Any:
            http = await stack.enter_async_context(
                create_mcp_http_client(headers=dict(config.headers) or None))
            transport = streamable_http_client(config.url or "", http_client=http)
            return await stack.enter_async_context(Client(transport))

        return Connection(name, open_http, url=config.url,
                          secrets=list(config.headers.values()))

    from mcp.client.sse import sse_client

    async def open_sse(stack: AsyncExitStack) -> Any:
        transport = sse_client(config.url or "", headers=dict(config.headers) or None)
        return await stack.enter_async_context(Client(transport))

    return Connection(name, open_sse, url=config.url, secrets=list(config.headers.values()))


def connect_in_process(name: str, server: Any) -> Connection:
    """A connection to an SDK server object living in this process (the pack server)."""
    from mcp import Client

    async def open_local(stack: AsyncExitStack) -> Any:
        return await stack.enter_async_context(Client(server))

    return Connection(name, open_local)


def describe_error(exc: BaseException) -> str:
    """One line for an exception, looking inside the task groups the SDK raises."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, FileNotFoundError):
        return f"command not found: {exc.filename or exc}"
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if type(exc).__name__ not in text else text


async def _list_all_tools(client: Any, max_pages: int = 100) -> list[Any]:
    tools: list[Any] = []
    cursor: str | None = None
    for _ in range(max_pages):
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            return tools
    raise RuntimeError(f"tools/list did not end after {max_pages} pages")


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_" else "_" for c in name)
