"""`python -m assay.testing -- COMMAND`: the command runs against the fake server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from assay.testing.launcher import PLACEHOLDER_KEY, resolve_command

CHILD = """
import json, os, sys
import openai
client = openai.OpenAI()
reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": sys.argv[1]}])
print(json.dumps({"base_url": os.environ["OPENAI_BASE_URL"],
                  "anthropic": os.environ["ANTHROPIC_BASE_URL"],
                  "key": os.environ["OPENAI_API_KEY"],
                  "answer": reply.choices[0].message.content}))
sys.exit(int(sys.argv[2]))
"""


def launch(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "assay.testing", *args], capture_output=True,
                          text=True, timeout=60, check=False, env=env)


def test_the_command_talks_to_the_fake_with_a_placeholder_key_and_its_exit_code_is_kept(
        tmp_path: Path) -> None:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = {"PATH": "/usr/bin:/bin", "OPENAI_API_KEY": "sk-real-key-must-not-leak"}
    result = launch("--reply", "hello there", "--", "python", str(script), "Hi?", "7", env=env)
    assert result.returncode == 7, result.stderr
    seen = json.loads(result.stdout)
    assert seen["base_url"].startswith("http://127.0.0.1:") and seen["base_url"].endswith("/v1")
    assert seen["anthropic"] == seen["base_url"].removesuffix("/v1")
    assert seen["key"] == PLACEHOLDER_KEY
    assert seen["answer"] == "hello there"


def test_a_command_that_cannot_be_found_exits_127() -> None:
    result = launch("--", "no-such-command-anywhere")
    assert result.returncode == 127
    assert "no-such-command-anywhere" in result.stderr


def test_a_labels_file_that_cannot_be_read_is_a_usage_error(tmp_path: Path) -> None:
    result = launch("--labels", str(tmp_path / "missing.json"), "--", "python", "-c", "0")
    assert result.returncode == 2
    assert "missing.json" in result.stderr


def test_assay_and_python_run_with_this_interpreter() -> None:
    assert resolve_command(["assay", "run", "x.yaml"]) == [sys.executable, "-m", "assay", "run",
                                                           "x.yaml"]
    assert resolve_command(["python", "-V"]) == [sys.executable, "-V"]
    assert resolve_command(["echo", "hi"]) == ["echo", "hi"]
    with pytest.raises(ValueError):
        resolve_command([])
