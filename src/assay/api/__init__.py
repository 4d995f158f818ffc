"""The Python API: `assay.evaluate` and `evaluate_async`, on the same engine as `assay run`.

Owns turning function arguments into a config (`arguments`) and the call
that runs and reviews it (`evaluate`). May import config, datasets, runner,
store, review, reports and user_code; nothing below imports it.
"""

from assay.api.evaluate import EvalResult, evaluate, evaluate_async

__all__ = ["EvalResult", "evaluate", "evaluate_async"]
