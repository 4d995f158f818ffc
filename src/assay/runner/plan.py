"""The Plan: cases x conditions x epochs, with the targets and scorers that serve them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from assay.case import Case
from assay.condition import Condition
from assay.config.loading import LoadedConfig
from assay.dataset import Dataset, open_dataset
from assay.registry import scorers as scorer_registry
from assay.registry import targets as target_registry
from assay.scorers.base import Scorer
from assay.services import Services
from assay.targets.base import Target
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
    def total(self) -> int:
        return len(self.dataset) * len(self.conditions) * self.epochs

    @property
    def remaining(self) -> int:
        return self.total - len(self.skip)

    def check_not_empty(self) -> None:
        """A plan with no trial is a mistake (a tag filter that matches nothing), never a pass."""
        if self.total == 0:
            from assay.errors import UserError

            cases = len(self.dataset)
            why = (f"the dataset {self.dataset.path} gives no case"
                   + (f" with tags {', '.join(self.dataset.tags)}" if self.dataset.tags else "")
                   if cases == 0 else "no condition is selected")
            raise UserError(f"nothing to run: {why}")

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
    if dataset is None:
        dataset = open_dataset(
            services.resolve_path(config.dataset.path),
            format=config.dataset.format,
            fields=config.dataset.fields,
            sample=sample or config.run.sample or config.dataset.sample,
            seed=config.run.seed,
            tags=config.dataset.tags,
        )
    chosen = [c for c in loaded.conditions if not conditions or c.name in conditions]
    if conditions:
        unknown = sorted(set(conditions) - {c.name for c in loaded.conditions})
        if unknown:
            from assay.errors import UserError

            names = ", ".join(c.name for c in loaded.conditions)
            raise UserError(f"unknown condition(s) {', '.join(unknown)} (known: {names})")
    target_cls = target_registry.get(config.target["type"])
    targets = {c.name: target_cls(loaded.target_params[c.name], c, services) for c in chosen}
    scorers = [scorer_registry.get(p.type)(p, services) for p in loaded.scorer_params]
    return Plan(dataset=dataset, conditions=chosen, targets=targets, scorers=scorers,
                epochs=config.run.epochs)
