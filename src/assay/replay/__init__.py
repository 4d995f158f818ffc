"""Replaying real sessions: each new answer compared with the one the agent gave then.

`assay traces export` drafts keep the answer recorded in a session as the
case's `reference`; a config runs those drafts against a target under its
conditions like any dataset; the `vs_recorded` judge (`judge`) says whether
each new answer is better than, as good as, or worse than the recorded one;
`report.md` lists the questions where it is worse (`reports.recorded`).

A comparing scorer marks its scores with `details["versus"] == "recorded"`
and the recorded answer in `details["recorded"]`; the report reads that and
nothing else, so any scorer that compares with the recorded answer (a
pairwise judge given the reference as its other side) joins the list by
setting the same two keys.

May import the scorers' judge machinery; nothing imports it but the registry.
"""

VERSUS = "recorded"
"""What `details["versus"]` says on a score that compares with the recorded answer."""
