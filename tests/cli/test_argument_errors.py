"""Bad arguments, as a careless user types them: exit 2 naming the option and the value,
before any work, never a traceback, never an option silently left unused."""

from __future__ import annotations

from pathlib import Path

import pytest

from .evalproject import assay, write_project

CASES: dict[str, tuple[list[str], str]] = {
    # id: (arguments, what the error says)
    "run-concurrency-above-the-configs-bound": (
        ["run", "assay.yaml", "--concurrency", "1025"],
        "'--concurrency' / '-j': 1025 is not in the range 1<=x<=1024"),
    "run-epochs-above-the-configs-bound": (
        ["run", "assay.yaml", "--epochs", "10001"],
        "'--epochs': 10001 is not in the range 1<=x<=10000"),
    "rejudge-concurrency-above-the-configs-bound": (
        ["rejudge", "--concurrency", "1025"],
        "'--concurrency' / '-j': 1025 is not in the range 1<=x<=1024"),
    "run-output-empty": (
        ["run", "assay.yaml", "-o", ""], "'--output' / '-o': the folder name is empty"),
    "run-output-dash": (
        ["run", "assay.yaml", "-o", "-"], "'--output' / '-o': '-' would be a folder named '-'"),
    "run-junit-empty": (
        ["run", "assay.yaml", "--junit", ""], "'--junit': the file name is empty"),
    "run-junit-dash": (
        ["run", "assay.yaml", "--junit", "-"], "'--junit': '-' would be a file named '-'"),
    "run-store-empty": (
        ["run", "assay.yaml", "--store", ""], "'--store': the value is empty"),
    "runs-store-empty": (["runs", "--store", ""], "'--store': the value is empty"),
    "run-resume-empty": (
        ["run", "assay.yaml", "--resume", ""], "'--resume': the value is empty"),
    "rejudge-judge-model-empty": (
        ["rejudge", "--judge-model", ""], "'--judge-model': the value is empty"),
    "report-experiment-empty": (
        ["report", "-e", ""], "'--experiment' / '-e': the value is empty"),
    "traces-judge-model-empty": (
        ["traces", "logs", "--judge-model", ""], "'--judge-model': the value is empty"),
    "traces-experiment-empty": (
        ["traces", "logs", "--experiment", ""], "'--experiment': the value is empty"),
    "init-name-empty": (["init", "new", "--name", ""], "'--name': the value is empty"),
    "runs-experiment-empty": (["runs", ""], "'[EXPERIMENT]': the value is empty"),
    "history-experiment-empty": (["history", ""], "'[EXPERIMENT]': the value is empty"),
    "history-metric-empty": (["history", "-m", ""], "'--metric' / '-m': the value is empty"),
    "export-organization-empty": (
        ["export", "--organization", ""], "'--organization': the value is empty"),
    "pack-name-empty": (["pack", "index", "docs", "--name", ""], "'--name': the value is empty"),
    "report-output-empty": (
        ["report", "latest", "-o", ""], "'--output' / '-o': the file name is empty"),
    "compare-output-dash": (
        ["compare", "-o", "-"], "'--output' / '-o': '-' would be a file named '-'"),
    "compare-judge-model-without-pairwise": (
        ["compare", "--judge-model", "openai/gpt-4.1"],
        "--judge-model openai/gpt-4.1 picks the judge of --pairwise"),
    "export-output-empty": (
        ["export", "latest", "-o", ""], "'--output' / '-o': the folder name is empty"),
    "calibrate-min-agreement-nan": (
        ["calibrate", "assay.yaml", "--min-agreement", "nan"],
        "'--min-agreement': nan is not a number"),
    "calibrate-min-kappa-nan": (
        ["calibrate", "assay.yaml", "--min-kappa", "nan"], "'--min-kappa': nan is not a number"),
    "calibrate-list-with-output": (
        ["calibrate", "--list", "-o", "list.txt"],
        "so --output list.txt would be ignored"),
    "calibrate-list-with-a-spec-and-run": (
        ["calibrate", "assay.yaml", "--list", "--run", "latest"],
        "so assay.yaml, --run latest would be ignored"),
    "traces-output-empty": (
        ["traces", "logs", "-o", ""], "'-o' / '--output': the folder name is empty"),
    "traces-no-store-with-experiment": (
        ["traces", "logs", "--no-store", "--experiment", "nightly"],
        "--no-store records nothing, so --experiment nightly would be ignored"),
    "traces-no-store-with-store": (
        ["traces", "logs", "--no-store", "--store", "team.db"],
        "--no-store records nothing, so --store team.db would be ignored"),
    "traces-judge-timeout-nan": (
        ["traces", "logs", "--judge-model", "openai/gpt-4.1", "--judge-timeout", "nan"],
        "'--judge-timeout': nan is not a number"),
    "traces-judge-timeout-infinite": (
        ["traces", "logs", "--judge-model", "openai/gpt-4.1", "--judge-timeout", "inf"],
        "'--judge-timeout': inf is not in the range 0<x<=604800"),
    "traces-export-output-dash": (
        ["traces", "export", "logs", "-o", "-"], "'-o' / '--output': '-' would be a file"),
    "init-directory-empty": (["init", ""], "the folder name is empty"),
    "validate-config-empty": (["validate", ""], "the path name is empty"),
    "run-config-empty": (["run", ""], "the file name is empty"),
    "pack-cache-empty": (
        ["pack", "index", "docs", "--cache", ""], "'--cache': the folder name is empty"),
    "pack-top-k-without-query": (
        ["pack", "index", "docs", "--top-k", "3"],
        "--top-k 3 is how many passages --query prints"),
    "pack-query-empty": (["pack", "index", "docs", "--query", ""], "--query is empty"),
    "runs-format-json": (
        ["runs", "--format", "json"], ("assay runs has no option --format: it prints JSON with "
                                      "--json")),
    "compare-f-json": (
        ["compare", "-f", "json"], "assay compare has no option -f: it prints JSON with --json"),
    "report-json": (
        ["report", "latest", "--json"],
        "assay report has no option --json: it writes JSON with --format json (-f json)"),
    "calibrate-json": (
        ["calibrate", "assay.yaml", "--json"],
        "assay calibrate has no option --json: it writes JSON with --format json (-f json)"),
    "pack-serve-port-over-stdio": (
        ["pack", "serve", "docs", "--port", "9000"],
        "--port 9000 would be ignored: over stdio the client starts the server"),
}


