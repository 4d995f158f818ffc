"""Judging the labelled items now, with a config's own judge scorer.

The labels file holds what people saw: the question, the expected answer
and the output they judged (or the two outputs of a preference). The
config's judge scorer, built exactly as a run builds it (its model,
prompt, rubric and repeats), judges the same items, so the calibration is
of the judge the config will run.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, cast

from assay.calibration.labels import HumanLabels, LabelledItem
from assay.calibration.verdicts import JudgeVerdicts, read_score
from assay.config.calibration import JudgeIdentity
from assay.config.loading import scorer_name, scorer_type
from assay.errors import ProblemList, UserError
from assay.output import Output
from assay.registry import scorers as scorer_registry
from assay.score import Score
from assay.services import Services

if TYPE_CHECKING:
    from assay.config.loading import LoadedConfig
    from assay.scorers.base import ScorerParams
    from assay.scorers.judges.base import JudgeScorer
    from assay.store import Store


def judged_scorer_names(loaded: LoadedConfig) -> list[str]:
    """The config's scorers that an LLM judges (they take a judge `model:`)."""
    return [scorer_name(p) for p in loaded.scorer_params
            if "model" in type(p).model_fields and "prompt" in type(p).model_fields]


def pick_scorer(loaded: LoadedConfig, name: str | None) -> str:
    """The scorer to calibrate: `name`, or the config's only judged scorer."""
    judged = judged_scorer_names(loaded)
    if name is not None:
        if name not in judged:
            raise UserError(f"{loaded.written_path}: no judged scorer '{name}' (judged scorers: "
                            f"{', '.join(judged) or 'none'})")
        return name
    if len(judged) != 1:
        raise UserError(f"{loaded.written_path}: {len(judged)} judged scorers "
                        f"({', '.join(judged) or 'none'}); name one with --scorer or "
                        "calibration.scorer")
    return judged[0]


def build_judge(loaded: LoadedConfig, name: str, services: Services) -> JudgeScorer:
    """The config's scorer `name`, built as a run builds it."""
    for params in loaded.scorer_params:
        if scorer_name(params) == name:
            built = scorer_registry.get(scorer_type(params))(
                cast("ScorerParams", params), services)
            return cast("JudgeScorer", built)
    raise UserError(f"{loaded.written_path}: no scorer '{name}'")


def judge_items(loaded: LoadedConfig, name: str, labels: HumanLabels, store: Store | None, *,
                metric: str | None = None, use_cache: bool = True) -> JudgeVerdicts:
    """Judge every labelled item with the config's scorer `name` (blocking)."""
    return asyncio.run(_judge_items(loaded, name, labels, store, metric, use_cache))


async def _judge_items(loaded: LoadedConfig, name: str, labels: HumanLabels,
                       store: Store | None, metric: str | None,
                       use_cache: bool) -> JudgeVerdicts:
    require_answers(labels)
    services = Services(base_dir=loaded.base_dir, config=loaded.config, store=store,
                        use_cache=use_cache)
    judge = build_judge(loaded, name, services)
    found = JudgeVerdicts(JudgeIdentity(model=judge.model, prompt_hash=judge.prompt_hash,
                                        rubric_version=judge.rubric_version),
                          f"judged now by '{name}' of {loaded.path.name}")
    limit = asyncio.Semaphore(loaded.config.run.concurrency)

    async def one(item: LabelledItem) -> tuple[str, Score]:
        async with limit:
            return item.id, await _judge(judge, item, labels.kind)

    try:
        await judge.setup()
        for item_id, score in await asyncio.gather(*(one(i) for i in labels.items.values())):
            read_score(found, item_id, score, labels.kind, metric)
    finally:
        await services.aclose()
    found.notes += list(services.warnings)
    return found


def require_answers(labels: HumanLabels) -> None:
    """Refuse, before any judge call, labelled items that hold no answer to judge: it is the
    labels file that lacks it (an unmapped `output:`), not the judge that failed on it."""
    names = ("output_a", "output_b") if labels.kind == "preference" else ("output",)
    problems = ProblemList()
    for item in labels.items.values():
        for name in names:
            if item.fields.get(name) is None:
                problems.add(f"item {item.id} has no {name} for the judge to grade; map it "
                             f"with fields: {{{name}: ...}}", file=str(labels.path),
                             line=item.line, field=name)
    problems.raise_if_any(f"the labels in {labels.path} give the judge nothing to grade")


async def _judge(judge: JudgeScorer, item: LabelledItem, kind: str) -> Score:
    case = item.case()
    if kind == "preference":
        pair = getattr(judge, "judge_pair", None)
        if pair is None:
            raise UserError(f"the labels are preferences, but scorer '{judge.name}' is a "
                            f"{judge.params.type} judge: calibrate a pairwise scorer")
        first, second = item.fields["output_a"], item.fields["output_b"]  # require_answers
        result: Score = await pair(case, str(first), str(second), against="a")
        return result
    return await judge.score(case, Output(text=str(item.fields["output"])))
