"""Persistence of runs, trials, scores and the response cache (SQLite or PostgreSQL).

Owns the tables (`schema`), their numbered migrations, and the mapping from
rows to the typed records of `assay.records`; the paged, read-only queries
`assay view` browses with (`browsing`, `case_query`, `filters`), and opening
a store so that the database itself refuses writes (`read_only`), and how a
run's row records the way it ended (`run_ending`), and the LLM replies kept
for a resumed or repeated run (`response_cache`), and stopping a run whose SQLite
file was deleted or replaced under it (`store_file`), and which runs marked
running have probably stopped (`stalled_runs`), and which URLs can be a store and how
long a connection or a lock may take (`store_address`), and how long a statement may wait
for PostgreSQL's answer (`answer_wait`), and reading one moment of a store
being written (`snapshot`), and which runs `assay compare` takes when not told
(`compared_runs`). May import
the root nouns only; everything after the runner reads runs through it.
"""

from assay.store.store import Store, store_url

__all__ = ["Store", "store_url"]
