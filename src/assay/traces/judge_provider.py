"""Opening a judge provider from a `provider/model` string, through the provider layer."""

from __future__ import annotations

from assay.errors import UserError
from assay.providers.base import Provider


def open_provider(model: str) -> tuple[Provider, str]:
    """A provider for `provider/model` and the model name it knows; UserError if none."""
    try:
        from assay.providers import get_provider  # type: ignore[attr-defined]
    except ImportError:
        raise UserError(
            f"--judge-model {model}: this build of assay has no provider factory "
            "(assay.providers.get_provider), so no judge model can be opened"
        ) from None
    return get_provider(model)
