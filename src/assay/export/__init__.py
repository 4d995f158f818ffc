"""Runs written in formats other tools read: Every Eval Ever (`assay export RUN --format eee`).

Owns the mapping of a stored run to a format (`eee_identity`, `eee_aggregate`,
`eee_instances`), the vendored schemas that format is checked against
(`schemas/`, `eee_schema`), and writing the files (`writing`), which also
records the export with the run so its `results.json` links to them.
May import the records, config, the store, analysis, review (for the summary)
and reports;
nothing but the CLI imports it.
"""
