"""Run a command against the fake LLM server: `python -m assay.testing -- assay run CONFIG`.

The server starts on 127.0.0.1, the command runs with the OpenAI and
Anthropic SDKs pointed at it (`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`) and
placeholder API keys (a real key in the environment is replaced, so it is
never sent anywhere), and the launcher exits with the command's exit code.
A command starting with `assay`, `python` or `pytest` runs with this
interpreter, so it sees the same installation whether or not a virtual
environment is activated.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence

from assay.testing.fake_llm import FakeLLM

PLACEHOLDER_KEY = "sk-fake-llm-placeholder"


def fake_environment(llm: FakeLLM, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """`base` (default: this process's environment) with the SDKs pointed at `llm`."""
    env = dict(os.environ if base is None else base)
    env.update({
        "OPENAI_BASE_URL": llm.base_url,
        "ANTHROPIC_BASE_URL": llm.root_url,
        "OPENAI_API_KEY": PLACEHOLDER_KEY,
        "ANTHROPIC_API_KEY": PLACEHOLDER_KEY,
    })
    return env


def resolve_command(command: Sequence[str]) -> list[str]:
    """`command` with a leading `assay`, `python` or `pytest` bound to this interpreter."""
    if not command:
        raise ValueError("no command to run: give one after `--`")
    head, *rest = command
    if head in ("assay", "pytest"):
        return [sys.executable, "-m", head, *rest]
    if head in ("python", "python3"):
        return [sys.executable, *rest]
    return list(command)


def run_against(llm: FakeLLM, command: Sequence[str]) -> int:
    """Serve `llm` while `command` runs; the command's exit code.

    An interrupted command (Ctrl-C reaches it too) gives 130.
    """
    with llm:
        try:
            return subprocess.run(resolve_command(command), env=fake_environment(llm),
                                  check=False).returncode
        except KeyboardInterrupt:
            return 130
        except FileNotFoundError as exc:
            print(f"python -m assay.testing: cannot run {command[0]!r}: {exc.strerror}",
                  file=sys.stderr)
            return 127
