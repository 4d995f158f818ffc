"""The tools a condition offers its agent: names every model API takes, and notes that say
what was renamed and why."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from assay.context.toolbox import Toolbox, ToolResult

from .helpers import make_servers, python_server

PROVIDER_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""OpenAI's pattern for a function name; Anthropic's takes no more."""


def lookup_server(tool_name: str = "lookup"):
    return python_server("crashing_server.py", "--crash-on", "99", "--tool-name", tool_name)


def _offer(tmp_path: Path, call: str | None = None, arguments: dict | None = None,
           **configs) -> tuple[list[str], list[str], ToolResult | None]:
    """The exposed names and notes of a toolbox over real stdio servers, and one call."""
    async def scenario() -> tuple[list[str], list[str], ToolResult | None]:
        servers = make_servers(tmp_path, **configs)
        try:
            toolbox = Toolbox(await servers.start(list(configs)))
            result = await toolbox.call(call, arguments or {"key": "omega"}) if call else None
            return [spec.name for spec in toolbox.specs], toolbox.notes, result
        finally:
            await servers.aclose()

    return asyncio.run(scenario())


def test_three_servers_offering_one_tool_name_are_counted_as_three(tmp_path: Path) -> None:
    """Regression: three servers offering `lookup` warned 'two MCP servers offer a tool
    named 'lookup'' three times, once per renamed tool."""
    names, notes, _ = _offer(tmp_path, left=lookup_server(), middle=lookup_server(),
                             right=lookup_server())
    assert names == ["left__lookup", "middle__lookup", "right__lookup"]
    assert notes == [("3 MCP servers (left, middle, right) offer a tool named 'lookup'; the "
                     "agent sees them as 'left__lookup', 'middle__lookup', 'right__lookup'")]


def test_a_tool_name_with_a_dot_is_offered_as_model_apis_take_it_and_still_called(
        tmp_path: Path) -> None:
    """Regression: a tool named `files.read` (MCP allows dots) was offered to the model as
    is, a name OpenAI and Anthropic refuse, so every trial's first model call failed."""
    names, notes, result = _offer(tmp_path, "files_read", files=lookup_server("files.read"))
    assert names == ["files_read"]
    assert notes == [("MCP server 'files' offers a tool named 'files.read', which model APIs "
                     "refuse (at most 64 letters, digits, '_' and '-'); the agent sees it as "
                     "'files_read'")]
    assert result is not None and (result.tool, result.text) == ("files.read", "last letter")


def test_a_prefixed_name_past_64_characters_is_cut_and_kept_apart(tmp_path: Path) -> None:
    """Regression: `server__tool` of a long server and tool name went past the 64 characters
    OpenAI takes."""
    long_server, long_tool = "s" * 40, "look_up_an_entry_of_the_table_by_key"
    names, _, result = _offer(tmp_path, "s" * 40 + "__" + long_tool[:22],
                              **{long_server: lookup_server(long_tool),
                                 "other": lookup_server(long_tool)})
    assert all(PROVIDER_NAME.match(name) for name in names), names
    assert len(set(names)) == 2
    assert result is not None and result.text == "last letter"


def test_a_renamed_tool_never_takes_the_name_of_a_tool_that_keeps_its_own(
        tmp_path: Path) -> None:
    names, notes, result = _offer(tmp_path, "files_read", dotted=lookup_server("files.read"),
                                  plain=lookup_server("files_read"))
    assert names == ["files_read_2", "files_read"]
    assert result is not None and result.server == "plain"
    assert "the agent sees it as 'files_read_2'" in notes[0]


def test_arguments_the_model_wrote_as_broken_json_are_its_tool_error_not_sent_to_the_server(
        tmp_path: Path) -> None:
    """Regression: a call whose arguments were cut-off JSON (`{"key": "om`) reached the
    server as `{"_invalid_json": ...}`, a name of ours: the agent read the server's
    complaint of a missing `key`, not that its JSON was broken."""
    _, _, result = _offer(tmp_path, "lookup", {"_invalid_json": '{"key": "om'},
                          lookup=lookup_server())
    assert result is not None and result.is_error
    assert result.text == ("the arguments of 'lookup' are not a JSON object (not JSON: "
                           '{"key": "om); call it again with arguments as one JSON object')
    _, _, result = _offer(tmp_path, "lookup", {"_value": ["omega"]}, lookup=lookup_server())
    assert result is not None and result.is_error
    assert "(JSON list: [\"omega\"])" in result.text
