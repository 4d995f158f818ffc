"""Opening a judge provider from a `provider/model` string, through the provider pool."""

from __future__ import annotations

from assay.providers.base import Provider
from assay.services import Services


def open_provider(model: str, services: Services) -> tuple[Provider, str]:
    """A provider for `provider/model` and the model name it knows; `UserError` if none.

    The pool lives in `services` (closed by `services.aclose()`), and uses the
    store's response cache when `services.store` is set, so judging the same
    exchanges again costs nothing.
    """
    from assay.providers.pool import get_pool

    return get_pool(services).resolve(model)
