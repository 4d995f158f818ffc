"""Analysis: pure functions over stored results.

Owns the summary of a run (`summary`), moments safe from overflow (`moments`),
numpy's percentile (`percentile`), intervals (`interval`: one Interval type, Wilson), paired comparisons whose verdict agrees with their interval
(`paired`, `effect`, `pass_rate_delta`, `mean_delta`, `significance`,
`multiple` for Holm, `power` for sample-size advice, `verdict` for the line
that says it), comparisons of conditions and of runs (`conditions`,
`run_diff`) and history (`history`). Takes the store's typed records in and
gives typed values out; no I/O. May import the root nouns, `records` and the
Knowledge Packs bands (`knowledge_packs.bands`), which name a delta's size.
"""
