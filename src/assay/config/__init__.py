"""The config file: pydantic models, loading with located errors, and the JSON Schema.

Owns reading YAML with line numbers (`yaml_source`), `${VAR}` interpolation,
validation into `models` (their counts' and times' bounds in `bounds`, which the
command line's options read too; the base every model read from a config derives from,
in `config_model`), the k-eval import (`keval`), suite files
(`suite_file`) and sandboxed templates (`templates`). The code a config names
is imported and called by `assay.user_code`. The lowest layer: imports only
the root nouns, errors and the registry.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from assay.config.loading import LoadedConfig, load_config
    from assay.config.models import EvalConfig

__all__ = ["EvalConfig", "LoadedConfig", "load_config"]

_HOMES = {"EvalConfig": "assay.config.models", "LoadedConfig": "assay.config.loading",
          "load_config": "assay.config.loading"}


def __getattr__(name: str) -> Any:
    """Import on first use: `assay.config.templates` must not load the whole loader."""
    if name in _HOMES:
        import importlib

        return getattr(importlib.import_module(_HOMES[name]), name)
    raise AttributeError(f"module 'assay.config' has no attribute {name!r}")
