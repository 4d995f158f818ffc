"""What a run stores never holds a known secret, whoever put it in the text."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from assay.testing import FakeLLM
from tests.cli.evalproject import assay

SECRET = "sk-test-SECRET123456"

AGENT = '''
import os

def answer(case):
    return "Paris " + os.environ["OPENAI_API_KEY"]

def echo(case):
    return "you said: " + case.input

def grade(case, output):
    return {"value": 1.0, "passed": True,
            "reason": "the answer quoted " + os.environ["OPENAI_API_KEY"]}
'''

PYTHON_TARGET = {"type": "python", "function": "agent.py:answer"}


def _run(tmp_path: Path, capsys: pytest.CaptureFixture[str], case: dict[str, Any],
         target: dict[str, Any], **settings: Any) -> tuple[list[str], Path, str]:
    """Run one case through `target` (and the config's other `settings`): every stored
    trial, score and run value, the report folder and what the terminal showed."""
    (tmp_path / "agent.py").write_text(AGENT, encoding="utf-8")
    (tmp_path / "cases.jsonl").write_text(json.dumps(case) + "\n", encoding="utf-8")
    config = tmp_path / "assay.yaml"
    config.write_text(yaml.safe_dump({
        "name": "secrets", "dataset": {"path": "cases.jsonl"},
        "target": target,
        "scorers": [{"type": "contains"}, {"type": "python", "function": "agent.py:grade"}],
        **settings}), encoding="utf-8")
    store, out = tmp_path / "s.db", tmp_path / "out"
    code, text = assay(capsys, "run", str(config), "--store", str(store), "--output", str(out),
                       "--no-progress")
    assert code == 0
    with sqlite3.connect(store) as db:
        stored = [str(v) for row in db.execute("SELECT * FROM trials") for v in row]
        stored += [str(v) for row in db.execute("SELECT * FROM scores") for v in row]
        stored += [str(v) for row in db.execute("SELECT * FROM runs") for v in row]
    return stored, out, text


def _assert_reported_without_the_key(out: Path, text: str) -> None:
    for name in ("results.json", "report.md", "report.html"):
        assert SECRET not in (out / name).read_text(encoding="utf-8"), name
    assert SECRET not in text


def test_a_key_echoed_by_the_target_or_quoted_by_a_scorer_is_masked_everywhere(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # issue case: the key reached trials.output_text, results.json and report.html
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    stored, out, text = _run(tmp_path, capsys, {"id": "a", "input": "capital of France?",
                                                "expected": "Paris"}, PYTHON_TARGET)
    assert any("Paris ***" in v for v in stored)  # the answer is kept, the key is not
    assert any("quoted ***" in v for v in stored)
    assert not any(SECRET in v for v in stored)
    _assert_reported_without_the_key(out, text)


def test_a_key_quoted_by_a_case_is_masked_in_its_stored_input_and_expected(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # issue case: a case asking "is my key sk-... valid?" put the key into trials.input_json
    # and expected_json, and so into results.json and report.html's cases
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    stored, out, text = _run(tmp_path, capsys, {"id": "a", "input": f"is {SECRET} valid?",
                                                "expected": SECRET},
                              {"type": "python", "function": "agent.py:echo"})
    assert '"is *** valid?"' in stored and '"***"' in stored
    assert not any(SECRET in v for v in stored)
    _assert_reported_without_the_key(out, text)


def test_a_key_in_a_variable_not_named_like_one_is_masked_when_the_endpoint_echoes_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # issue case: `api_key_env: LLM_GATEWAY` (a name that says nothing of a key) and a
    # gateway answering "Paris, asked with <key>" put the key into trials.output_text,
    # the response cache and results.json
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SCORERKEY321")  # for agent.py:grade
    monkeypatch.setenv("LLM_GATEWAY", "gw-test-ECHOED4321")
    with FakeLLM(default=lambda request: f"Paris, asked with {request.api_key}") as llm:
        stored, out, text = _run(
            tmp_path, capsys, {"id": "a", "input": "capital?", "expected": "Paris"},
            {"type": "model", "model": "gateway/m"}, providers={"gateway": {
                "kind": "openai_compatible", "base_url": llm.base_url,
                "api_key_env": "LLM_GATEWAY"}})
    assert llm.requests[0].api_key == "gw-test-ECHOED4321"  # the key was really sent
    assert any("Paris, asked with ***" in v for v in stored)
    assert not any("gw-test-ECHOED4321" in v for v in stored)
    with sqlite3.connect(tmp_path / "s.db") as db:
        cached = [row[0] for row in db.execute("SELECT response_json FROM response_cache")]
    assert not any("gw-test-ECHOED4321" in reply for reply in cached)
    for name in ("results.json", "report.md", "report.html"):
        assert "gw-test-ECHOED4321" not in (out / name).read_text(encoding="utf-8"), name
    assert "gw-test-ECHOED4321" not in text


PRINTS_ITS_KEYS = """
import os, sys
sys.stdin.read()
print("Paris", os.environ["SERVICE_API_KEY"], sys.argv[2], sys.argv[3])
"""


def test_a_key_written_in_the_config_is_masked_when_the_target_prints_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # issue case: `env: {SERVICE_API_KEY: sk-...}` and `--api-key sk-...` in a command were
    # masked in the stored config (the second not even there) but stored as the command
    # printed them
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SCORERKEY321")  # for agent.py:grade
    (tmp_path / "prints.py").write_text(PRINTS_ITS_KEYS, encoding="utf-8")
    stored, out, text = _run(tmp_path, capsys, {"id": "a", "input": "capital?",
                                                "expected": "Paris"}, {
        "type": "command", "command": [sys.executable, "prints.py", "--api-key", SECRET,
                                       "--token=sk-test-FLAGVALUE987"],
        "env": {"SERVICE_API_KEY": "sk-test-ENVVALUE654"}})
    assert any("Paris *** *** --token=***" in v for v in stored)
    for secret in (SECRET, "FLAGVALUE987", "ENVVALUE654"):
        assert not any(secret in v for v in stored), secret
        assert secret not in text
        for name in ("results.json", "report.md", "report.html"):
            assert secret not in (out / name).read_text(encoding="utf-8"), name


PRINTS_ITS_ARGUMENTS = """
import sys
sys.stdin.read()
print("Paris", *sys.argv[1:])
"""


def test_a_variable_after_a_secret_looking_flag_is_masked_whatever_its_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # issue case: `--api-key ${GATEWAY}` (a name that says nothing of a key) in a command
    # line, and any key after a flag of a command written as one string, were stored and
    # reported as the command printed them
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SCORERKEY321")  # for agent.py:grade
    monkeypatch.setenv("GATEWAY", "gw-test-FLAGGED1111")
    monkeypatch.setenv("SERVICE", "svc-test-FLAGGED2222")
    (tmp_path / "prints.py").write_text(PRINTS_ITS_ARGUMENTS, encoding="utf-8")
    listed = [sys.executable, "prints.py", "--api-key", "${GATEWAY}", "--token=${SERVICE}"]
    written = f"{sys.executable} prints.py --password written-test-FLAGGED3333"
    for command, answer in ((listed, "Paris --api-key *** --token=***"),
                            (written, "Paris --password ***")):
        stored, out, text = _run(tmp_path, capsys, {"id": "a", "input": "capital?",
                                                    "expected": "Paris"},
                                 {"type": "command", "command": command})
        assert any(v.strip() == answer for v in stored), answer
        for secret in ("FLAGGED1111", "FLAGGED2222", "FLAGGED3333"):
            assert not any(secret in v for v in stored), secret
            assert secret not in text
            for name in ("results.json", "report.md", "report.html"):
                assert secret not in (out / name).read_text(encoding="utf-8"), name


def test_a_run_whose_summary_quotes_a_key_is_stored_masked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # issue case: an assay traces analysis stored each finding, quoting the session's
    # question 'why is sk-... refused?', in runs.summary_json as it was
    from assay.store import Store

    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    store = Store(str(tmp_path / "s.db"))
    store.create_run(id="traces-1", experiment="traces", kind="traces", status="finished",
                     summary={"finding_list": [{"question": f"why is {SECRET} refused?"}]})
    store.update_run("traces-1", error=f"stopped: {SECRET} refused")
    record = store.get_run("traces-1")
    store.close()
    assert record is not None and record.summary is not None
    assert record.summary["finding_list"] == [{"question": "why is *** refused?"}]
    assert record.error == "stopped: *** refused"


def test_a_credential_variable_s_value_written_elsewhere_in_the_config_is_stored_masked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the config is masked once, as it is loaded: the value of a variable used as a key
    # (${GATEWAY}, a name that does not look secret) is known by then
    from assay.config import load_config
    from assay.store import Store

    monkeypatch.setenv("GATEWAY", "gw-test-CREDENTIAL777")
    (tmp_path / "cases.jsonl").write_text('{"id": "a", "input": "q", "expected": "a"}\n',
                                          encoding="utf-8")
    config = tmp_path / "assay.yaml"
    config.write_text(yaml.safe_dump({
        "name": "secrets", "description": "the gateway takes gw-test-CREDENTIAL777",
        "dataset": {"path": "cases.jsonl"},
        "target": {"type": "model", "model": "openai/gpt-4.1"},
        "mcp_servers": {"gateway": {"type": "stdio", "command": "gateway",
                                    "env": {"API_TOKEN": "${GATEWAY}"}}},
        "scorers": [{"type": "exact_match"}]}), encoding="utf-8")
    loaded = load_config(config)
    store = Store(str(tmp_path / "s.db"))
    store.create_run(id="r1", experiment="secrets", config=loaded.stored)
    record = store.get_run("r1")
    store.close()
    assert record is not None and isinstance(record.config, dict)
    assert record.config["description"] == "the gateway takes ***"
    assert record.config["mcp_servers"]["gateway"]["env"] == {"API_TOKEN": "${GATEWAY}"}


def test_a_password_and_a_key_in_a_target_s_url_are_never_printed_or_stored(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # issue case: `url: http://bob:PASSWORD@host/ask?api_key=KEY` was kept whole in the
    # stored config, and 'cannot reach http://bob:PASSWORD@...' in the trial's error
    # and on the terminal
    (tmp_path / "cases.jsonl").write_text('{"id": "a", "input": "hi"}\n', encoding="utf-8")
    config = tmp_path / "assay.yaml"
    config.write_text(yaml.safe_dump({
        "name": "secrets", "dataset": {"path": "cases.jsonl"},
        "target": {"type": "http", "url": "http://bob:Hunter2Secret@127.0.0.1:9/ask"
                                          "?api_key=QueryKey123456&sig=SigValue7777"},
        "scorers": [{"type": "contains", "value": "hi"}], "run": {"timeout": 5},
    }), encoding="utf-8")
    store = tmp_path / "s.db"
    code, text = assay(capsys, "run", str(config), "--store", str(store), "--no-progress")
    assert code == 3 and "cannot reach http://bob:***@127.0.0.1:9/ask?api_key=***" in text
    with sqlite3.connect(store) as db:
        stored = [str(v) for table in ("runs", "trials") for row in
                  db.execute(f"SELECT * FROM {table}") for v in row]
    assert any("http://bob:***@127.0.0.1:9/ask?api_key=***&sig=***" in v for v in stored)
    for secret in ("Hunter2Secret", "QueryKey123456", "SigValue7777"):
        assert secret not in text
        assert not any(secret in v for v in stored), secret
