"""Review: everything after a run's trials are stored, in one order.

Summary, condition comparisons, the diff with the previous run, gates
(threshold and regression), then the report files. `assay run`, suites and
`assay.evaluate` all end here. May import analysis, store, config models,
reports and `knowledge_packs`; the runner never imports it.
"""
