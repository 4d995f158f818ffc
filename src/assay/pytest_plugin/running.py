"""One eval run from a test: a config file, or the arguments of `assay.evaluate`.

Either way the run goes through the engine `assay run` uses, into the same
store (`--assay-store`, else `ASSAY_STORE`, else `.assay/assay.db` in the
working directory), so `assay runs` and `assay history` list it with the
others, and its `results.json`, `report.md` and `report.html` are written
under `.assay/runs/<run id>/` as usual.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.errors import UserError
from assay.input_files import require_regular_file

if TYPE_CHECKING:
    from assay.api.evaluate import EvalResult
    from assay.config.models import GateConfig

ConfigPath = str | os.PathLike[str]


def run_eval(config: ConfigPath | None, arguments: Mapping[str, Any], *, base_dir: Path,
             store: str | None, gates: list[GateConfig]) -> EvalResult:
    """Run the config at `config` (relative to `base_dir`), or `assay.evaluate(**arguments)`,
    with `gates` added to its own; returns the reviewed run."""
    _not_in_event_loop()
    if config is not None:
        if arguments:
            raise UserError(f"give a config path or assay.evaluate arguments, not both "
                            f"(got {config!r} and {', '.join(sorted(arguments))})")
        return _run_config(base_dir / Path(config), store=store, gates=gates)
    if "experiment" not in arguments:
        raise UserError("name the eval: a config path, or assay.evaluate arguments with "
                        "experiment=..., data=..., task=..., scorers=...")
    from assay.api.arguments import listed
    from assay.api.evaluate import evaluate

    given = dict(arguments)
    given["gates"] = [*listed(given.get("gates", ()), "gates"), *gates]
    given.setdefault("base_dir", base_dir)
    if store is not None:
        given.setdefault("store", store)
    return evaluate(**given)


def _run_config(path: Path, *, store: str | None, gates: list[GateConfig]) -> EvalResult:
    from assay.api.evaluate import EvalResult
    from assay.api.running import run_and_review
    from assay.config import load_config
    from assay.review.finish import ReviewRequest
    from assay.runner.options import RunOptions
    from assay.store import Store
    from assay.user_code.calls import run_loop

    require_regular_file(path, "config file")
    loaded = load_config(path)
    opened = Store(store)
    try:
        review = run_loop(run_and_review(loaded, opened, RunOptions(progress=False),
                                         ReviewRequest(extra_gates=list(gates))))
        return EvalResult.of(review, opened.url)
    finally:
        opened.close()


def _not_in_event_loop() -> None:
    """An async test: one message whether it named a config or `assay.evaluate` arguments
    (the arguments said `assay.evaluate()` could not block, and nothing of the plugin)."""
    from assay.api.evaluate import loop_running

    if not loop_running():
        return
    raise UserError("assay_eval cannot block inside a running event loop (an async test): "
                    "make the test a plain `def`, or await assay.evaluate_async(...) and "
                    "check it with assay.pytest_plugin.assert_eval")
