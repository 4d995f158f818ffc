"""The runner: plan, schedule, resume, progress."""
