"""The bounds of the counts and times a config may give, in a module that imports nothing.

The config's models declare their fields with them, and the command line's options that
override those fields (`--concurrency`, `--epochs`, `--sample`, `--judge-timeout`) refuse
what the config would refuse, without loading pydantic to ask it: `assay run --help`
stays quick.
"""

from __future__ import annotations

MAX_COUNT = 1_000_000_000
"""The largest count a config may give (cases, errors): every count is bounded, so a typo
of twenty digits is a located error, not an overflow deep in a run."""

MAX_CONCURRENCY = 1024
"""Trials in flight at once, at most; and requests in flight to one provider endpoint."""

MAX_EPOCHS = 10_000

MAX_SECONDS = 7 * 86400
"""The longest timeout, a trial's or a provider call's, and the longest wait between a
provider's attempts: a week. `.inf` was a wait that never ended."""

MAX_RETRIES = 20
"""Retries of one provider call after its first attempt, at most: every retry is bounded."""

RUN_OPTION_MAX = {"concurrency": MAX_CONCURRENCY, "epochs": MAX_EPOCHS, "sample": MAX_COUNT}
"""The largest value of each command-line option that overrides a `run.` setting (each is
at least 1): the options and a resume of a run started with them both read it."""

MAX_TEMPERATURE = 2.0
"""The highest sampling temperature, a target's or a judge's: the most the providers accept
(OpenAI's and Gemini's 2; Anthropic's is 1, and it says so at the call)."""
