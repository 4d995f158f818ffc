"""assay inside pytest: an eval is a test that passes or fails on its thresholds.

    def test_support_agent(assay_eval):
        assay_eval("evals/support.yaml", thresholds={"contains": 0.8})

The plugin (`plugin`, loaded by pytest through the `pytest11` entry point)
gives the `assay_eval` fixture and the `assay` marker; `thresholds` turns
`--fail-under`-style thresholds into gates; `running` runs a config or
`assay.evaluate` arguments on the same engine and store as `assay run`;
`failure` writes the report pytest shows when an eval misses its gates. A
type-checked test annotates the fixture as `EvalRunner`.

May import the Python API (`assay.api`), config, review, reports (the words a
comparison's changes are named by), store, and only
when a test asks for an eval: loading the plugin imports pytest and nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from assay.pytest_plugin.failure import EvalFailed, assert_eval
    from assay.pytest_plugin.plugin import EvalRunner

__all__ = ["EvalFailed", "EvalRunner", "assert_eval"]

_HOMES = {"EvalFailed": "failure", "assert_eval": "failure", "EvalRunner": "plugin"}


if not TYPE_CHECKING:  # a type checker sees the names above, and flags any other
    def __getattr__(name: str) -> Any:
        """Import the public names on first use: pytest loads this package in every session."""
        if name in _HOMES:
            import importlib

            return getattr(importlib.import_module(f"assay.pytest_plugin.{_HOMES[name]}"), name)
        raise AttributeError(f"module 'assay.pytest_plugin' has no attribute {name!r}")
