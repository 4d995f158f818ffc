"""The Plan: cases x conditions x epochs, with the targets and scorers that serve them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from assay.case import Case
from assay.condition import Condition
from assay.config.loading import LoadedConfig
from assay.datasets.dataset import Dataset, open_dataset
from assay.errors import ArgumentError, Problem, UserError
from assay.input_files import require_regular_file
from assay.registry import scorers as scorer_registry
from assay.registry import targets as target_registry
from assay.scorers.base import Scorer, ScorerParams
from assay.services import Services
from assay.targets.base import Target, TargetParams
from assay.trial import TrialKey


@dataclass
class Plan:
    """Everything a run executes, built from a loaded config."""

    dataset: Dataset
    conditions: list[Condition]
    targets: dict[str, Target]
    scorers: list[Scorer]
    epochs: int
    skip: set[TrialKey] = field(default_factory=set)
    """Trials already stored (when resuming)."""

    @property
    def trial_scorers(self) -> list[Scorer]:
        """The scorers that score each trial as it finishes."""
        return [s for s in self.scorers if not getattr(s, "deferred", False)]

    @property
    def pair_scorers(self) -> list[Scorer]:
        """The scorers that need two conditions' outputs at once (`pairwise` against the
        baseline condition): the runner judges them once every trial is stored."""
        return [s for s in self.scorers if getattr(s, "deferred", False)]

    @property
    def total(self) -> int:
        return len(self.dataset) * len(self.conditions) * self.epochs

    @property
    def remaining(self) -> int:
        return self.total - len(self.skip)

    def require_trials(self) -> None:
        """A plan with no trial is a mistake (a tag filter that matches nothing), never a pass."""
        if self.total == 0:
            from assay.errors import UserError

            cases = len(self.dataset)
            why = (f"the dataset {self.dataset.path} gives no case"
                   + (f" with tags {', '.join(self.dataset.tags)}" if self.dataset.tags else "")
                   if cases == 0 else "no condition is selected")
            raise UserError(f"nothing to run: {why}")

    def validate_templates(self, loaded: LoadedConfig) -> None:
        """Render every template of the target and the scorers for the first case: a misspelt
        variable (`{{ expcted }}`) is a config error (exit 2) with file, line and field, found
        by `assay validate` and `assay run` alike, not an error on every trial later."""
        first = next(iter(self.dataset), None)
        if first is None:
            return
        problems = [scorer_problem(loaded, index, problem)
                    for index, scorer in enumerate(self.scorers)
                    for problem in scorer.template_problems(first)]
        for target in self.targets.values():
            problems += [target_problem(loaded, target.condition.name, problem)
                         for problem in target.template_problems(first)]
        if problems:
            unique = {str(problem): problem for problem in problems}  # conditions share a target
            raise UserError(f"invalid config {loaded.written_path}", list(unique.values()))

    def check_conditions(self, loaded: LoadedConfig) -> list[str]:
        """Refuse a condition whose tools or context its target kind would ignore (exit 2,
        located), and return a warning for each declared MCP server no condition uses:
        either way the conditions would differ less than the config says."""
        problems = []
        for target in self.targets.values():
            condition = target.condition
            ignored = [key for key in condition.tool_keys() if key not in target.honours]
            for key in ignored:
                where = ("conditions", condition.name, key)
                who = ("only an agent target" if key != "context"
                       else "only a model or agent target")
                problems.append(Problem(
                    f"condition '{condition.name}' sets {key}, but a {target.kind} target "
                    f"never uses it ({who} does): the condition would differ from the "
                    "others in name only", *located(loaded, where)))
            if not ignored and not condition.mcp_servers:
                problems += _requirements_without_servers(loaded, condition.name,
                                                          condition.tool_keys())
        if problems:
            raise UserError(f"invalid config {loaded.written_path}", problems)
        used = {server for condition in loaded.conditions for server in condition.mcp_servers}
        return [f"MCP server '{name}' is declared under mcp_servers but no condition uses it"
                for name in loaded.config.mcp_servers if name not in used]

    def check_mcp_programs(self, loaded: LoadedConfig) -> None:
        """Every stdio MCP server a condition of this plan starts names a program that is
        there (exit 2, located at its `mcp_servers.NAME.command`), as a command target's
        must be: a missing one passed `assay validate`, and `assay run` stopped on it with
        exit 3 ('failed to start: command not found'), as if a working server had died.
        So is its `cwd`, a folder (located at `mcp_servers.NAME.cwd`)."""
        from assay.context.mcp_config import McpServerConfig
        from assay.input_files import find_program, require_directory

        used = dict.fromkeys(server for condition in self.conditions
                             for server in condition.mcp_servers)
        problems = []
        for name in used:
            declared = loaded.config.mcp_servers.get(name)
            if declared is None or declared.get("type", "stdio") != "stdio":
                continue  # `pack:NAME`, or a server over HTTP
            server = McpServerConfig.model_validate(declared)
            if server.cwd is not None:
                try:
                    require_directory(server.working_directory(loaded.base_dir),
                                      f"MCP server '{name}': its cwd")
                except UserError as exc:
                    problems.append(Problem(str(exc),
                                            *located(loaded, ("mcp_servers", name, "cwd"))))
                    continue
            try:
                find_program(server.command or "", cwd=server.working_directory(loaded.base_dir),
                             path=server.search_path(), who=f"MCP server '{name}'")
            except UserError as exc:
                problems.append(Problem(str(exc),
                                        *located(loaded, ("mcp_servers", name, "command"))))
        if problems:
            raise UserError(f"invalid config {loaded.written_path}", problems)

    def check_packs(self, loaded: LoadedConfig) -> None:
        """Every pack a condition of this plan reads is a folder (exit 2, located at its
        `packs.NAME.path`): a missing one is the config's mistake, found before a trial
        runs, not the error of each trial of its condition once the others have been paid."""
        from assay.input_files import require_directory

        problems = []
        for name in self.used_packs():
            path = (loaded.config.packs.get(name) or {}).get("path")
            if not isinstance(path, str):
                continue  # the loader has refused it already
            candidate = Path(path).expanduser()
            try:
                require_directory(candidate if candidate.is_absolute()
                                  else loaded.base_dir / candidate, "pack folder")
            except UserError as exc:
                problems.append(Problem(str(exc), *located(loaded, ("packs", name, "path"))))
        if problems:
            raise UserError(f"invalid config {loaded.written_path}", problems)

    def used_packs(self) -> list[str]:
        """The packs the plan's conditions read, each once, in the order they appear."""
        from assay.context.pack_context import used_packs

        return list(dict.fromkeys(name for condition in self.conditions
                                  for name in used_packs(condition)))

    def trials(self) -> Iterator[tuple[Case, Condition, int]]:
        """The trials still to run, streamed in dataset order."""
        skip = self.skip
        for case in self.dataset:
            for condition in self.conditions:
                for epoch in range(self.epochs):
                    if (case.id, condition.name, epoch) not in skip:
                        yield case, condition, epoch


