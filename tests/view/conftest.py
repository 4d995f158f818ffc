"""A store with planted payloads, the viewer serving it, and (for the browser tests) the
system's headless Chromium driven by Playwright.

Each fixture lives for a module: building the store, starting the app and starting
the browser happen once per test file.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.view.stores import Browsable, build

if TYPE_CHECKING:
    from playwright.sync_api import Browser

    from assay.store import Store

CHROMIUM_NAMES = ("chromium", "chromium-browser")


@pytest.fixture(scope="module")
def browsable(tmp_path_factory: pytest.TempPathFactory) -> Browsable:
    """The runs of `tests.view.stores`, written to a fresh SQLite store."""
    return build(str(tmp_path_factory.mktemp("view") / "assay.db"))


@pytest.fixture(scope="module")
def viewed_store(browsable: Browsable) -> Iterator[Store]:
    """That store opened as `assay view` opens it: read-only."""
    from assay.view.server import open_for_viewing

    store = open_for_viewing(browsable.url)
    yield store
    store.close()


@pytest.fixture(scope="module")
def viewer(viewed_store: Store) -> Iterator[str]:
    """The base URL (`http://127.0.0.1:PORT/`) of the viewer over `viewed_store`."""
    from assay.testing.viewer import ViewerThread

    with ViewerThread(viewed_store) as url:
        yield url


def chromium_path() -> str:
    """The system Chromium (Debian's `chromium`, as `.ci/run` installs it).

    Missing, a browser test fails under `CI=true` (CI installs it, so a missing browser
    is a broken CI, not a reason to pass) and is skipped elsewhere."""
    found = os.environ.get("ASSAY_TEST_CHROMIUM") or next(
        (path for name in CHROMIUM_NAMES if (path := shutil.which(name))), None)
    if found and Path(found).is_file():
        return found
    message = "no Chromium found (install Debian's chromium, or set ASSAY_TEST_CHROMIUM)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message + " (CI=true: .ci/run installs it)")
    pytest.skip(message)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """One headless Chromium for the whole module, driven by Playwright (no browser
    download: Playwright starts the system's Chromium)."""
    executable = chromium_path()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, headless=True)
        yield launched
        launched.close()
