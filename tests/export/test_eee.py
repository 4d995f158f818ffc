"""`assay export RUN --format eee`: Every Eval Ever files that the format's schemas accept.

Each test makes a real run (through `assay.evaluate`, or a model target and
judge on the fake LLM server), exports it with the CLI, and checks every file
against the vendored schemas and the format's rules for files: the
`data/<collection>/<developer>/<model>/<uuid4>.json` layout, the samples
file beside its aggregate with the declared checksum and row count, and
instance records that join their aggregate result.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

import assay
from assay import Case, Output
from assay.cli import main
from assay.errors import RunFailed
from assay.export.eee_schema import schema, schema_errors
from assay.store import Store
from assay.trial import TrialResult

UUID4 = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"
CAPITALS = [{"id": "fr", "input": "Capital of France?", "expected": "Paris", "tags": ["eu"]},
            {"id": "de", "input": "Capital of Germany?", "expected": "Berlin"},
            {"id": "it", "input": "Capital of Italy?", "expected": "Rome"},
            {"id": "es", "input": "Capital of Spain?", "expected": "Madrid"}]


def answer(case: Case, version: int = 2) -> str:
    if case.id == "es":
        raise ConnectionError("the service did not answer")
    known = {"fr": "Paris", "de": "Berlin", "it": "Rome"} if version == 2 else {"fr": "Paris"}
    return known.get(case.id, "I don't know")


def length(case: Case, output: str) -> float:
    """A scorer without verdicts: a value, no pass/fail."""
    return min(len(output) / 20, 1.0)


def export(store: Path, out: Path, *arguments: str) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["export", "latest", "--store", str(store), "-o", str(out), *arguments])
    assert exited.value.code == 0


def exported(directory: Path) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Every aggregate under `directory` with its instance records, each checked against
    the schemas and the format's rules for files."""
    found = []
    for path in sorted(directory.rglob("*.json")):
        relative = path.relative_to(directory).as_posix()
        assert re.fullmatch(rf"data/[^/]+/[^/]+/[^/]+/{UUID4}\.json", relative), relative
        document = json.loads(path.read_text(encoding="utf-8"))
        assert schema_errors(document, "aggregate") == []
        records: list[dict[str, Any]] = []
        detail = document.get("detailed_evaluation_results")
        if detail is not None:
            assert detail["file_path"] == relative[:-len(".json")] + "_samples.jsonl"
            samples = directory / detail["file_path"]
            data = samples.read_bytes()
            assert detail["checksum"] == hashlib.sha256(data).hexdigest()
            records = [json.loads(line) for line in data.decode().splitlines()]
            assert detail["total_rows"] == len(records) > 0
            result_ids = {r["evaluation_result_id"] for r in document["evaluation_results"]}
            for record in records:
                assert schema_errors(record, "instance") == []
                assert record["evaluation_id"] == document["evaluation_id"]
                assert record["model_id"] == document["model_info"]["id"]
                assert record["evaluation_result_id"] in result_ids
        found.append((document, records))
    return found


def by_condition(found: list[tuple[dict[str, Any], list[dict[str, Any]]]]) -> dict[str, Any]:
    return {doc["source_metadata"]["additional_details"]["condition"]: (doc, records)
            for doc, records in found}


