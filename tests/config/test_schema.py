"""`assay schema` tells editors what the loader accepts, and explains every key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest

from assay.config import load_config
from assay.config.schema import config_schema
from assay.context.pack_config import DEFAULT_PATTERNS
from assay.errors import UserError

CONFIG = """\
name: m
dataset: {path: cases.jsonl}
target: {type: python, function: agent:answer}
scorers: [{type: contains}]
"""


def write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "cases.jsonl").write_text('{"id": "a", "input": "q", "expected": "x"}\n')
    config = tmp_path / "assay.yaml"
    config.write_text(text)
    return config


def schema_allows(text: str) -> bool:
    import yaml

    from assay.yaml_core import CoreLoader

    data = yaml.load(text, Loader=CoreLoader)
    return jsonschema.Draft202012Validator(config_schema()).is_valid(data)


def loader_allows(tmp_path: Path, text: str) -> bool:
    try:
        load_config(write(tmp_path, text), env={})
    except UserError:
        return False
    return True


def test_every_key_in_the_schema_has_a_description_for_the_editor_to_show() -> None:
    """Regression: a provider's keys (base_url, api_key_env, max_retries, prices...) had none,
    though each is documented in its class."""
    undescribed = [f"{name}.{key}" for name, sub in config_schema()["$defs"].items()
                   for key, prop in sub.get("properties", {}).items()
                   if not prop.get("description")]
    assert undescribed == []


def test_a_condition_written_with_no_value_is_valid_in_the_schema_as_in_the_loader(
        tmp_path: Path) -> None:
    """Regression: `baseline:` alone runs as `baseline: {}`, and the schema marked it wrong."""
    text = CONFIG + "conditions:\n  baseline:\n  new: {description: x}\n"
    assert loader_allows(tmp_path, text)
    assert schema_allows(text)


@pytest.mark.parametrize("side", [1, -1])
def test_the_largest_seed_the_schema_allows_is_one_a_config_file_can_hold(
        tmp_path: Path, side: int) -> None:
    """Regression: the schema allowed seeds to 2**63 - 1, which the file's reader refuses as an
    integer of 19 digits."""
    seed: Any = config_schema()["$defs"]["RunSettings"]["properties"]["seed"]["maximum"] * side
    assert loader_allows(tmp_path, CONFIG + f"run: {{seed: {seed}}}\n")
    assert schema_allows(CONFIG + f"run: {{seed: {seed}}}\n")
    beyond = seed + side
    assert not schema_allows(CONFIG + f"run: {{seed: {beyond}}}\n")
    assert not loader_allows(tmp_path, CONFIG + f"run: {{seed: {beyond}}}\n")


def test_a_packs_include_shows_the_patterns_it_takes_by_default() -> None:
    """Regression: the README names the default patterns (`**/*.md`, `**/*.txt`, ...), but
    the schema gave `include` no default, so an editor's hover showed none."""
    include = config_schema()["$defs"]["PackConfig"]["properties"]["include"]
    assert include["default"] == DEFAULT_PATTERNS
    assert "Hidden files" in include["description"]
