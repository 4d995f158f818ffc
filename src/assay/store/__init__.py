"""Persistence of runs, trials, scores and the response cache (SQLite or PostgreSQL).

Owns the tables (`schema`), their numbered migrations, and the mapping from
rows to the typed records of `assay.records`. May import the root nouns
only; everything after the runner reads runs through it.
"""

from assay.store.store import Store, store_url

__all__ = ["Store", "store_url"]