def test_an_exported_run_validates_and_carries_the_runs_numbers(tmp_path: Path) -> None:
    store = tmp_path / "assay.db"
    result = assay.evaluate("capitals", data=CAPITALS, task=answer,
                            conditions={"v1": {"args": {"version": 1}}, "v2": {}},
                            scorers=["exact_match", length], store=str(store),
                            output=tmp_path / "run")
    export(store, tmp_path / "eee", "--organization", "Example Labs")
    conditions = by_condition(exported(tmp_path / "eee"))
    assert sorted(conditions) == ["v1", "v2"]
    for name, (document, records) in conditions.items():
        assert document["source_metadata"]["source_organization_name"] == "Example Labs"
        assert document["source_metadata"]["additional_details"]["assay_run_id"] == \
            result.run_id
        assert document["model_info"]["id"] == f"python/{__name__}:answer"
        results = {r["evaluation_result_id"]: r for r in document["evaluation_results"]}
        assert sorted(results) == ["exact_match:pass_rate", "length:mean"]
        stats = result.summary.get("exact_match", name)
        assert stats is not None
        scored = results["exact_match:pass_rate"]["score_details"]
        assert scored["score"] == stats.pass_rate
        # the rate the gates read, the one the instance records add up to ("es" errored)
        assert float(scored["details"]["pass_rate_with_errors"]) == \
            stats.pass_rate_with_errors == stats.passed / len(records)
        assert scored["details"]["cases_with_errors"] == str(len(records))
        assert scored["uncertainty"]["num_samples"] == stats.judged == 3
        assert scored["uncertainty"]["confidence_interval"]["lower"] == stats.pass_rate_ci.low
        length_stats = result.summary.get("length", name)
        assert results["length:mean"]["score_details"]["score"] == length_stats.mean
        # one record per case for the scorer with verdicts; none for `length`, which has none
        assert sorted(r["sample_id"] for r in records) == ["de", "es", "fr", "it"]
        assert {r["evaluation_name"] for r in records} == {"exact_match"}
        [errored] = [r for r in records if r["sample_id"] == "es"]
        assert errored["error"] == "ConnectionError: the service did not answer"
        assert errored["evaluation"] == {"score": 0.0, "is_correct": False}
        passed = sum(r["evaluation"]["is_correct"] for r in records)
        assert passed == stats.passed
    [france] = [r for r in conditions["v2"][1] if r["sample_id"] == "fr"]
    assert france["input"] == {"raw": "Capital of France?", "reference": ["Paris"]}
    assert france["output"] == {"raw": ["Paris"]}
    assert france["metadata"]["tags"] == "eu"


def test_regression_with_epochs_a_pass_rates_sample_count_is_its_cases_as_its_interval_is(
        tmp_path: Path) -> None:
    """With 3 epochs a pass rate over 4 cases (and its Wilson interval over 4) said
    `num_samples: 12`, the trials: a reader would take the interval as 12 samples' worth."""
    store = tmp_path / "assay.db"
    result = assay.evaluate("capitals", data=CAPITALS[:3], task=answer, epochs=3,
                            scorers=["exact_match", length], store=str(store),
                            output=tmp_path / "run")
    export(store, tmp_path / "eee")
    [(document, _)] = exported(tmp_path / "eee")
    stats = result.summary.get("exact_match", "default")
    assert stats is not None and stats.judged == 9 and stats.judged_cases == 3
    results = {r["evaluation_result_id"]: r["score_details"]
               for r in document["evaluation_results"]}
    rate = results["exact_match:pass_rate"]
    assert rate["score"] == stats.pass_rate
    assert rate["uncertainty"]["num_samples"] == stats.judged_cases == stats.n
    assert results["length:mean"]["uncertainty"]["num_samples"] == 3


def unreachable(case: Case, down: bool = False, plain: bool = False) -> str:
    if down:
        raise ConnectionError("the service did not answer")
    return f"plainly {case.expected}" if plain else str(case.expected)


def unreadable(case: Case, output: str) -> float:
    """A scorer that fails on every answer but plain ones, as a judge whose replies cannot
    be read (a scorer failing on every answer of a run stops it)."""
    if output.startswith("plainly"):
        return 1.0
    raise ValueError("unreadable judge reply: no score between 0 and 10 found in the reply")