def build_plan(loaded: LoadedConfig, services: Services, *, sample: int | None = None,
               conditions: list[str] | None = None, dataset: Dataset | None = None) -> Plan:
    """Resolve the dataset, one target per condition, and the scorers (nothing starts yet).

    A `dataset` given (cases held in memory) is used as built, in place of the config's file.
    """
    config = loaded.config
    if dataset is None and config.dataset.hf is not None:
        from assay.datasets.hub import open_hub_dataset

        try:
            dataset = open_hub_dataset(
                config.dataset.hf, base_dir=services.base_dir, split=config.dataset.split,
                revision=config.dataset.revision, subset=config.dataset.subset,
                fields=config.dataset.fields,
                sample=sample or config.run.sample or config.dataset.sample,
                seed=config.run.seed, tags=config.dataset.tags)
        except UserError as exc:  # a folder that is not there: the config's `dataset.hf`
            raise _located(loaded, ("dataset", "hf"), exc) from None
    if dataset is None:
        assert config.dataset.path is not None  # the config holds `path:` or `hf:`
        path = services.resolve_path(config.dataset.path)
        _require_dataset_file(loaded, path)
        dataset = open_dataset(
            path,
            format=config.dataset.format,
            fields=config.dataset.fields,
            sample=sample or config.run.sample or config.dataset.sample,
            seed=config.run.seed,
            tags=config.dataset.tags,
        )
    chosen = chosen_conditions(loaded, conditions)
    target_cls = target_registry.get(config.target["type"])
    # The loader validated each entry with its kind's own Params class.
    targets = {c.name: target_cls(cast("TargetParams", loaded.target_params[c.name]), c, services)
               for c in chosen}
    scorers = _build_scorers(loaded, services)
    _check_pair_scorers(loaded, scorers, [c.name for c in chosen])
    return Plan(dataset=dataset, conditions=chosen, targets=targets, scorers=scorers,
                epochs=config.run.epochs)


def _require_dataset_file(loaded: LoadedConfig, path: Path) -> None:
    """A dataset that is not there (or not a file) is the config's `dataset.path` problem:
    the error names the config's file and line, as every other config problem does."""
    try:
        require_regular_file(path, "dataset")
    except UserError as exc:
        raise _located(loaded, ("dataset", "path"), exc) from None


def _located(loaded: LoadedConfig, key: tuple[str, ...], exc: UserError) -> UserError:
    """`exc`, a problem of the config's `key`, as an error naming the config's file and line."""
    return UserError(f"invalid config {loaded.written_path}",
                     [Problem(str(exc), *located(loaded, key))])