def _files(root: Path) -> set[Path]:
    return set(root.rglob("*"))


@pytest.mark.parametrize(("args", "said"), CASES.values(), ids=CASES.keys())
def test_a_bad_argument_is_refused_naming_the_option_and_value_before_any_work(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        args: list[str], said: str) -> None:
    """Regressions: `--concurrency 100000000` started that many workers until the machine ran
    out of memory and `--epochs 100000000000` never began; `-o ""` (an unset variable) wrote
    into the working folder or counted as no option, as `--resume ""` started a new run and
    `--judge-model ""` judged nothing; `-o -` wrote a file (or folder) named
    `-`; `--judge-model` without `--pairwise`, `--top-k` without `--query`, `--port` over
    stdio, `--no-store` with `--experiment` and `--list` with `-o` were ignored, exit 0;
    `assay compare --format json` was asked "Did you mean '--force'?", `assay report --json`
    "Did you mean '--store'?", where the command's own spelling of JSON is the answer."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ASSAY_STORE", str(tmp_path / "s.db"))
    write_project(tmp_path, {"agent": {"rate": 1.0}}, cases=1)
    (tmp_path / "logs").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "go.md").write_text("# Go\n\nGoroutines are cheap threads.\n")
    before = _files(tmp_path)
    code, text = assay(capsys, *args)
    assert code == 2, text
    assert said in text
    assert "Traceback" not in text and "internal error" not in text
    assert _files(tmp_path) == before  # nothing ran, nothing was written
