"""`assay traces` end to end, as a user runs it: files written, run stored, dataset exported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.case import Case
from assay.cli import main
from assay.store import Store
from assay.traces.sessions import load_session

PROMPT_CACHE = "earendil-pi__prompt-cache-replay-session.jsonl"


def _run(args: list[str]) -> int:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    return int(exit_info.value.code or 0)


def test_traces_writes_report_and_guidelines_without_a_model(
        sessions_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    guidelines = tmp_path / "guidelines.md"
    guidelines.write_text("# Rules\n\n- Answer in English.\n", encoding="utf-8")
    store = f"sqlite:///{tmp_path / 'assay.db'}"
    code = _run(["traces", str(sessions_dir), "--output", str(tmp_path / "out"),
                 "--guidelines", str(guidelines), "--store", store])
    assert code == 0
    report = (tmp_path / "out" / "eval-report.md").read_text(encoding="utf-8")
    assert "## Performance" in report and "## Most-read files" in report
    assert "| pi-mono__large-session.jsonl | pi | 88 | none |" in report
    text = guidelines.read_text(encoding="utf-8")
    assert text.startswith("# Rules\n\n- Answer in English.")
    # coding sessions, no --knowledge: no advice about a wiki they do not have
    assert "## Eval Insights" in text and "wiki" not in text.lower()
    assert "wiki hit rate" not in report
    out = capsys.readouterr().out
    assert "sessions 5, questions 95" in out
    assert "wiki hit rate" not in out  # no --knowledge: as in the report, no wiki figures
    runs = Store(store).list_runs("traces", kind="traces")
    assert len(runs) == 1 and runs[0].summary is not None
    assert runs[0].summary["metrics"]["exchanges"] == 95


def test_name_filter_that_matches_nothing_gives_empty_metrics(
        sessions_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = _run(["traces", str(sessions_dir), "--name", "query:*", "--output", str(tmp_path),
                 "--no-store"])
    assert code == 0
    assert "sessions 0, questions 0" in capsys.readouterr().out


def test_bad_since_is_a_usage_error(sessions_dir: Path, tmp_path: Path) -> None:
    assert _run(["traces", str(sessions_dir), "--since", "last tuesday", "--no-store",
                 "--output", str(tmp_path)]) == 2


def test_last_zero_is_a_usage_error_not_an_empty_report(sessions_dir: Path,
                                                        tmp_path: Path) -> None:
    # issue case: --last 0 analysed nothing, overwrote the report with an empty one, exit 0
    assert _run(["traces", str(sessions_dir), "--last", "0", "--no-store",
                 "--output", str(tmp_path)]) == 2
    assert not (tmp_path / "eval-report.md").exists()


def test_a_folder_without_sessions_is_a_user_error(tmp_path: Path) -> None:
    (tmp_path / "notes.jsonl").write_text('{"question": "q"}\n', encoding="utf-8")
    assert _run(["traces", str(tmp_path), "--no-store", "--output", str(tmp_path / "o")]) == 2


@pytest.mark.parametrize("option", ["--output", "--guidelines"])
def test_an_output_under_a_file_is_refused_before_any_log_is_read(
        sessions_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        option: str) -> None:
    """Regression: `-o` under a file ended in "internal error: NotADirectoryError", exit 3."""
    (tmp_path / "a-file").write_text("")
    where = tmp_path / "a-file" / ("out" if option == "--output" else "guidelines.md")
    args = {"--output": str(tmp_path / "out"), option: str(where)}
    code = _run(["traces", str(sessions_dir), "--no-store", *(x for kv in args.items()
                                                               for x in kv)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{tmp_path / 'a-file'} is a file, not a folder" in err
    assert "internal error" not in err and not (tmp_path / "out").exists()


def test_export_writes_cases_a_dataset_can_load(sessions_dir: Path, tmp_path: Path) -> None:
    target = tmp_path / "draft.jsonl"
    assert _run(["traces", "export", str(sessions_dir / "pi"), "-o", str(target)]) == 0
    rows = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    cases = [Case.from_dict(row) for row in rows]
    parser_case = next(c for c in cases if c.id.endswith(":2"))
    assert parser_case.expected == "The parser trims whitespace before processing."
    assert parser_case.reference == parser_case.expected  # the answer recorded then
    assert parser_case.metadata["files_read"] == ["src/parser.ts"]
    assert "export function parseInput" in parser_case.metadata["file_excerpts"]["src/parser.ts"]
    assert parser_case.metadata["tools"] == [{"name": "read", "calls": 1}]
    assert parser_case.metadata["source"]["line"] == 2
    assert all(c.expected for c in cases)
    answered = sum(e.answered for path in sorted((sessions_dir / "pi").glob("*.jsonl"))
                   for e in load_session(path)[1])
    assert len(cases) == answered


def test_with_a_judge_model_findings_reach_the_report_and_guidelines(
        sessions_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real OpenAI SDK talks to the fake LLM server; its findings land in both files."""
    from assay.testing import FakeLLM, Reply

    finding = {"type": "wiki-gap", "severity": "warning",
               "detail": "How the session file format is versioned is not in the wiki",
               "recommendation": "Add a wiki entry on session format versions"}
    guidelines = tmp_path / "guidelines.md"
    with FakeLLM(default=Reply(json={"findings": [finding]})) as llm:
        monkeypatch.setenv("OPENAI_BASE_URL", llm.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        (tmp_path / "kb").mkdir()
        code = _run(["traces", str(sessions_dir / "pi"), "--judge-model", "openai/judge-small",
                     "--output", str(tmp_path / "out"), "--guidelines", str(guidelines),
                     "--knowledge", str(tmp_path / "kb"),
                     "--store", f"sqlite:///{tmp_path / 'assay.db'}"])
        judged = llm.answered
    answered = sum(e.answered for path in sorted((sessions_dir / "pi").glob("*.jsonl"))
                   for e in load_session(path)[1])
    assert code == 0 and judged == answered > 0
    report = (tmp_path / "out" / "eval-report.md").read_text(encoding="utf-8")
    assert "How the session file format is versioned is not in the wiki" in report
    assert f"Judge `judge-small` checked {answered} of {answered} answered" in report
    [run] = Store(f"sqlite:///{tmp_path / 'assay.db'}").list_runs("traces", kind="traces")
    assert run.summary is not None and run.summary["findings"]["wiki-gap"] == answered
    assert run.summary["judge_usage"]["calls"] == answered
    assert "session format versions" in guidelines.read_text(encoding="utf-8") or \
        "How the session file format is versioned" in guidelines.read_text(encoding="utf-8")


def test_a_judge_that_fails_on_every_question_fails_the_run(
        sessions_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from assay.testing import FakeLLM, Fault, Reply

    with FakeLLM(default=Reply(fault=Fault("bad_request"))) as llm:
        monkeypatch.setenv("OPENAI_BASE_URL", llm.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        code = _run(["traces", str(sessions_dir / "pi" / PROMPT_CACHE), "--judge-model",
                     "openai/judge-small", "--output", str(tmp_path / "out"), "--no-store"])
    assert code == 3
    assert "the judge failed on every question" in capsys.readouterr().err


def test_export_with_a_filter_writes_only_the_chosen_sessions(
        sessions_dir: Path, tmp_path: Path) -> None:
    target = tmp_path / "draft.jsonl"
    assert _run(["traces", "export", str(sessions_dir / "pi"), "--last", "1",
                 "-o", str(target)]) == 0
    sessions = {json.loads(line)["metadata"]["source"]["session"]
                for line in target.read_text(encoding="utf-8").splitlines()}
    assert len(sessions) == 1


def test_export_gives_unique_ids_to_sessions_that_share_a_file_name(
        sessions_dir: Path, tmp_path: Path) -> None:
    """Regression: two projects' `subagent.jsonl` exported the same case ids."""
    import shutil

    from assay.datasets.dataset import open_dataset

    source = sessions_dir / "claude-code" / "spotter" / "subagent.jsonl"
    for project in ("a", "b"):
        (tmp_path / "logs" / project).mkdir(parents=True)
        shutil.copy(source, tmp_path / "logs" / project / "subagent.jsonl")
    out = tmp_path / "drafts.jsonl"
    assert _run(["traces", "export", str(tmp_path / "logs"), "-o", str(out)]) == 0
    cases = list(open_dataset(out))
    assert len(cases) == 2 and len({c.id for c in cases}) == 2  # one answered question each