def chosen_conditions(loaded: LoadedConfig, conditions: list[str] | None) -> list[Condition]:
    """The config's conditions a run is limited to (`--condition`; all when None), in the
    config's order; a name the config does not have is refused, naming those it has."""
    if conditions:
        unknown = sorted(set(conditions) - {c.name for c in loaded.conditions})
        if unknown:
            names = ", ".join(c.name for c in loaded.conditions)
            such = "such conditions" if len(unknown) > 1 else "such condition"
            raise ArgumentError(f"--condition {', '.join(unknown)}: the config has no {such} "
                                f"(conditions: {names})")
    return [c for c in loaded.conditions if not conditions or c.name in conditions]


def _check_pair_scorers(loaded: LoadedConfig, scorers: list[Scorer], chosen: list[str]) -> None:
    """A scorer that pairs conditions needs two of them, and its baseline among them."""
    problems = []
    for index, scorer in enumerate(scorers):
        if not getattr(scorer, "deferred", False):
            continue
        baseline = getattr(scorer.params, "baseline", None)
        if len(chosen) < 2:
            problems.append(scorer_problem(loaded, index, Problem(
                f"scorer '{scorer.name}' compares conditions, but this run has "
                f"{len(chosen)} ({', '.join(chosen)}); add a condition or use "
                "`against: reference`", field="against")))
        elif baseline is not None and baseline not in chosen:
            problems.append(scorer_problem(loaded, index, Problem(
                f"baseline '{baseline}' is not a condition of this run (conditions: "
                f"{', '.join(chosen)})", field="baseline")))
    if problems:
        raise UserError(f"invalid config {loaded.written_path}", problems)


def _build_scorers(loaded: LoadedConfig, services: Services) -> list[Scorer]:
    """Construct every scorer; the `UserError`s they raise are reported together, each
    located at its config entry."""
    built: list[Scorer] = []
    problems: list[Problem] = []
    for index, params in enumerate(loaded.scorer_params):
        try:
            kind: str = params.type  # type: ignore[attr-defined]
            built.append(scorer_registry.get(kind)(cast("ScorerParams", params), services))
        except UserError as exc:
            problems.extend(scorer_problem(loaded, index, problem)
                            for problem in exc.problems or [Problem(str(exc))])
    if problems:
        raise UserError(f"invalid config {loaded.written_path}", problems)
    return built


REQUIREMENT_WITHOUT_SERVERS = {
    "require_mcp_tool_use": "every trial would break it, however often it is retried",
    "require_mcp_tool_success": "no tool call could fail it, so it would change nothing",
}
"""Why a tool requirement of a condition that offers no MCP server is a mistake."""


def _requirements_without_servers(loaded: LoadedConfig, condition: str,
                                  keys: list[str]) -> list[Problem]:
    """A problem for each tool requirement of a condition whose agent has no tool to call."""
    return [Problem(f"condition '{condition}' sets {key}, but offers the agent no MCP server "
                    f"to call: {why}; name its servers with mcp_servers: [NAME] (a pack's: "
                    "[pack:NAME])", *located(loaded, ("conditions", condition, key)))
            for key, why in REQUIREMENT_WITHOUT_SERVERS.items() if key in keys]


def located(loaded: LoadedConfig, where: tuple[str | int, ...]) -> tuple[str, int | None, str]:
    """The file, line and dotted field of a config value, for a Problem."""
    line = loaded.source.line(where) if loaded.source is not None else None
    return loaded.written_path, line, ".".join(map(str, where))


async def check_target(loaded: LoadedConfig, target: Target, *, start: bool) -> None:
    """`target.start()` (or `validate()`), with what it refuses (a function that does not
    import, a program not on PATH) located at the config key it checked, file and line."""
    try:
        await (target.start() if start else target.validate())
    except UserError as exc:
        if exc.problems or target.checked_key is None:
            raise
        problem = Problem(str(exc), field=target.checked_key)
        raise UserError(f"invalid config {loaded.written_path}",
                        [target_problem(loaded, target.condition.name, problem)]) from None


def target_problem(loaded: LoadedConfig, condition: str, problem: Problem) -> Problem:
    """`problem` about a target param (`field` e.g. `prompt`), located where it is set: in the
    condition when it overrides the key, else under `target:`."""
    key = problem.field or ""
    overrides = loaded.config.conditions[condition].overrides() if (
        condition in loaded.config.conditions) else {}
    where = ("conditions", condition, key) if key in overrides else ("target", key)
    return Problem(problem.message, *located(loaded, where))


def scorer_problem(loaded: LoadedConfig, index: int, problem: Problem) -> Problem:
    """`problem` about scorer `index` (its `field` relative to the scorer, e.g. `value`), with
    the config file, the line and the full field path (`scorers.2.value`)."""
    if problem.file is not None:  # already located, e.g. in a schema file of its own
        return problem
    relative = tuple(int(part) if part.isdigit() else part
                     for part in (problem.field or "").split(".") if part)
    where = ("scorers", index, *relative)
    return Problem(problem.message, *located(loaded, where))
