"""A run imports only what its work needs: start-up stays short.

Each command runs in a fresh interpreter under `python -X importtime`, which
lists every module the process imported. `assay --help` needs none of the
heavy parts; the quickstart (a python target, deterministic scorers, two
conditions compared) needs no scipy (nor numpy), no LLM SDK and no MCP SDK; a `model`
run imports the SDK of the provider its config names and no other.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from assay.testing import FakeLLM

REPO = Path(__file__).resolve().parents[2]
LLM_SDKS = ("openai", "anthropic", "google.genai", "litellm")
NEVER_AT_START = ("scipy", *LLM_SDKS, "mcp", "sqlalchemy.orm")


def imported_modules(args: list[str], cwd: Path,
                     env: dict[str, str] | None = None) -> set[str]:
    """Every module `python -X importtime -m assay ARGS` imported, after checking it succeeded."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "assay", *args], cwd=cwd,
        capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "ASSAY_STORE": str(cwd / "assay.db"), **(env or {})})
    assert result.returncode == 0, result.stdout + result.stderr
    return {line.rsplit("|", 1)[1].strip() for line in result.stderr.splitlines()
            if line.startswith("import time:") and "|" in line}


def packages_in(modules: set[str], packages: tuple[str, ...]) -> set[str]:
    """The packages of `packages` that any of `modules` belongs to."""
    return {p for p in packages for m in modules if m == p or m.startswith(p + ".")}


def test_help_imports_nothing_heavy(tmp_path):
    modules = imported_modules(["--help"], tmp_path)
    assert "assay.cli" in modules
    heavy = ("scipy", "numpy", "pydantic", "sqlalchemy", "rich", "jinja2", *LLM_SDKS, "mcp")
    assert packages_in(modules, heavy) == set()


def test_a_commands_help_loads_no_pydantic_to_show_its_options_bounds(tmp_path):
    """`--concurrency`, `--epochs` and `--judge-timeout` refuse what the config would; their
    bounds once came from the pydantic models, loaded just to print `assay run --help`."""
    for command in ("run", "rejudge", "traces"):
        modules = imported_modules([command, "--help"], tmp_path)
        assert packages_in(modules, ("pydantic", "sqlalchemy", "scipy")) == set(), command


def test_quickstart_imports_no_scipy_llm_sdk_or_mcp(tmp_path):
    shutil.copytree(REPO / "examples" / "quickstart", tmp_path / "quickstart",
                    ignore=shutil.ignore_patterns(".assay", "__pycache__"))
    modules = imported_modules(["run", "assay.yaml", "--no-progress"], tmp_path / "quickstart")
    assert {"assay.review.finish", "assay.analysis.power"} <= modules  # it compared conditions
    assert packages_in(modules, (*NEVER_AT_START, "numpy")) == set()
    # a SQLite store loads no other SQL dialect (a PostgreSQL-only index option did)
    assert packages_in(modules, ("sqlalchemy.dialects.postgresql",)) == set()
    # `{{ expected }}` is checked and read without jinja2's sandbox (the HTML report still
    # imports jinja2 itself)
    assert "jinja2.sandbox" not in modules


def test_a_model_run_imports_only_the_sdk_its_config_names(tmp_path):
    (tmp_path / "cases.jsonl").write_text('{"id": "q1", "input": "2 + 2?", "expected": "4"}\n')
    with FakeLLM(default="4") as llm:
        (tmp_path / "assay.yaml").write_text(
            "name: one-model\n"
            "dataset: {path: cases.jsonl}\n"
            f"providers: {{fake: {{kind: openai, base_url: '{llm.base_url}', "
            "api_key_env: FAKE_KEY}}\n"
            "target: {type: model, model: fake/answer-model}\n"
            "scorers: [{type: contains}]\n")
        modules = imported_modules(["run", "assay.yaml", "--no-progress", "--no-cache"],
                                   tmp_path, env={"FAKE_KEY": "test"})
    assert "openai._client" in modules
    # the client only: none of the SDK's API types (`import openai` loads over 700 modules)
    assert packages_in(modules, ("openai.types.chat", "openai.types.responses",
                                 "openai.lib.streaming")) == set()
    assert packages_in(modules, ("pygments", "rich.syntax")) == set()  # httpx's command line
    assert packages_in(modules, ("scipy", "anthropic", "google.genai", "litellm", "mcp",
                                 "sqlalchemy.orm")) == set()


def test_validate_opens_no_store_when_no_config_asks_one(tmp_path):
    """`assay validate` reads the store only for a regression baseline or a judge that must
    be calibrated; without either it loads no SQLAlchemy, nor the run's review (0.52 s of
    CPU for the quickstart, where 0.30 s is the rest of its work)."""
    shutil.copytree(REPO / "examples" / "quickstart", tmp_path / "quickstart",
                    ignore=shutil.ignore_patterns(".assay", "__pycache__"))
    modules = imported_modules(["validate", "assay.yaml"], tmp_path / "quickstart")
    assert "assay.runner.preflight" in modules  # it checked the config
    assert packages_in(modules, ("sqlalchemy", "assay.store", "assay.review.finish", "scipy",
                                 *LLM_SDKS, "mcp")) == set()
