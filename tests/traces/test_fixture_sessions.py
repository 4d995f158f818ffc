"""Every real session fixture parses with no unexplained skip, and yields the exchanges
and file reads counted by hand.

How the expected numbers were established (each file was opened and read):
- pi/pi-mono__large-session.jsonl: `jq -c 'select(.type=="message" and .message.role=="user")'`
  prints 88 lines, so 88 questions (pi records only messages sent to the model; the few that
  look like commands, "/mode", "/them", reached the model and were aborted). 50 `toolCall`
  blocks named `read`; `jq` on `toolResult` messages shows all 50 of their ids have
  `isError: false`, so 50 files read. 19 `toolResult` messages have `isError: true`.
- pi/earendil-pi__prompt-cache-replay-session.jsonl: 7 lines; user messages on lines 2 and 6;
  one `read` of src/parser.ts (line 3) answered by the toolResult on line 4; both questions
  end with assistant text and no tool call after it, so both are answered.
- claude-code/spotter/short.jsonl: 15 lines; the only typed question is line 4; line 13 is the
  "[Request interrupted by user for tool use]" marker, lines 14-15 are `system` local_command
  lines for /model. Lines 11 and 12 are the two rejected tool calls (`is_error: true`). No
  text follows the tool calls, so the question is unanswered.
- claude-code/spotter/tool_heavy.jsonl: 39 lines; questions on lines 4 and 26. Line 21 is the
  local command /mcp (its output is line 22 and no assistant reply follows), so it is not a
  question. One Read (line 34) whose result is line 36 (assets/js/app.js). Both questions
  were interrupted (lines 18 and 39) before any final text.
- claude-code/spotter/subagent.jsonl: 96 lines; questions on line 4 (the custom command
  /handgemacht:create-beads with arguments, which the model answers) and line 71. Reads in
  the first exchange: mix.exs by the main agent (call line 24, result line 26) and, inside the
  Task subagent's `agent_progress` lines, mix.exs (result line 49), .beads/issues.jsonl (53)
  and config/config.exs (55); the subagent's other two Read calls failed (lines 39 and 41,
  EISDIR and "Sibling tool call errored"). `grep -c '"is_error":true'` gives 3 tool errors.
  Only the second question ends with text after its last tool call (line 92).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.traces.sessions import load_session

EXPECTED = {
    # file: (format, exchange lines, answered, files read per exchange (result lines), errors)
    "pi/pi-mono__large-session.jsonl": ("pi", 88, None, None, 19),
    "pi/earendil-pi__prompt-cache-replay-session.jsonl": ("pi", [2, 6], 2, {2: [4], 6: []}, 0),
    "claude-code/spotter/short.jsonl": ("claude-code", [4], 0, {4: []}, 2),
    "claude-code/spotter/tool_heavy.jsonl": ("claude-code", [4, 26], 0, {4: [], 26: [36]}, 0),
    "claude-code/spotter/subagent.jsonl": ("claude-code", [4, 71], 1,
                                           {4: [26, 49, 53, 55], 71: []}, 3),
}


def test_every_fixture_file_is_covered(sessions_dir: Path) -> None:
    found = {p.relative_to(sessions_dir).as_posix() for p in sessions_dir.rglob("*.jsonl")}
    assert found == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_parses_without_unexplained_skips(sessions_dir: Path, name: str) -> None:
    session, _ = load_session(sessions_dir / name)
    stats = session.meta.stats
    assert stats is not None
    assert session.meta.format == EXPECTED[name][0]
    assert stats.malformed == []
    assert stats.unknown == {}
    assert stats.orphans == 0


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_exchanges_match_hand_count(sessions_dir: Path, name: str) -> None:
    _, lines, answered, reads, errors = EXPECTED[name]
    _, exchanges = load_session(sessions_dir / name)
    if isinstance(lines, int):
        assert len(exchanges) == lines
    else:
        assert [e.line for e in exchanges] == lines
    if answered is not None:
        assert sum(e.answered for e in exchanges) == answered
    if reads is not None:
        assert {e.line: [f.line for f in e.files_read] for e in exchanges} == reads
    assert sum(e.tool_errors for e in exchanges) == errors


def test_pi_large_session_reads_all_fifty_files(sessions_dir: Path) -> None:
    _, exchanges = load_session(sessions_dir / "pi/pi-mono__large-session.jsonl")
    reads = [f for e in exchanges for f in e.files_read]
    assert len(reads) == 50
    first = exchanges[1]
    assert first.question.startswith("read packages/coding-agent/docs/theme.md in full")
    assert first.files_read[0].path == "packages/coding-agent/docs/theme.md"
    assert all(len(f.content) <= 2000 for f in reads)


def test_read_content_is_what_the_tool_returned(sessions_dir: Path) -> None:
    _, exchanges = load_session(sessions_dir / "pi/earendil-pi__prompt-cache-replay-session.jsonl")
    read = exchanges[0].files_read[0]
    assert read.path == "src/parser.ts"
    assert read.content.startswith("export function parseInput(raw: string)")
    assert exchanges[0].answer == "The parser trims whitespace before processing."
    assert exchanges[0].model == "gpt-4o"


def test_subagent_reads_are_marked(sessions_dir: Path) -> None:
    exchange = load_session(sessions_dir / "claude-code/spotter/subagent.jsonl")[1][0]
    assert [f.subagent for f in exchange.files_read] == [False, True, True, True]
    assert exchange.question.startswith("/handgemacht:create-beads websearch")


def test_local_command_is_counted_not_asked(sessions_dir: Path) -> None:
    session, _ = load_session(sessions_dir / "claude-code/spotter/tool_heavy.jsonl")
    assert session.meta.stats is not None
    assert session.meta.stats.local_commands == 1
    assert session.meta.stats.ignored["user:interrupt"] == 2
