"""The k-eval fixture runs as it is: its LiteLLM model names resolve, and with the endpoints
given by environment (as its users' LiteLLM setup gives them) it runs against the fake server."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from assay.testing import FakeLLM
from assay.testing.judge import FakeJudge


def keval_folder(shared_fixtures: Path, tmp_path: Path) -> Path:
    """The fixture config, unchanged, beside the questions file it names."""
    shutil.copy(shared_fixtures / "configs" / "k-eval" / "valid_config.yaml", tmp_path)
    shutil.copy(shared_fixtures / "datasets" / "k-eval" / "simple_dataset.jsonl",
                tmp_path / "questions.jsonl")
    return tmp_path


def assay(cwd: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "assay", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300, check=False,
                          env={**os.environ, "ASSAY_STORE": str(cwd / "assay.db"),
                               "COLUMNS": "160", **env})


def test_the_keval_config_validates_unchanged_and_names_what_its_judge_still_needs(
        shared_fixtures: Path, tmp_path: Path) -> None:
    folder = keval_folder(shared_fixtures, tmp_path)
    checked = assay(folder, "validate", "valid_config.yaml", env={"SEARCH_API_KEY": "x"})
    assert checked.returncode == 0, checked.stderr
    assert "unknown provider" not in checked.stdout + checked.stderr
    assert "vertex_ai/claude-opus-4-5: provider 'vertex_ai' (anthropic_vertex) needs a region" \
        in " ".join(checked.stdout.split())


def test_the_keval_config_runs_against_the_fake_server_given_by_environment(
        shared_fixtures: Path, tmp_path: Path) -> None:
    folder = keval_folder(shared_fixtures, tmp_path)
    with FakeLLM(default="Paris", judge=FakeJudge()) as llm:
        ran = assay(folder, "run", "valid_config.yaml", "--condition", "baseline", "-o", "out",
                    "--no-progress", env={
                        "SEARCH_API_KEY": "x",
                        "ANTHROPIC_BASE_URL": llm.base_url, "ANTHROPIC_API_KEY": "agent-key",
                        "ANTHROPIC_VERTEX_BASE_URL": llm.base_url,
                        "VERTEXAI_LOCATION": "us-east5", "VERTEXAI_PROJECT": "k-eval",
                        "GOOGLE_OAUTH_ACCESS_TOKEN": "ya29.judge-token"})
        called = {(request.platform, request.model) for request in llm.requests}
    assert ran.returncode == 0, ran.stderr
    # the agent on Anthropic's API, its judge on Vertex AI, as k-eval's LiteLLM names say
    assert called == {("anthropic", "claude-sonnet-4-5"), ("vertex", "claude-opus-4-5")}
    results = json.loads((folder / "out" / "results.json").read_text())
    rubric = results["stats"]["scores"][0]
    assert rubric["n"] == 3 and rubric["errors"] == 0
