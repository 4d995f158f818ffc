"""Datasets: golden Cases read from files (JSONL, JSON, YAML, CSV, Parquet), from Hugging
Face datasets, or handed over in memory.

Owns the file readers (`files`, with what a YAML file's node tree tells in
`yaml_nodes`, and a JSON id read as written in `written_ids`), the layouts and field mapping that turn a record into a Case
(`dataset`, one record's fields in `case_fields`, a key or path's value in
`record_paths` and why it finds none in `field_paths`), what its refusals say
(`refusals`), Parquet read by record batch (`parquet`), Hugging Face datasets
(`hub`), and in-memory records from the Python API (`memory`). May import the
root nouns and errors only (pyarrow and `datasets` are optional, imported when
such a dataset is read).
"""

from assay.datasets.dataset import Dataset, Scan, open_dataset

__all__ = ["Dataset", "Scan", "open_dataset"]