def test_a_scorer_with_no_value_under_a_condition_is_named_with_its_errored_trials(
        tmp_path: Path) -> None:
    """Regression: a scorer that errored on every trial of a condition (its judge's replies
    unreadable) was left out of the aggregate without a word, where the terminal showed '-'
    and 8 errored trials. (Such a run stops now, as one whose target failed on every trial of
    a condition does; one stored before it did is still exported.)"""
    store = tmp_path / "assay.db"
    with pytest.raises(RunFailed, match="scorer unreadable has no value under condition up"):
        assay.evaluate("capitals", data=CAPITALS, task=unreachable, epochs=2,
                       conditions={"up": {}, "plain": {"args": {"plain": True}}},
                       scorers=["exact_match", unreadable], store=str(store), reports=False)
    runs = Store(str(store))
    runs.update_run(runs.resolve_run("latest").id, status="completed")
    runs.close()
    export(store, tmp_path / "eee")
    conditions = by_condition(exported(tmp_path / "eee"))
    up, _ = conditions["up"]
    assert [r["evaluation_result_id"] for r in up["evaluation_results"]] == \
        ["exact_match:pass_rate"]
    assert up["source_metadata"]["additional_details"]["scorers_without_result"] == \
        "unreadable: no value, 8 errored trials"


def test_a_graded_scorer_with_a_threshold_exports_its_mean_beside_its_pass_rate(
        tmp_path: Path) -> None:
    """Regression: token F1 with `threshold: 0.3` exported its pass rate alone, as if its
    values were its verdicts: the mean the terminal showed beside it (0.40 against a pass
    rate of 100%) was not in the file that promises every scorer's pass rate and mean."""
    store = tmp_path / "assay.db"
    result = assay.evaluate("capitals", data=CAPITALS[:3],
                            task=lambda case: f"The capital is {case.expected}",
                            scorers=[{"type": "token_f1", "threshold": 0.3}, "contains"],
                            store=str(store), reports=False)
    export(store, tmp_path / "eee")
    [(document, _)] = exported(tmp_path / "eee")
    results = {r["evaluation_result_id"]: r["score_details"]
               for r in document["evaluation_results"]}
    assert sorted(results) == ["contains:pass_rate", "token_f1:mean", "token_f1:pass_rate"]
    f1 = result.summary.get("token_f1", "default")
    assert f1 is not None and f1.mean is not None and f1.mean_ci is not None
    assert (f1.mean, f1.pass_rate) == (results["token_f1:mean"]["score"], 1.0)
    assert f1.mean < 1.0
    assert results["token_f1:mean"]["uncertainty"]["confidence_interval"]["lower"] == \
        f1.mean_ci.low


