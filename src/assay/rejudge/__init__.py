"""`assay rejudge RUN`: a stored run's outputs judged again, kept as a run of its own.

Owns the rejudge end to end (`session`: checked, judged, stored, reviewed),
finding and resuming rejudge runs (`runs`), and judging the stored trials
with a budget (`trials`). It is a run over stored outputs, so it sits above
the runner and review and reuses them (the runner's progress, a trial's
scoring and its counts; review's finish): nothing imports it but the CLI.
May import the root nouns, config, datasets, scorers, providers, judging,
the runner, review and the store.
"""
