"""Fuzz: 1,000 damaged copies of real configs go through what `assay validate` does (load,
plan, dataset scan, templates, models, target checks) with no internal error and no hang.

The seeds are the k-eval configs in shared/fixtures/configs and this repository's example
configs, each in a copy of its folder. Every input either validates or raises a UserError
(exit 2, a clear message); anything else is a bug this test reports with its seed index.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import yaml

from assay.config import load_config
from assay.errors import AssayError
from assay.providers.litellm import load_litellm
from assay.runner.preflight import preflight
from tests.fuzzing import Mutator, Tally, run_input

INPUTS = 1_000
REPO = Path(__file__).resolve().parents[2]


def _validate(path: Path) -> None:
    preflight(load_config(path, env={"SEARCH_API_KEY": "k-123456789"}))


def _seeds(shared_fixtures: Path, tmp_path: Path) -> list[tuple[Path, str]]:
    """(folder to write the config in, the config's text) for every seed config."""
    seeds = []
    keval = tmp_path / "k-eval"
    keval.mkdir()
    shutil.copy(shared_fixtures / "datasets" / "k-eval" / "simple_dataset.jsonl",
                keval / "questions.jsonl")
    for config in sorted((shared_fixtures / "configs" / "k-eval").glob("*.yaml")):
        seeds.append((keval, config.read_text(encoding="utf-8", errors="replace")))
    for example in ("quickstart", "knowledge-packs", "mcp-context"):
        folder = tmp_path / example
        shutil.copytree(REPO / "examples" / example, folder)
        seeds.append((folder, (folder / "assay.yaml").read_text()))
    return seeds


def _litellm_imported() -> None:
    """Import LiteLLM before any input's clock starts: a model of an unknown provider is
    checked against LiteLLM's providers, and its first import takes seconds, once a process."""
    if importlib.util.find_spec("litellm") is not None:
        load_litellm()


def test_a_thousand_damaged_configs_validate_or_fail_clearly(
        shared_fixtures: Path, tmp_path: Path) -> None:
    _litellm_imported()
    seeds = _seeds(shared_fixtures, tmp_path)
    mutator = Mutator(seed=7)
    tally = Tally(INPUTS, accepted="valid")
    for index in range(INPUTS):
        folder, text = mutator.random.choice(seeds)
        data = _loaded(text)
        if data is not None and mutator.random.random() < 0.75:
            try:
                mutated = yaml.safe_dump(mutator.mutate(data, mutator.random.randint(1, 3)),
                                         allow_unicode=False, sort_keys=False).encode()
            except (yaml.YAMLError, RecursionError, ValueError):
                mutated = mutator.damage(text.encode())
        else:
            mutated = mutator.damage(text.encode())
        path = folder / f"fuzz-{index}.yaml"
        path.write_bytes(mutated)
        tally.record(f"input {index}", run_input(AssayError, _validate, path))
        path.unlink()
    tally.check({"valid": 50, "clear error": 50})


def _loaded(text: str) -> object:
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return None
