"""Analysis: pure functions over stored results (aggregates, intervals, paired tests, history)."""
