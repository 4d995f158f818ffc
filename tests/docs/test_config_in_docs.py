"""Every config the README and docs/ show is one assay reads, key for key.

A reader copies a ```yaml block of the docs into a config, or writes `run.timeout`
where a page names it. A key renamed in the code and not on the page would meet
that reader with `unknown key`; these tests meet it first.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from assay.config import load_config
from assay.config.schema import config_schema
from assay.errors import UserError

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
         *sorted((ROOT / "examples").glob("*/README.md"))]

# What a block leaves out to show one part of a config; a block that has the key keeps its own.
REST_OF_A_CONFIG = {"name": "docs", "dataset": "cases.jsonl",
                    "target": {"type": "python", "function": "agent:answer"},
                    "scorers": [{"type": "contains", "value": "{{ expected }}"}]}
# A block shows a part of a larger config, so it may name a scorer, condition, pack or
# server declared in a part it leaves out.
DECLARED_ELSEWHERE = re.compile(r"unknown (scorer|condition|pack|MCP server) '")
TOP_LEVEL_KEY = re.compile(r"^([A-Za-z_]\w*):", re.MULTILINE)


def yaml_blocks() -> list[tuple[str, str]]:
    """(page:line, text) of every ```yaml block; a block that gives one top-level key
    several times (`dataset:` three ways) is one config per line that starts a key."""
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for block in re.finditer(r"```yaml\n(.*?)```", text, re.DOTALL):
            line = text.count("\n", 0, block.start()) + 2
            keys = TOP_LEVEL_KEY.findall(block.group(1))
            where = f"{page.relative_to(ROOT)}:{line}"
            if len(keys) == len(set(keys)):
                found.append((where, block.group(1)))
                continue
            starts = [match.start() for match in TOP_LEVEL_KEY.finditer(block.group(1))]
            for start, end in zip(starts, [*starts[1:], None], strict=True):
                found.append((where, block.group(1)[start:end]))
    return found


def config_problems(text: str, tmp_path: Path) -> list[str]:
    """What assay says of `text` completed with the parts of a config it leaves out."""
    given = set(TOP_LEVEL_KEY.findall(text))
    rest = "".join(f"{key}: {json.dumps(value)}\n"
                   for key, value in REST_OF_A_CONFIG.items() if key not in given)
    path = tmp_path / "assay.yaml"
    path.write_text(text + rest, encoding="utf-8")
    try:
        load_config(path, env={"SEARCH_KEY": "placeholder"})
    except UserError as exc:
        return [str(problem) for problem in exc.problems
                if not DECLARED_ELSEWHERE.match(problem.message)]
    return []


BLOCKS = yaml_blocks()


def test_the_pages_show_configs() -> None:
    assert len(BLOCKS) >= 8


@pytest.mark.parametrize(("where", "text"), BLOCKS, ids=[where for where, _ in BLOCKS])
def test_a_config_the_docs_show_is_read_without_a_problem(where: str, text: str,
                                                          tmp_path: Path) -> None:
    assert config_problems(text, tmp_path) == [], f"{where} shows a config assay refuses"


def test_a_block_with_a_misspelt_key_is_refused(tmp_path: Path) -> None:
    problems = config_problems("run: {concurency: 16}\n", tmp_path)
    assert any("unknown key 'concurency'" in problem for problem in problems)


def schema_at(schema: dict[str, Any], node: dict[str, Any], key: str) -> dict[str, Any] | None:
    """The schema of `key` in the mapping `node`, or None when no member of it has the key."""
    if "$ref" in node:
        return schema_at(schema, schema["$defs"][node["$ref"].rsplit("/", 1)[1]], key)
    if key in node.get("properties", {}):
        found: dict[str, Any] = node["properties"][key]
        return found
    for union in ("anyOf", "oneOf", "allOf"):
        for member in node.get(union, []):
            if (inside := schema_at(schema, member, key)) is not None:
                return inside
    return None


# `run.timeout`, `judge.require_calibration`, `calibration.labels.fields`: a section of the
# config and a key of it, as the pages write them in backticks
DOTTED_KEY = re.compile(r"`((?:run|judge|dataset|calibration)(?:\.[a-z_]+)+)")


def is_config_key(dotted: str) -> bool:
    schema = config_schema()
    node: dict[str, Any] | None = schema
    for key in dotted.split("."):
        node = schema_at(schema, node, key) if node is not None else None
    return node is not None


def test_a_dotted_key_is_read_through_the_sections_of_the_config() -> None:
    assert is_config_key("run.timeout") and is_config_key("calibration.labels.fields")
    assert not is_config_key("run.timout") and not is_config_key("judge.fields")


def test_every_section_key_the_docs_name_is_a_key_of_that_section() -> None:
    unknown = [f"{page.relative_to(ROOT)}: `{dotted}`" for page in PAGES
               for dotted in sorted(set(DOTTED_KEY.findall(page.read_text(encoding="utf-8"))))
               if not is_config_key(dotted)]
    assert not unknown, "keys the docs name that no config has:\n" + "\n".join(unknown)
