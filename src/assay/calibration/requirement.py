"""`judge: {require_calibration: true}`: no run with a judge that people have not checked.

Before a run spends anything, every judged scorer's judge (model, prompt
hash, rubric version) must have a passing calibration in the store. When
it has none, the run stops (exit 2) and says what changed since the
scorer's last passing calibration: the model, the prompt, the rubric or
pass rule, so the user knows why the old calibration no longer speaks for
this judge.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from assay.errors import Problem, UserError
from assay.shown_numbers import percent

if TYPE_CHECKING:
    from assay.records import CalibrationRecord
    from assay.store import Store


def require_calibrations(scorers: Sequence[Any], store: Store | None, *, experiment: str,
                         calibrate_with: str, locate: Callable[[int, Problem], Problem]) -> None:
    """Raise `UserError` naming every judged scorer without a passing calibration (`store`
    None: there is no store yet, so no calibration either). `locate(index, problem)` gives
    a problem about the scorer at `index` of the config its file, line and field;
    `calibrate_with` is what follows `assay calibrate` in the command the error suggests."""
    problems, names = [], []
    for index, scorer in enumerate(scorers):
        identity = _identity(scorer)
        if identity is None:
            continue
        model, prompt_hash, version = identity
        if store is not None and store.calibrations.passing(model, prompt_hash,
                                                            version) is not None:
            continue
        last = None if store is None else _last_passing(store, scorer.name, experiment)
        problems.append(locate(index, Problem(_why(scorer.name, identity, last))))
        names.append(scorer.name)
    if problems:
        raise UserError(f"judge.require_calibration: {len(problems)} judged scorer"
                        f"{'s have' if len(problems) > 1 else ' has'} no passing calibration "
                        f"({_how_to_calibrate(calibrate_with, names)})", problems)


def _how_to_calibrate(calibrate_with: str, names: Sequence[str]) -> str:
    """The command that calibrates each scorer named, with `--scorer`: without it, `assay
    calibrate CONFIG` calibrates the `calibration:` section's scorer alone, and a run refused
    for another judge would be refused again however often the command was followed."""
    if len(names) == 1:
        return f"calibrate with: assay calibrate {calibrate_with} --scorer {shlex.quote(names[0])}"
    return (f"calibrate each with: assay calibrate {calibrate_with} --scorer NAME, for "
            + ", ".join(shlex.quote(name) for name in names))


def _identity(scorer: Any) -> tuple[str, str, str | None] | None:
    model, prompt_hash = getattr(scorer, "model", None), getattr(scorer, "prompt_hash", None)
    if not model or not prompt_hash:
        return None  # not an LLM judge
    return str(model), str(prompt_hash), getattr(scorer, "rubric_version", None)


def _last_passing(store: Store, scorer: str, experiment: str) -> CalibrationRecord | None:
    for found in (store.calibrations.list(scorer=scorer, experiment=experiment, passed=True,
                                          limit=1),
                  store.calibrations.list(scorer=scorer, passed=True, limit=1)):
        if found:
            return found[0]
    return None


def _why(name: str, identity: tuple[str, str, str | None],
         last: CalibrationRecord | None) -> str:
    model, prompt_hash, version = identity
    if last is None:
        return (f"scorer '{name}': its judge ({model}, prompt {prompt_hash}) has never passed "
                "a calibration")
    changes = []
    if last.judge_model != model:
        changes.append(f"judge model {last.judge_model} -> {model}")
    if last.prompt_hash != prompt_hash:
        changes.append(f"prompt hash {last.prompt_hash} -> {prompt_hash} (the judge's "
                       "instructions or message template changed)")
    if last.rubric_version not in (None, version):
        changes.append(f"rubric version {last.rubric_version} -> {version} (a threshold, "
                       "metric or pass rule changed)")
    what = "; ".join(changes) or "its judge differs"
    return (f"scorer '{name}': changed since its last passing calibration {last.id} "
            f"({last.created_at[:10]}, agreement {percent(last.agreement)}): {what}"
            if last.agreement is not None else
            f"scorer '{name}': changed since its last passing calibration {last.id}: {what}")
