"""Persistence of runs, trials, scores and the response cache (SQLite or PostgreSQL)."""

from assay.store.store import RunInfo, Store, store_url

__all__ = ["RunInfo", "Store", "store_url"]
