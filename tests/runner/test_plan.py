"""What a plan refuses before any trial, each located in the config by file, line and field.

A condition is refused when its target would ignore what it changes. Regression: a condition with `mcp_servers:` under a `model` target (which
never calls tools) ran, scored exactly like its baseline, and was reported
as "within noise": evidence that the servers made no difference, for a
change that was never made. Such a condition is now a config error with
file, line and field, in `assay validate` and `assay run` alike; a server
declared but used by no condition is a warning.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from tests.cli.evalproject import assay

SERVERS = """\
mcp_servers:
  time: {type: stdio, command: python, args: ["-m", "mcp_server_time"]}
  spare: {type: stdio, command: python, args: ["-m", "mcp_server_time"]}
"""


def agent_and_questions(root: Path) -> None:
    """agent.py answering with the expected answer, and one question."""
    (root / "agent.py").write_text("def answer(case):\n    return case.expected\n")
    (root / "questions.jsonl").write_text(
        json.dumps({"id": "q1", "input": "2+2?", "expected": "4"}) + "\n")


def project(root: Path, target: str, condition: str) -> Path:
    """A config with a `base` condition and a `changed` one on line 10."""
    agent_and_questions(root)
    config = root / "assay.yaml"
    config.write_text(textwrap.dedent(f"""\
        name: conditions
        dataset: {{path: questions.jsonl}}
        target: {target}
        """) + SERVERS + textwrap.dedent(f"""\
        scorers: [{{type: contains}}]
        conditions:
          base: {{}}
          changed: {condition}
        """))
    assert config.read_text().splitlines()[9].startswith("  changed:")
    return config


MODEL = "{type: model, model: openai/gpt-4.1-mini}"
COMMAND = "{type: command, command: [echo, '4']}"
HTTP = "{type: http, url: 'http://127.0.0.1:9/answer'}"


@pytest.mark.parametrize("target, condition, key, who", [
    (MODEL, "{mcp_servers: [time]}", "mcp_servers", "only an agent target does"),
    (MODEL, "{require_mcp_tool_use: true}", "require_mcp_tool_use", "only an agent target does"),
    (COMMAND, "{context: {pack: docs}}", "context", "only a model or agent target does"),
    (HTTP, "{mcp_servers: [time]}", "mcp_servers", "only an agent target does"),
], ids=["model+mcp_servers", "model+requirement", "command+context", "http+mcp_servers"])
@pytest.mark.parametrize("command", ["validate", "run"])
def test_a_condition_its_target_would_ignore_is_a_located_config_error(
        capsys, tmp_path, monkeypatch, target, condition, key, who, command):
    monkeypatch.setenv("ASSAY_STORE", str(tmp_path / "assay.db"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-never-sent")
    config = project(tmp_path, target, condition)
    if key == "context":
        config.write_text(config.read_text() + "packs: {docs: {path: .}}\n")
    code, text = assay(capsys, command, str(config))
    assert code == 2
    assert f"{config}:10 [conditions.changed.{key}]" in text
    assert f"condition 'changed' sets {key}" in text and who in text
    assert "in name only" in text


@pytest.mark.parametrize("command", ["validate", "run"])
def test_the_config_is_named_as_written_in_the_error_and_in_each_of_its_lines(
        capsys, tmp_path, monkeypatch, command):
    """Regression: a problem found once the config had loaded (a condition its target would
    ignore, a model of no known provider, a pack folder not there) was headed 'error: invalid
    config /home/.../assay.yaml', the absolute path, above lines naming 'assay.yaml:10', where
    a problem of the config's keys was headed 'invalid config assay.yaml'."""
    monkeypatch.setenv("ASSAY_STORE", str(tmp_path / "assay.db"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-never-sent")
    project(tmp_path, MODEL, "{mcp_servers: [time]}")
    monkeypatch.chdir(tmp_path)
    code, text = assay(capsys, command, "assay.yaml")
    assert code == 2
    assert text.splitlines()[:2] == [
        "error: invalid config assay.yaml",
        ("  assay.yaml:10 [conditions.changed.mcp_servers]: condition 'changed' sets "
        "mcp_servers, but a model target never uses it (only an agent target does): the "
        "condition would differ from the others in name only")], text


def test_a_model_target_honours_a_pack_context(capsys, tmp_path):
    config = project(tmp_path, MODEL, "{context: {pack: docs}}")
    config.write_text(config.read_text() + "packs: {docs: {path: .}}\n")
    _code, text = assay(capsys, "validate", str(config))
    assert "sets context" not in text, text


def test_a_python_function_gets_the_condition_and_may_use_its_servers(capsys, tmp_path):
    config = project(tmp_path, '{type: python, function: "agent.py:answer"}',
                     "{mcp_servers: [time]}")
    code, text = assay(capsys, "validate", str(config))
    assert code == 0, text
    assert "MCP server 'spare' is declared under mcp_servers but no condition uses it" in text
    assert "'time' is declared" not in text


def _quickstart_like(root: Path, dataset: str, target: str) -> Path:
    """A config whose dataset is on line 3 and target on line 4."""
    agent_and_questions(root)
    config = root / "assay.yaml"
    config.write_text(textwrap.dedent(f"""\
        name: located
        dataset:
          path: {dataset}
        target: {target}
        scorers: [{{type: contains}}]
        """))
    return config


@pytest.mark.parametrize("command", ["validate", "run"])
@pytest.mark.parametrize("dataset, target, where, says", [
    ("nope.jsonl", "{type: python, function: 'agent:answer'}", "3 [dataset.path]",
     "dataset not found: "),
    (".", "{type: python, function: 'agent:answer'}", "3 [dataset.path]",
     "is a directory, not a file"),
    ("questions.jsonl", "{type: python, function: 'agent:nosuch'}", "4 [target.function]",
     "module 'agent' has no 'nosuch'"),
    ("questions.jsonl", "{type: python, function: 'nomodule:answer'}", "4 [target.function]",
     "No module named 'nomodule'"),
    ("questions.jsonl", "{type: command, command: [nosuchprogram]}", "4 [target.command]",
     "program 'nosuchprogram' not found on PATH"),
], ids=["no-dataset", "dataset-is-a-folder", "no-function", "no-module", "no-program"])
def test_a_dataset_or_target_that_is_not_there_is_named_at_its_line_in_the_config(
        capsys, tmp_path, monkeypatch, dataset, target, where, says, command):
    """They read 'error: dataset not found: /x/nope.jsonl' or 'error: command target:
    program ... not found on PATH', with neither the config nor the line that names them."""
    monkeypatch.setenv("ASSAY_STORE", str(tmp_path / "assay.db"))
    config = _quickstart_like(tmp_path, dataset, target)
    code, text = assay(capsys, command, str(config))
    assert code == 2
    assert f"{config}:{where}: " in text and says in text, text


AGENT = "{type: agent, model: openai/gpt-4.1-mini}"
PYTHON = "{type: python, function: 'agent:answer'}"


@pytest.mark.parametrize("command", ["validate", "run"])
@pytest.mark.parametrize("folder", ["./saved_to_disk", "../elsewhere/saved", "/no/such/saved"])
def test_an_hf_folder_that_is_not_there_is_named_at_its_line_not_sent_to_the_hub(
        capsys, tmp_path, monkeypatch, folder, command):
    """Regression: `dataset: {hf: ./saved_to_disk}` with the folder misspelt read
    "cannot load the Hugging Face dataset './saved_to_disk': Repo id must use alphanumeric
    chars ...", a Hub rule about a name the user never meant for the Hub, with neither the
    config nor its line."""
    monkeypatch.setenv("ASSAY_STORE", str(tmp_path / "assay.db"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    config = _quickstart_like(tmp_path, "questions.jsonl", PYTHON)
    config.write_text(config.read_text().replace("  path: questions.jsonl",
                                                 f"  hf: {folder}"))
    code, text = assay(capsys, command, str(config))
    assert code == 2, text
    assert f"{config}:3 [dataset.hf]: " in text, text
    assert "Hugging Face dataset folder not found: " in text and "Repo id" not in text, text


@pytest.mark.parametrize("command", ["validate", "run"])
@pytest.mark.parametrize("target, condition", [
    (MODEL, "{context: {pack: docs}}"),
    (AGENT, "{mcp_servers: ['pack:docs']}"),
    (PYTHON, "{context: {pack: docs}}"),
], ids=["model+context", "agent+pack-server", "python+context"])
@pytest.mark.parametrize("path, says", [
    ("nope", "pack folder not found: "),
    ("questions.jsonl", "is not a folder"),
], ids=["missing", "a-file"])
def test_a_pack_folder_that_is_not_there_is_named_at_its_line_before_any_trial(
        capsys, tmp_path, monkeypatch, target, condition, path, says, command):
    """Regression: `assay validate` passed such a config; `assay run` ran the baseline, then
    failed every trial of the pack's condition with an unlocated 'pack folder not found'
    (exit 3), or, under a python target, ran as if there were no pack at all."""
    monkeypatch.setenv("ASSAY_STORE", str(tmp_path / "assay.db"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-never-sent")
    config = project(tmp_path, target, condition)
    config.write_text(config.read_text() + f"packs:\n  docs: {{path: {path}}}\n")
    code, text = assay(capsys, command, str(config))
    assert code == 2, text
    assert f"{config}:12 [packs.docs.path]: " in text and says in text, text
    assert "trials" not in text  # nothing ran


def test_a_pack_document_that_is_not_text_stops_the_run_before_any_trial(
        capsys, tmp_path, monkeypatch):
    """Regression: a model target opened its pack at its first trial, so the baseline ran
    (and was paid for) and every trial of the pack's condition then failed with the same
    error, exit 3; the pack is now indexed when the target starts, and the run stops, exit 2."""
    monkeypatch.setenv("ASSAY_STORE", str(tmp_path / "assay.db"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-never-sent")
    config = project(tmp_path, MODEL, "{context: {pack: docs}}")
    config.write_text(config.read_text() + "packs:\n  docs: {path: docs}\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "notes.md").write_bytes(b"# Caf\xe9\n")
    code, text = assay(capsys, "run", str(config))
    assert code == 2, text
    assert "pack 'docs': no document in " in text
    assert "is text: notes.md left out: not UTF-8 text (line 1: byte 0xe9)" in text
    assert "trials" not in text


@pytest.mark.parametrize("command", ["validate", "run"])
@pytest.mark.parametrize("program, says", [
    ("/no/such/server", "program '/no/such/server' not found (looked for /no/such/server)"),
    ("nosuchserver", "program 'nosuchserver' not found on PATH"),
], ids=["a-path", "a-name"])
def test_an_mcp_server_whose_program_is_not_there_is_named_at_its_line_before_any_trial(
        capsys, tmp_path, monkeypatch, program, says, command):
    """Regression: `assay validate` passed such a config, and `assay run` stopped on it with
    exit 3, 'MCP server 'time' failed to start: command not found', as if a server that
    works had died; a command target's missing program was exit 2 at its line."""
    monkeypatch.setenv("ASSAY_STORE", str(tmp_path / "assay.db"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-never-sent")
    config = project(tmp_path, AGENT, "{mcp_servers: [time]}")
    config.write_text(config.read_text().replace("command: python,", f"command: {program},"))
    code, text = assay(capsys, command, str(config))
    assert code == 2, text
    assert f"{config}:5 [mcp_servers.time.command]: MCP server 'time': {says}" in text, text
    assert "spare" not in text  # a server no condition starts is not checked
    monkeypatch.chdir(tmp_path)  # named as typed, the heading as its lines
    code, text = assay(capsys, command, config.name)
    assert f"invalid config {config.name}\n  {config.name}:5 [mcp_servers.time.command]" in text


@pytest.mark.parametrize("command", ["validate", "run"])
def test_an_mcp_server_whose_cwd_is_not_there_is_named_at_its_line_before_any_trial(
        capsys, tmp_path, monkeypatch, command):
    """Regression: `assay validate` passed a stdio server with `cwd: nowhere`, and `assay
    run` stopped on it with exit 3, 'MCP server 'time' failed to start: command not found:
    .../nowhere', naming the folder as the missing command."""
    monkeypatch.setenv("ASSAY_STORE", str(tmp_path / "assay.db"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-never-sent")
    config = project(tmp_path, AGENT, "{mcp_servers: [time]}")
    config.write_text(config.read_text().replace(
        'args: ["-m", "mcp_server_time"]}', 'args: ["-m", "mcp_server_time"], cwd: nowhere}', 1))
    code, text = assay(capsys, command, str(config))
    assert code == 2, text
    assert (f"{config}:5 [mcp_servers.time.cwd]: MCP server 'time': its cwd not found: "
            f"{tmp_path / 'nowhere'}") in text, text
    assert "command not found" not in text


@pytest.mark.parametrize("key, why", [
    ("require_mcp_tool_use", "every trial would break it, however often it is retried"),
    ("require_mcp_tool_success", "no tool call could fail it, so it would change nothing"),
])
@pytest.mark.parametrize("command", ["validate", "run"])
def test_a_tool_requirement_of_a_condition_with_no_mcp_server_is_a_located_config_error(
        capsys, tmp_path, monkeypatch, key, why, command):
    """Regression: an agent condition with require_mcp_tool_use and no mcp_servers ran each
    case three times (a model call each) and stopped, exit 3, 'every trial failed ...
    require_mcp_tool_use: the agent answered without calling an MCP tool (offered: none)';
    with require_mcp_tool_success it passed every trial, the same as its baseline."""
    monkeypatch.setenv("ASSAY_STORE", str(tmp_path / "assay.db"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-never-sent")
    config = project(tmp_path, AGENT, f"{{{key}: true}}")
    code, text = assay(capsys, command, str(config))
    assert code == 2, text
    assert (f"{config}:10 [conditions.changed.{key}]: condition 'changed' sets {key}, but "
            f"offers the agent no MCP server to call: {why}; name its servers with "
            "mcp_servers: [NAME] (a pack's: [pack:NAME])") in text, text
