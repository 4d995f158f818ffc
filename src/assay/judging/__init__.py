"""Judging stored outputs after their trials: in pairs, with bounds, committed as they come.

Owns pairwise judging over stored trials (`pairs`: the conditions of one
run for the `pairwise` scorer, and two runs for `assay compare
--pairwise`), rebuilding a stored run's scorers and cases (`stored_config`),
judging with a bound on calls in flight (`bounded`) and committing verdicts
as they come (`batched_commits`). No target is ever called here. The runner
imports it (a run's pairwise scorers judge once its trials are stored), and
`assay.rejudge` builds on it. May import the root nouns, config, datasets,
scorers, providers, analysis and the store.
"""
