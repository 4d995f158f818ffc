"""Calibration: how far an LLM judge agrees with people, stored per judge, and the gate on it.

Owns reading people's labels (`labels`, `values`), getting the judge's
verdicts from a stored run, a file or a judging now (`verdicts`,
`judging`), measuring them against each other (`measure`, over
`analysis.judge_agreement` and `analysis.pairwise_agreement`), one
`assay calibrate` end to end (`session`), and the check that a config's
judge was calibrated before it runs (`requirement`). May import the root
nouns, config, datasets, analysis, scorers and the store.
"""
