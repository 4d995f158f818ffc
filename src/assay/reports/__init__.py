"""Reports: pure renderers of typed values to text people and tools read.

Owns the terminal output, `results.json`, `report.md`, `report.html`, JUnit
and the suite summary, and writing a file whole (`atomic`). Takes records,
analysis values and a `review.result.Review` in; never imports the store
or calls the network. May import analysis and `knowledge_packs`.
"""
