"""Targets: what is under test, registered by kind name."""

from assay.targets.base import Target, TargetParams

__all__ = ["Target", "TargetParams"]
