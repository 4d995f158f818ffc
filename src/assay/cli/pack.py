"""`assay pack`: index a knowledge pack, or serve it to any MCP client."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

import click

from assay.cli.common import GIVEN_TEXT, GivenPath, given_on_command_line

if TYPE_CHECKING:
    from assay.context.pack_index import PackIndex


@click.group("pack")
def command() -> None:
    """Knowledge packs: folders of Markdown, text and HTML documents."""


def _open(directory: Path, name: str | None, cache: Path | None,
          chunk_chars: int, include: tuple[str, ...]) -> PackIndex:
    from assay.context.pack_index import PackIndex

    index = PackIndex.open(directory, name=name, patterns=list(include) or None,
                           chunk_chars=chunk_chars, cache_root=cache)
    for line in index.left_out_said():  # on stderr: stdout is the MCP stream under serve
        click.echo(f"warning: {line}", err=True)
    return index


_directory = click.argument(
    "directory", type=GivenPath(exists=True, file_okay=False, path_type=Path))
_name = click.option("--name", type=GIVEN_TEXT, help="Pack name (default: the folder's name).")
_cache = click.option("--cache", type=GivenPath(file_okay=False, path_type=Path),
                      help="Index cache folder (default: .assay/packs).")
_chunk = click.option("--chunk-chars", type=click.IntRange(min=200), default=1200,
                      show_default=True, help="Largest chunk, in characters.")
_include = click.option(
    "--include", multiple=True, metavar="PATTERN",
    help="Glob of the files that make up the pack, relative to DIRECTORY (repeatable), as a "
         "pack's `include:` in a config; default: Markdown, text and HTML files.")


@command.command("index")
@_directory
@_name
@_cache
@_chunk
@_include
@click.option("--query", "-q", help="Also run one search and print the hits.")
@click.option("--top-k", type=click.IntRange(1, 50), default=5, show_default=True,
              help="How many passages to print for --query.")
def index_command(directory: Path, name: str | None, cache: Path | None, chunk_chars: int,
                  include: tuple[str, ...], query: str | None, top_k: int) -> None:
    """Build (or reuse) the pack's index and say where it is."""
    from assay.context.documents import pack_files
    from assay.context.pack_config import DEFAULT_PATTERNS
    from assay.context.pack_index import hidden_note, links_note
    from assay.wording import plural

    if query is not None and not query.strip():
        raise click.UsageError("--query is empty: give the words to search the pack for, "
                               "or leave --query out")
    if query is None and (given := given_on_command_line("top_k")):
        raise click.UsageError(f"{given[0]} is how many passages --query prints: give "
                               "--query too, or leave --top-k out")
    index = _open(directory, name, cache, chunk_chars, include)
    files = pack_files(directory, list(include) or DEFAULT_PATTERNS)
    click.echo(f"pack '{index.name}': {plural(len(index.documents), 'document')}, "
               f"{plural(len(index.chunks), 'chunk')}, index at {index.directory}"
               f"{hidden_note(files.hidden)}{links_note(files.links)}")
    if query:
        from assay.context.pack_server import format_passages

        click.echo(format_passages(index.search(query, top_k)))


@command.command("serve")
@_directory
@_name
@_cache
@_chunk
@_include
@click.option("--transport", type=click.Choice(["stdio", "http", "sse"]), default="stdio",
              show_default=True,
              help="stdio for a client that starts the server; http (or the older sse) to listen.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="http or sse: address to bind.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True,
              help="http or sse: port to bind.")
def serve_command(directory: Path, name: str | None, cache: Path | None, chunk_chars: int,
                  include: tuple[str, ...], transport: str, host: str, port: int) -> None:
    """Serve the pack as an MCP server with `search` and `read` tools.

    Over http the endpoint is http://HOST:PORT/mcp (streamable HTTP); over sse
    it is http://HOST:PORT/sse.
    """
    from assay.context.pack_server import serve, serve_stdio
    from assay.listening import address, bind

    if transport == "stdio":
        if given := given_on_command_line("host", "port"):
            raise click.UsageError(f"{' and '.join(given)} would be ignored: over stdio the "
                                   "client starts the server and talks to it on stdin and "
                                   "stdout; give --transport http (or sse) to listen")
        serve_stdio(_open(directory, name, cache, chunk_chars, include))
        return
    sock = bind(host, port)  # a port in use or not ours: exit 2 now, before indexing
    try:
        index = _open(directory, name, cache, chunk_chars, include)
        network: Literal["http", "sse"] = "http" if transport == "http" else "sse"
        path = "mcp" if network == "http" else "sse"
        click.echo(f"serving pack '{index.name}' at {address(sock)}{path}", err=True)
        serve(index, sock, transport=network, host=host)
    finally:
        sock.close()
