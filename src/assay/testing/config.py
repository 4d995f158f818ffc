"""A valid config in one call, for tests that build targets and scorers by hand.

Targets and scorers read the run's config through `Services.config`. Tests
of a plugin (or of assay) that build one directly need a real `EvalConfig`
with only the sections they care about:

    services = Services(config=eval_config(providers={"local": {...}}))
"""

from __future__ import annotations

from typing import Any

from assay.config.models import EvalConfig


def eval_config(**sections: Any) -> EvalConfig:
    """An `EvalConfig` with placeholder name, dataset, target and scorer, and `sections` on top."""
    document: dict[str, Any] = {
        "name": "test",
        "dataset": {"path": "cases.jsonl"},
        "target": {"type": "python", "function": "agent:answer"},
        "scorers": [{"type": "exact_match"}],
    }
    document.update(sections)
    return EvalConfig.model_validate(document)
