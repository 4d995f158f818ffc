"""The config file: models, loading with located errors, and the JSON Schema."""

from assay.config.loading import LoadedConfig, load_config
from assay.config.models import EvalConfig

__all__ = ["EvalConfig", "LoadedConfig", "load_config"]
