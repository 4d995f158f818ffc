"""Fuzz: 400 damaged suite files expand to their configs or fail with a clear error, with no
internal error and no hang.

The seeds are suite files a user writes over a folder of configs: plain paths, globs, a
suite that names another suite. Each input damages the suite file (an entry of another
type, a path too long for the file system, a key dropped, bytes cut or not UTF-8); the
suite either expands and its configs load, or a UserError (exit 2) says what is wrong.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from assay.config import load_config
from assay.config.suite_file import expand_configs
from assay.errors import AssayError
from tests.fuzzing import Mutator, Tally, run_input

INPUTS = 400
CONFIG = {"name": "fuzzed", "dataset": {"path": "cases.jsonl"},
          "target": {"type": "python", "function": "answer.py:answer"},
          "scorers": [{"type": "exact_match"}]}
SEEDS = [
    {"suite": ["a.yaml", "packs/*.yaml"], "name": "all"},
    {"suite": ["packs/**/*.yaml"], "description": "every pack"},
    {"suite": ["a.yaml", "inner-suite.yaml"]},
]


def _project(root: Path) -> None:
    (root / "packs").mkdir()
    (root / "cases.jsonl").write_text('{"input": "2+2", "expected": "4"}\n')
    (root / "answer.py").write_text("def answer(case):\n    return '4'\n")
    for name in ("a.yaml", "packs/go.yaml", "packs/rust.yaml"):
        (root / name).write_text(yaml.safe_dump({**CONFIG, "name": Path(name).stem}))
    for name in ("packs/go.yaml", "packs/rust.yaml"):
        text = (root / name).read_text().replace("cases.jsonl", "../cases.jsonl")
        (root / name).write_text(text.replace("answer.py", "../answer.py"))
    (root / "inner-suite.yaml").write_text(yaml.safe_dump({"suite": ["packs/go.yaml"]}))


def _expand_and_load(name: str) -> None:
    """Expand a suite file into its configs and load each."""
    configs, _is_suite = expand_configs([name])
    for config in configs:
        load_config(config)


def test_four_hundred_damaged_suite_files_expand_or_fail_clearly(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    mutator = Mutator(seed=17)
    tally = Tally(INPUTS, accepted="expanded")
    for index in range(INPUTS):
        seed = mutator.random.choice(SEEDS)
        try:
            text = yaml.safe_dump(mutator.mutate(seed, mutator.random.randint(1, 2)),
                                  allow_unicode=False).encode()
        except (yaml.YAMLError, RecursionError, ValueError):
            text = yaml.safe_dump(seed).encode()
        if mutator.random.random() < 0.3:
            text = mutator.damage(text)
        path = tmp_path / f"suite-{index}.yaml"
        path.write_bytes(text)
        tally.record(f"input {index}", run_input(AssayError, _expand_and_load, path.name))
        path.unlink()
    tally.check({"expanded": 20, "clear error": 40})