def test_results_json_links_to_the_exported_files(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = assay.evaluate("capitals", data=CAPITALS, task=answer, scorers=["exact_match"])
    results = tmp_path / ".assay" / "runs" / result.run_id / "results.json"
    before = json.loads(results.read_text(encoding="utf-8"))
    assert before["exports"] == []
    with pytest.raises(SystemExit) as exited:
        main(["export", result.run_id])
    assert exited.value.code == 0
    after = json.loads(results.read_text(encoding="utf-8"))
    [link] = after["exports"]
    location = tmp_path / ".assay" / "runs" / result.run_id / "eee"
    assert link["format"] == "eee" and Path(link["location"]) == location.resolve()
    assert sorted(link["files"]) == sorted(p.relative_to(location).as_posix()
                                           for p in location.rglob("*.json*"))
    assert {key: value for key, value in after.items() if key != "exports"} == \
        {key: value for key, value in before.items() if key != "exports"}
    # and every later results.json of the run lists it too
    store = Store(None)
    try:
        assert [e.location for e in store.exports(result.run_id)] == [link["location"]]
    finally:
        store.close()
    with pytest.raises(SystemExit):
        main(["report", result.run_id, "--format", "json", "-o", str(tmp_path / "again.json")])
    assert json.loads((tmp_path / "again.json").read_text())["exports"] == [link]


def test_an_agents_trial_is_an_agentic_record_with_its_messages(tmp_path: Path) -> None:
    def agent(case: Case) -> Output:
        call = assay.ToolCall("get_order_status", {"order_id": "12345"},
                              result={"status": "shipped"})
        return Output(text="Your order has shipped.", tool_calls=[call])

    store = tmp_path / "assay.db"
    assay.evaluate("orders", data=[{"input": "Where is order 12345?", "expected": "shipped",
                                    "expected_tool_calls": [{"name": "get_order_status"}]}],
                   task=agent, scorers=["contains", "tool_calls"], store=str(store),
                   reports=False)
    export(store, tmp_path / "eee")
    [(_, records)] = exported(tmp_path / "eee")
    assert {r["interaction_type"] for r in records} == {"agentic"}
    messages = records[0]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert messages[1]["tool_calls"] == [{"id": "call-0", "name": "get_order_status",
                                          "arguments": {"order_id": "12345"}}]
    assert messages[2]["tool_call_id"] == ["call-0"]
    assert records[0]["output"] is None
    assert records[0]["evaluation"]["tool_calls_count"] == 1


def test_an_agents_trial_retried_for_a_tool_requirement_says_what_each_count_covers(
        tmp_path: Path) -> None:
    """Regression: a trial whose first attempt's two tool calls failed and whose retry made
    one read 'tool_calls_count: 1' beside the token usage of both attempts, and nothing said
    the record's messages were one attempt of two."""
    def agent(case: Case) -> Output:
        call = assay.ToolCall("lookup", {"key": "alpha"}, result="4")
        return Output(text="4", tool_calls=[call], usage=assay.Usage(input_tokens=40,
                                                                     output_tokens=8),
                      metadata={"agent": {"attempts": 2, "tool_calls": 3, "tool_errors": 2,
                                          "turns": 4}})

    store = tmp_path / "assay.db"
    assay.evaluate("retried", data=[{"input": "2+2?", "expected": "4"}], task=agent,
                   scorers=["contains"], store=str(store), reports=False)
    export(store, tmp_path / "eee")
    [(_, [record])] = exported(tmp_path / "eee")
    assert record["evaluation"]["tool_calls_count"] == 1
    assert record["token_usage"]["total_tokens"] == 48
    metadata = record["metadata"]
    assert (metadata["attempts"], metadata["tool_calls_all_attempts"],
            metadata["tool_errors_all_attempts"]) == ("2", "3", "2")
    assert metadata["attempts_read_as"].startswith("messages, num_turns and tool_calls_count: "
                                                   "the last attempt")


def test_a_judged_model_run_names_its_model_and_judge(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from assay.testing import FakeAnswerer, FakeJudge, FakeLLM

    store = tmp_path / "assay.db"
    with FakeLLM(default=FakeAnswerer({"France": "Paris is the capital of France."}),
                 judge=FakeJudge()) as llm:
        monkeypatch.setenv("OPENAI_BASE_URL", llm.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        assay.evaluate("capitals-llm", data=CAPITALS[:2],
                       task={"type": "model", "model": "openai/gpt-4.1-mini"},
                       scorers=["judge_score"], judge={"model": "openai/gpt-4.1"},
                       store=str(store), reports=False)
    export(store, tmp_path / "eee", "--relationship", "first_party")
    [(document, records)] = exported(tmp_path / "eee")
    assert document["model_info"]["id"] == "openai/gpt-4.1-mini"
    assert document["model_info"]["developer"] == "openai"
    [path] = (tmp_path / "eee").rglob("*_samples.jsonl")
    assert path.parent.relative_to(tmp_path / "eee").as_posix() == \
        "data/capitals-llm/openai/gpt-4.1-mini"
    results = {r["evaluation_result_id"]: r for r in document["evaluation_results"]}
    assert sorted(results) == ["judge_score:mean", "judge_score:pass_rate"]
    mean = results["judge_score:mean"]["metric_config"]
    assert (mean["min_score"], mean["max_score"]) == (0.0, 10.0)
    assert mean["additional_details"]["judge_model"] == "openai/gpt-4.1"
    assert re.fullmatch(r"[0-9a-f]{16}", mean["additional_details"]["judge_prompt_hash"])
    assert document["source_metadata"]["evaluator_relationship"] == "first_party"
    assert all(r["token_usage"]["total_tokens"] > 0 for r in records)
    france = next(r for r in records if r["sample_id"] == "fr")
    assert france["metadata"]["judge_model"] == "openai/gpt-4.1"
    assert float(france["metadata"]["value"]) >= 7 and france["evaluation"]["is_correct"]


def test_a_pairwise_judges_baseline_condition_names_no_scorer_without_result(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The baseline has no pairwise value by design (it is what the others are compared
    with): that is no failure to name, as errored trials are."""
    from assay.testing import FakeAnswerer, FakeJudge, FakeLLM

    store = tmp_path / "assay.db"
    with FakeLLM(default=FakeAnswerer({}), judge=FakeJudge()) as llm:
        monkeypatch.setenv("OPENAI_BASE_URL", llm.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        assay.evaluate("capitals-pairs", data=CAPITALS[:2],
                       task={"type": "model", "model": "openai/gpt-4.1-mini"},
                       conditions={"a": {}, "b": {"system": "Answer in one word."}},
                       scorers=[{"type": "pairwise", "baseline": "a"}],
                       judge={"model": "openai/gpt-4.1"}, store=str(store), reports=False)
    export(store, tmp_path / "eee")
    conditions = by_condition(exported(tmp_path / "eee"))
    assert "scorers_without_result" not in conditions["a"][0]["source_metadata"][
        "additional_details"]
    assert [r["evaluation_result_id"] for r in conditions["b"][0]["evaluation_results"]] == \
        ["pairwise:mean"]


def test_the_vendored_schemas_are_the_published_version() -> None:
    assert schema("aggregate")["version"] == schema("instance")["version"] == "0.3.0"
    source = (Path(assay.__file__).parent / "export" / "schemas")
    for name in ("eval.schema.json", "instance_level_eval.schema.json"):
        digest = hashlib.sha256((source / name).read_bytes()).hexdigest()
        assert digest in (source / "SOURCE.md").read_text(encoding="utf-8")
    assert "MIT License" in (source / "LICENSE").read_text(encoding="utf-8")


def test_a_traces_analysis_is_not_exported(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    store = Store(str(tmp_path / "assay.db"))
    store.create_run(id="t1", experiment="traces", kind="traces", status="finished")
    store.close()
    with pytest.raises(SystemExit) as exited:
        main(["export", "t1", "--store", str(tmp_path / "assay.db"), "-o", str(tmp_path)])
    assert exited.value.code == 2
    assert "t1 is a traces analysis, not an eval run" in capsys.readouterr().err


@pytest.mark.parametrize("status", ["running", "aborted", "interrupted"])
def test_a_run_that_did_not_complete_is_not_exported_as_an_evaluation(
        status: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: an aborted run (3 of 40 trials, say) exported with exit 0 as an evaluation
    whose numbers read like the whole dataset's."""
    store = Store(str(tmp_path / "assay.db"))
    store.create_run(id="r1", experiment="capitals", status=status, total_trials=40)
    store.write_trials("r1", [TrialResult(Case(id=c["id"], input=c["input"]), "default",
                                           0, Output(text="Paris")) for c in CAPITALS[:3]])
    store.close()
    with pytest.raises(SystemExit) as exited:
        main(["export", "r1", "--store", str(tmp_path / "assay.db"), "-o", str(tmp_path / "x")])
    assert exited.value.code == 2
    error = capsys.readouterr().err
    assert "run r1 is not completed (" in error and "it has 3 of 40 trials stored" in error
    assert not (tmp_path / "x").exists()


def test_a_run_another_assay_is_running_is_waited_for_not_resumed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: a run still under way read '`assay run CONFIG --resume r1` completes it',
    which is refused while its process holds the run ('being run by another assay')."""
    store = Store(str(tmp_path / "assay.db"))
    store.create_run(id="r1", experiment="capitals", status="running", total_trials=40)
    with store.run_lock() as lock:
        lock.acquire("r1")
        with pytest.raises(SystemExit) as exited:
            main(["export", "r1", "--store", str(tmp_path / "assay.db"), "-o", str(tmp_path)])
    store.close()
    assert exited.value.code == 2
    error = capsys.readouterr().err
    assert "run r1 is not completed (still running)" in error and "--resume" not in error


def test_a_stopped_run_is_told_the_command_that_resumes_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = Store(str(tmp_path / "assay.db"))
    store.create_run(id="r1", experiment="capitals", status="interrupted", total_trials=40,
                     config_path="evals/capitals.yaml")
    store.close()
    with pytest.raises(SystemExit):
        main(["export", "r1", "--store", str(tmp_path / "assay.db"), "-o", str(tmp_path)])
    assert "resume with: assay run evals/capitals.yaml --resume r1" in capsys.readouterr().err


def test_exporting_a_run_again_to_the_same_place_replaces_its_files_not_duplicates_them(
        tmp_path: Path) -> None:
    """Regression: a second export wrote new files beside the first, so the folder held each
    condition's evaluation twice under one evaluation_id, and a reader of the folder counted
    the run twice."""
    store = tmp_path / "assay.db"
    assay.evaluate("capitals", data=CAPITALS, task=answer,
                   conditions={"v1": {"args": {"version": 1}}, "v2": {}},
                   scorers=["exact_match"], store=str(store), output=tmp_path / "run")
    export(store, tmp_path / "eee")
    first = sorted(p.name for p in (tmp_path / "eee").rglob("*.json*"))
    export(store, tmp_path / "eee", "--organization", "Example Labs")
    found = exported(tmp_path / "eee")
    assert sorted(by_condition(found)) == ["v1", "v2"] and len(found) == 2
    assert len({document["evaluation_id"] for document, _ in found}) == 2
    assert all(document["source_metadata"]["source_organization_name"] == "Example Labs"
               for document, _ in found)
    assert sorted(p.name for p in (tmp_path / "eee").rglob("*.json*")) == first


def exported_transcript(tmp_path: Path, turns: list[dict[str, Any]]) -> dict[str, Any]:
    """The instance record exported for one trial whose target kept a transcript: the
    question, `turns`, then the answer."""

    def agent(case: Case) -> Output:
        return Output(text="Shipped.", transcript=[
            {"role": "user", "content": case.input}, *turns,
            {"role": "assistant", "content": "Shipped."}])

    store = tmp_path / "assay.db"
    assay.evaluate("orders", data=[{"input": "Where is order 12345?", "expected": "Shipped"}],
                   task=agent, scorers=["contains"], store=str(store), reports=False)
    export(store, tmp_path / "eee")
    [(_, [record])] = exported(tmp_path / "eee")
    return record


def test_a_transcript_with_openai_wire_tool_calls_exports_their_names_and_arguments(
        tmp_path: Path) -> None:
    """Regression: a target's own transcript in the OpenAI wire shape (`function: {name,
    arguments: "<json>"}`) exported each call as a tool named "None" with no arguments, and
    one whose `arguments` was the JSON text itself ended the export in an internal error."""
    wire = {"id": "call_1", "type": "function",
            "function": {"name": "search", "arguments": '{"q": "order 12345"}'}}
    flat = {"id": "call_2", "name": "lookup", "arguments": '{"id": 12345}'}

    record = exported_transcript(tmp_path, [
        {"role": "assistant", "content": None, "tool_calls": [wire, flat]},
        {"role": "tool", "tool_call_id": "call_1", "content": "shipped"},
        {"role": "tool", "tool_call_id": "call_2", "content": "shipped"}])
    assert record["messages"][1]["tool_calls"] == [
        {"id": "call_1", "name": "search", "arguments": {"q": "order 12345"}},
        {"id": "call_2", "name": "lookup", "arguments": {"id": "12345"}}]
    assert record["evaluation"]["tool_calls_count"] == 2


def test_a_transcript_tool_call_whose_arguments_are_not_json_exports_them_not_null(
        tmp_path: Path) -> None:
    """Regression: arguments a model wrote that are not JSON were exported as null, so the
    export hid what the call was given; they are kept under `_invalid_json`, as the
    provider keeps them in the run."""
    broken = {"id": "call_1", "type": "function",
              "function": {"name": "search", "arguments": '{"q": "order'}}
    record = exported_transcript(tmp_path, [
        {"role": "assistant", "content": None, "tool_calls": [broken]}])
    assert record["messages"][1]["tool_calls"] == [
        {"id": "call_1", "name": "search", "arguments": {"_invalid_json": '{"q": "order'}}]


def test_an_export_from_another_folder_goes_beside_the_runs_files_and_is_linked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: run from another folder (or for a run written with -o), the export went
    to ./.assay/runs/<run id>/eee and the run's results.json never linked to it."""
    monkeypatch.chdir(tmp_path)
    result = assay.evaluate("capitals", data=CAPITALS, task=answer, scorers=["exact_match"])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    with pytest.raises(SystemExit) as exited:
        main(["export", result.run_id, "--store", str(tmp_path / ".assay" / "assay.db")])
    assert exited.value.code == 0
    folder = tmp_path / ".assay" / "runs" / result.run_id
    [link] = json.loads((folder / "results.json").read_text(encoding="utf-8"))["exports"]
    assert Path(link["location"]) == (folder / "eee").resolve()
    assert not (elsewhere / ".assay").exists()


def test_an_existing_folder_that_is_not_writable_is_refused_before_the_export(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: only the folder's parent was checked, so `-o shared` (a folder the user
    may only read) read the whole run and then failed writing its first file, exit 3."""
    import os

    store = tmp_path / "assay.db"
    assay.evaluate("capitals", data=CAPITALS[:1], task=answer, scorers=["exact_match"],
                   store=str(store), reports=False)
    shared = tmp_path / "shared"
    shared.mkdir()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: (  # a user who may only read it
        not mode & os.W_OK if Path(path) == shared else real_access(path, mode)))
    with pytest.raises(SystemExit) as exited:
        main(["export", "latest", "--store", str(store), "-o", str(shared)])
    assert exited.value.code == 2
    assert capsys.readouterr().err.strip() == \
        f"error: --output {shared}: this folder is not writable"
    assert not list(shared.iterdir())


@pytest.mark.parametrize("damage", ["{cut short", "\udcff", '[1, 2]\n'])
def test_a_damaged_results_json_is_not_linked_and_says_how_to_write_it_again(
        damage: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Regression: with the run's results.json damaged, the export wrote and recorded its
    files, then ended in 'internal error: ValueError ... this is a bug in assay', exit 3."""
    monkeypatch.chdir(tmp_path)
    result = assay.evaluate("capitals", data=CAPITALS[:1], task=answer, scorers=["exact_match"])
    results = tmp_path / ".assay" / "runs" / result.run_id / "results.json"
    results.write_bytes(damage.encode("utf-8", "surrogateescape"))
    with pytest.raises(SystemExit) as exited:
        main(["export", result.run_id])
    out, err = capsys.readouterr()
    assert exited.value.code == 0, err
    assert out.count(".json") == 2  # the aggregate and its samples, written
    assert err.startswith(f"warning: not linked from {results}: it is "
                          "not a results.json assay wrote (")
    assert err.rstrip().endswith(f"the export is recorded with run {result.run_id}, and "
                                 f"`assay report {result.run_id} --rewrite` writes "
                                 "results.json again, listing it")
    with pytest.raises(SystemExit):
        main(["report", result.run_id, "--rewrite"])
    assert json.loads(results.read_text(encoding="utf-8"))["exports"][0]["format"] == "eee"
