"""Compiled report templates kept between runs, so a run does not compile its page again.

jinja2 compiles a template from source in every new process: for the HTML
report that is about a tenth of a second, longer than rendering it. Its
bytecode cache keeps the compiled code in the user's cache folder
(`$XDG_CACHE_HOME/assay/templates`, else `~/.cache/assay/templates`), keyed by
a checksum of the template's source, so an edited template is compiled anew,
and of the environment's `finalize`, which the compiled code calls or not (a
page compiled before one was set would skip it).
The cache only saves time: where it cannot be read or written, the template
is compiled as without it.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import TYPE_CHECKING

from jinja2 import FileSystemBytecodeCache

if TYPE_CHECKING:
    from jinja2 import Environment
    from jinja2.bccache import Bucket


def cache_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "assay" / "templates"


class TemplateCache(FileSystemBytecodeCache):
    """jinja2's file cache in `cache_folder()`, which never fails a render."""

    def __init__(self, folder: Path | None = None) -> None:
        super().__init__(str(folder or cache_folder()))

    def get_bucket(self, environment: Environment, name: str, filename: str | None,
                   source: str) -> Bucket:
        finalize = getattr(environment.finalize, "__qualname__", repr(environment.finalize))
        return super().get_bucket(environment, name, filename, f"{source}\0{finalize}")

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except (OSError, ValueError, EOFError, pickle.UnpicklingError):  # damaged: compile anew
            bucket.reset()

    def dump_bytecode(self, bucket: Bucket) -> None:
        try:
            Path(self.directory).mkdir(parents=True, exist_ok=True)
            super().dump_bytecode(bucket)
        except OSError:  # a read-only home: the next run compiles it again
            pass
