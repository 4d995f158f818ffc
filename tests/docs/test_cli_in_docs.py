"""Every command line the README and docs/ show is one assay takes, flag for flag.

A reader copies `assay rejudge RUN --repeats 3` or a CI step from the pages; a flag
renamed in the code and not on the page would meet that reader with `no such
option`. Each command the pages write (in a code span, a shell block or the
GitHub Actions workflow) is read as the shell would split it, and each of its
flags must be one that command has; a flag the pages name alone, in prose, must
be one some command (or the fake LLM server, or the pytest plugin) has.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from assay.testing.__main__ import build_parser
from tests.commands import commands

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
         *sorted((ROOT / "examples").glob("*/README.md"))]
WORKFLOW = ROOT / "docs" / "github-actions.yml"

# Flags the pages name that belong to other programs: `uv sync --extra postgres`, a
# benchmark's `--through runner`, and the flags of a user's own command that the secrets
# section says are masked (`--api-key sk-...`, `--token=...`).
OTHER_PROGRAMS = {"--extra", "--through", "--api-key", "--token"}


def command_flags() -> dict[str, set[str]]:
    """Every `assay` command ('run', 'pack serve', ...) and the flags it takes."""
    found = {path: {flag for param in command.params if isinstance(param, click.Option)
                    for flag in param.opts + param.secondary_opts}
             for path, command in commands()}
    return {"": {"--version"}, **found}


COMMANDS = command_flags()
FAKE_SERVER = {flag for action in build_parser()._actions for flag in action.option_strings}
PYTEST_PLUGIN = {"--assay-store"}


def command_lines() -> Iterator[tuple[str, str]]:
    """(page, text) of each code span and each line of a shell block, and each step of
    the workflow, with a line's `# comment` left out and `\\` continuations joined."""
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        where = str(page.relative_to(ROOT))
        blocks = re.findall(r"```(?:bash|sh|console)\n(.*?)```", text, re.DOTALL)
        for block in blocks:
            for line in block.replace("\\\n", " ").splitlines():
                yield where, re.split(r"\s#\s|^#", line.removeprefix("$ "))[0]
        for span in re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", text, flags=re.DOTALL)):
            yield where, span
    for line in WORKFLOW.read_text(encoding="utf-8").replace("\\\n", " ").splitlines():
        yield str(WORKFLOW.relative_to(ROOT)), line


def assay_command(words: list[str]) -> tuple[str, list[str]] | None:
    """The `assay` command `words` run (as `pack serve`, `traces analyze`) and the words
    given to it, or None when they run no assay command."""
    at = words.index("assay") if "assay" in words else -1
    if at < 0 or (at > 0 and words[at - 1] != "run"):  # `assay`, `uv run assay`, not `-m assay`
        return None
    rest = words[at + 1:]
    if not rest or rest[0].startswith("-"):
        return "", rest
    if rest[0] not in {path.split()[0] for path in COMMANDS if path}:
        return None  # `pytest -m assay`, `-p no:assay`: the word, not the program
    groups = {path.split()[1] for path in COMMANDS if path.startswith(f"{rest[0]} ")}
    if not groups:
        return rest[0], rest[1:]
    if len(rest) > 1 and rest[1] in groups:
        return f"{rest[0]} {rest[1]}", rest[2:]
    return f"{rest[0]} analyze", rest[1:]  # `assay traces PATH` analyses


def flags_of(words: list[str]) -> list[str]:
    """The flags among `words` (`--fail-under`, `-o`), without a value given with `=` and
    without the brackets of an optional one (`[--transport stdio|http|sse]`)."""
    return [word.strip("[]").split("=")[0] for word in words
            if re.match(r"\[?--?[a-z]", word)]


def split(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError:  # a quote the span opens and prose closes
        return text.split()


def misused_flags() -> list[str]:
    """Each flag written after an `assay` command that the command does not have."""
    wrong = []
    for page, text in command_lines():
        words = split(text)
        if "--" in words:  # `python -m assay.testing --labels F -- assay run CONFIG`
            server, words = words[:words.index("--")], words[words.index("--") + 1:]
            if "assay.testing" in server:
                options = server[server.index("assay.testing") + 1:]
                wrong += [f"{page}: `{text}`: python -m assay.testing has no {flag}"
                          for flag in flags_of(options) if flag not in FAKE_SERVER]
        command = assay_command(words)
        if command is None:
            continue
        path, given = command
        wrong += [f"{page}: `{text}`: assay {path} has no {flag}"
                  for flag in flags_of(given) if flag not in COMMANDS[path]]
    return wrong


def test_a_flag_is_read_against_the_command_written_before_it() -> None:
    assert assay_command(split("uv run assay traces export s/ -o d.jsonl")) == (
        "traces export", ["s/", "-o", "d.jsonl"])
    assert assay_command(split("assay traces logs/ --last 20")) == (
        "traces analyze", ["logs/", "--last", "20"])
    assert assay_command(split("pytest -m assay")) is None
    assert flags_of(split("DIR [--transport stdio|http|sse] --format=json -o f")) == [
        "--transport", "--format", "-o"]


def test_every_flag_the_docs_give_a_command_is_one_it_takes() -> None:
    wrong = misused_flags()
    assert not wrong, "the docs give commands flags they do not take:\n" + "\n".join(wrong)


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(ROOT)) for page in PAGES])
def test_every_flag_the_docs_name_belongs_to_a_program_they_describe(page: Path) -> None:
    known = set().union(*COMMANDS.values(), FAKE_SERVER, PYTEST_PLUGIN, OTHER_PROGRAMS)
    named = set(re.findall(r"(?<![\w-])--[a-z][\w-]*", page.read_text(encoding="utf-8")))
    assert sorted(named - known) == [], f"{page.relative_to(ROOT)} names flags nothing of assay has"
