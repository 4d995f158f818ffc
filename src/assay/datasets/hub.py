"""Hugging Face datasets: `dataset: {hf: NAME, split:, revision:, subset:}` (the `hf` extra).

NAME is a dataset on the Hub (`rajpurkar/squad`), or a local folder: one
written by `Dataset.save_to_disk`, or one of data files (Parquet, JSON,
CSV) that `datasets.load_dataset` reads. The records are Arrow rows read
from the library's memory-mapped cache, one at a time, through the same
layouts and field mapping as a file's. A row's problems name it:
`hf:rajpurkar/squad[row 41] [question]: ...`.

What the run records as the dataset's hash covers the name, subset, split,
the revision asked for and the dataset's fingerprint (the library's hash of
its data files and processing), so `--resume` and comparisons notice a
dataset that changed; the label stored as its path names the revision.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assay.datasets.files import Record
from assay.datasets.parquet import RowDataset, plain
from assay.errors import ProblemList, UserError
from assay.input_files import require_directory

MISSING_EXTRA = ("reading a Hugging Face dataset needs the datasets library: "
                 "pip install 'assay-eval[hf]'")


@dataclass
class HubDataset(RowDataset):
    name: str = ""
    split: str | None = None
    revision: str | None = None
    subset: str | None = None
    local: Path | None = None
    """The folder NAME names, when it is one (resolved against the config's folder)."""
    _loaded: Any = field(default=None, repr=False)

    @property
    def label(self) -> str:
        parts = [f"hf:{self.name}"]
        if self.subset:
            parts.append(f"/{self.subset}")
        if self.split:
            parts.append(f":{self.split}")
        if self.revision:
            parts.append(f"@{self.revision}")
        return "".join(parts)

    def _require_source(self) -> None:
        self._rows()  # loading is the check: a missing dataset, split or extra says so here

    def _records(self, problems: ProblemList) -> Iterator[Record]:
        for row, record in enumerate(self._rows()):
            yield row, {key: plain(value) for key, value in record.items()}

    def _sha256(self) -> str:
        identity = {"hf": self.name, "subset": self.subset, "split": self.split,
                    "revision": self.revision,
                    "fingerprint": getattr(self._rows(), "_fingerprint", None)}
        return hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()

    def _rows(self) -> Any:
        """The split as a `datasets.Dataset`, loaded once."""
        if self._loaded is None:
            self._loaded = self._choose_split(self._load())
        return self._loaded

    def _load(self) -> Any:
        try:
            import datasets
        except ModuleNotFoundError:
            raise UserError(MISSING_EXTRA) from None
        try:
            if self.local is not None and _saved_to_disk(self.local):
                return datasets.load_from_disk(str(self.local))
            source = str(self.local) if self.local is not None else self.name
            return datasets.load_dataset(source, self.subset, split=self.split,
                                         revision=self.revision)
        except (FileNotFoundError, ValueError, ConnectionError, OSError) as exc:
            raise UserError(f"cannot load the Hugging Face dataset '{self.name}': "
                            f"{_first_line(exc)}") from None

    def _choose_split(self, loaded: Any) -> Any:
        if not hasattr(loaded, "keys"):  # one split already
            return loaded
        splits = list(loaded.keys())
        if self.split is not None:
            if self.split not in loaded:
                raise UserError(f"the Hugging Face dataset '{self.name}' has no split "
                                f"'{self.split}' (it has {', '.join(splits)})")
            return loaded[self.split]
        if len(splits) == 1:
            return loaded[splits[0]]
        raise UserError(f"the Hugging Face dataset '{self.name}' has the splits "
                        f"{', '.join(splits)}: choose one with `split:`")


def open_hub_dataset(name: str, *, base_dir: Path, split: str | None = None,
                     revision: str | None = None, subset: str | None = None,
                     fields: dict[str, str] | None = None, sample: int | None = None,
                     seed: int = 0, tags: list[str] | None = None) -> HubDataset:
    """A dataset over the Hub's NAME, or the local folder it names; nothing loads yet.

    A NAME that starts with `.`, `/` or `~` can only be a folder (no Hub name does): one
    that is not there is said so here, not sent to the Hub to be refused as a name."""
    candidate = Path(name).expanduser()
    if not candidate.is_absolute():
        candidate = base_dir / candidate
    if name.startswith((".", "/", "~")):
        require_directory(candidate, "Hugging Face dataset folder")
    local = candidate if candidate.is_dir() else None
    dataset = HubDataset(path=Path(f"hf:{name}"), format="hf", fields=dict(fields or {}),
                         sample=sample, seed=seed, tags=list(tags or []), name=name,
                         split=split, revision=revision, subset=subset, local=local)
    dataset.path = Path(dataset.label)
    return dataset


def _saved_to_disk(folder: Path) -> bool:
    """A folder `save_to_disk` wrote (one split, or a dict of splits)."""
    return (folder / "state.json").is_file() or (folder / "dataset_dict.json").is_file()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
