"""`assay view`: a local, read-only web app over the store.

Pages: the runs (filtered, with live progress), a run (its verdict first,
then scores, comparisons and gates), its cases side by side, one trial
(input, output, the agent's trajectory, each judge's reasoning), two runs
compared (the same views, and a history chart per metric), and `assay
traces` analyses.

Owns the app (`app`: routes, the host guard, the watch on the store's file,
templates and static files),
the pages, and the reviews it computes in the background (`reviews`); what
the pages ask of the store, a page at a time, is `store.browsing`. May
import the store, review, analysis and reports; nothing imports it but the
CLI and `assay.testing.viewer` (the app in a thread, for tests and
benchmarks). Starlette and uvicorn are imported only here (and there), so
other commands never load them.
"""

from assay.view.app import create_app

__all__ = ["create_app"]
