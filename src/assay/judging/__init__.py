"""Judging stored outputs after their trials: in pairs, and again.

Owns pairwise judging over stored trials (`pairs`: the conditions of one
run for the `pairwise` scorer, and two runs for `assay compare
--pairwise`), rebuilding a stored run's scorers (`stored_config`), and
`assay rejudge` (`rejudge`: the same outputs judged again, repeated, under
a fresh cache tag, kept as a run linked to the original). No target is
ever called here. May import the root nouns, config, scorers, providers,
analysis and the store.
"""
