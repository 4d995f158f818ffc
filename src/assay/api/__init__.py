"""The Python API: `assay.evaluate` and `evaluate_async`, on the same engine as `assay run`.

Owns turning function arguments into a config (`arguments`) and the call
that runs and reviews it (`evaluate`), and how a suite of configs starts or
resumes (`suite_start`, over the suite's runs in `suite_runs`). May import config, datasets, runner,
store, review, reports and user_code; nothing below imports it.
"""

from assay.api.evaluate import EvalResult, evaluate, evaluate_async

__all__ = ["EvalResult", "evaluate", "evaluate_async"]
