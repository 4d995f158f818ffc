"""Datasets: golden Cases read from files (JSONL, JSON, YAML, CSV) or handed over in memory.

Owns the file readers (`files`), the layouts and field mapping that turn a
record into a Case (`dataset`), and in-memory records from the Python API
(`memory`). May import the root nouns and errors only.
"""

from assay.datasets.dataset import Dataset, Scan, open_dataset

__all__ = ["Dataset", "Scan", "open_dataset"]
