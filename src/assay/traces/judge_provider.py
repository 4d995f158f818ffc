"""Opening a judge provider from a `provider/model` string, through the provider pool."""

from __future__ import annotations

from assay.providers.base import Provider
from assay.services import Services


def open_provider(model: str, services: Services,
                  timeout: float | None = None) -> tuple[Provider, str]:
    """A provider for `provider/model` and the model name it knows; `UserError` if none.

    `timeout` is the seconds one attempt may take (the `timeout:` of a config's
    `providers:` entry), so a judge that hangs fails in that time, not the default's.

    The pool lives in `services` (closed by `services.aclose()`), and uses the
    store's response cache when `services.store` is set, so judging the same
    exchanges again costs nothing.
    """
    from assay.providers.pool import get_pool

    pool = get_pool(services)
    if timeout is not None:
        pool.configure(model, timeout=timeout)
    return pool.resolve(model)
