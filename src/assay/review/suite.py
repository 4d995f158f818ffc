"""Suites: many evals in one go, ending with a grand summary, as the all-packs evaluation does.

A suite is either several configs on the command line (`assay run configs/*.yaml`)
or a suite file, a YAML document with a top-level `suite:` list of config
paths or globs, relative to the suite file:

    suite:
      - packs/*/assay.yaml
      - extra/security.yaml

The grand summary has the shape of the Knowledge Packs `all_packs_evaluation.json`
(timestamp, packs_evaluated, sample_per_pack, grand_summary per condition with
avg, accuracy in percent and n, and per_pack score arrays). Each experiment is
summarised by its headline scorer, the first one its config lists.
"""

from __future__ import annotations

import glob
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from assay.analysis.summary import RunSummary
from assay.errors import Problem, UserError


def is_suite_file(path: Path) -> bool:
    """True when the YAML file at `path` has a top-level `suite:` key."""
    from assay.config.yaml_source import load_yaml

    try:
        data, _source = load_yaml(path)
    except UserError:
        return False  # not ours to report: loading it as a config says what is wrong
    return isinstance(data, dict) and "suite" in data


def expand_configs(arguments: Sequence[str]) -> tuple[list[Path], bool]:
    """The config files named by paths, globs and suite files; and whether it is a suite."""
    configs: list[Path] = []
    from_suite = False
    for argument in arguments:
        for path in _glob(argument, Path.cwd(), "command line"):
            if is_suite_file(path):
                from_suite = True
                configs += _suite_entries(path, seen={path.resolve()})
            else:
                configs.append(path)
    unique = list(dict.fromkeys(configs))
    return unique, from_suite or len(unique) > 1


def check_suite(paths: Sequence[Path], *, sample: int | None = None,
                conditions: list[str] | None = None) -> None:
    """Check every config of a suite as `assay validate` does, before any of them runs.

    A suite spends money config by config; finding the broken one after the
    others have run wastes it. Raises one UserError naming every invalid config.
    """
    problems: list[Problem] = []
    for path in paths:
        try:
            _check_config(path, sample, conditions)
        except UserError as exc:
            problems.append(Problem(str(exc).replace("\n", "\n    "), file=str(path)))
    if problems:
        raise UserError(f"{len(problems)} of {len(paths)} configs of the suite are invalid; "
                        "nothing was run", problems)


def _check_config(path: Path, sample: int | None, conditions: list[str] | None) -> None:
    """Config keys, dataset lines, condition names and targets; no trial runs, no call is paid."""
    import asyncio

    from assay.config import load_config
    from assay.runner.plan import build_plan
    from assay.services import Services

    loaded = load_config(path)
    plan = build_plan(loaded, Services(base_dir=loaded.base_dir, config=loaded.config),
                      sample=sample, conditions=conditions)
    plan.dataset.scan()
    plan.check_not_empty()

    async def check_targets() -> None:
        for target in plan.targets.values():
            await target.check()

    asyncio.run(check_targets())


def _suite_entries(suite: Path, seen: set[Path]) -> list[Path]:
    from assay.config.yaml_source import load_yaml

    data, _source = load_yaml(suite)
    entries = data.get("suite")
    extra = sorted(set(data) - {"suite", "name", "description"})
    if extra:
        raise UserError(f"{suite}: unknown key '{extra[0]}' in a suite file "
                        "(expected suite, name, description)")
    if not isinstance(entries, list) or not entries or not all(
            isinstance(e, str) for e in entries):
        raise UserError(f"{suite}: `suite:` must be a non-empty list of config paths or globs")
    out: list[Path] = []
    for entry in entries:
        for path in _glob(entry, suite.parent, str(suite)):
            if path.resolve() in seen:
                raise UserError(f"{suite}: suite '{path}' includes itself")
            if is_suite_file(path):
                out += _suite_entries(path, seen | {path.resolve()})
            else:
                out.append(path)
    return out


def _glob(pattern: str, base: Path, where: str) -> list[Path]:
    full = pattern if Path(pattern).is_absolute() else str(base / pattern)
    if glob.has_magic(pattern):
        matches = sorted(Path(p) for p in glob.glob(full, recursive=True) if Path(p).is_file())
        if not matches:
            raise UserError(f"{where}: no config file matches '{pattern}'")
        return [_relative(p) for p in matches]
    path = Path(full)
    if not path.is_file():
        raise UserError(f"{where}: config file '{pattern}' not found")
    return [_relative(path)]


def _relative(path: Path) -> Path:
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return path


@dataclass
class SuiteEntry:
    """One config of the suite, and how its run ended."""

    config: Path
    exit_code: int
    experiment: str | None = None
    run_id: str | None = None
    summary: RunSummary | None = None
    error: str | None = None


def grand_summary(entries: Sequence[SuiteEntry], *, sample: int | None) -> dict[str, Any]:
    """The all-packs document: totals per condition, and each experiment's scores."""
    per_pack: dict[str, Any] = {}
    totals: dict[str, dict[str, float]] = {}
    scorers: set[str] = set()
    for entry in entries:
        if entry.summary is None or not entry.summary.scorer_names:
            continue
        summary = entry.summary
        scorer = summary.scorer_names[0]
        scorers.add(scorer)
        name = _unique(entry.experiment or entry.config.stem, per_pack)
        block: dict[str, Any] = {}
        for condition in summary.condition_names:
            stats = summary.get(scorer, condition)
            if stats is None:
                continue
            block[condition] = _figures(stats.mean, stats.n, stats.passed, stats.judged)
            total = totals.setdefault(condition, {"sum": 0.0, "n": 0, "passed": 0, "judged": 0})
            total["sum"] += (stats.mean or 0.0) * stats.n
            total["n"] += stats.n
            total["passed"] += stats.passed
            total["judged"] += stats.judged
        per_pack[name] = {"scores": summary.values.get(scorer, {}), "scorer": scorer,
                          "summary": block, "run_id": entry.run_id, "config": str(entry.config),
                          "exit_code": entry.exit_code}
    return {
        "timestamp": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "packs_evaluated": len(per_pack),
        "sample_per_pack": sample,
        "grand_summary": {
            condition: _figures(t["sum"] / t["n"] if t["n"] else None, int(t["n"]),
                                int(t["passed"]), int(t["judged"]))
            for condition, t in totals.items()},
        "per_pack": per_pack,
        "scorers": sorted(scorers),
        "failed": [{"config": str(e.config), "exit_code": e.exit_code, "error": e.error}
                   for e in entries if e.summary is None],
        "exit_code": max((e.exit_code for e in entries), default=0),
    }


def _figures(mean: float | None, n: int, passed: int, judged: int) -> dict[str, Any]:
    """avg, accuracy (percent of verdicts that passed; None without verdicts) and n."""
    return {"avg": mean, "accuracy": passed / judged * 100 if judged else None, "n": n}


def _unique(name: str, taken: dict[str, Any]) -> str:
    if name not in taken:
        return name
    index = 2
    while f"{name}#{index}" in taken:
        index += 1
    return f"{name}#{index}"
