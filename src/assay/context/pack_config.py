"""The `packs:` entries of a config and a condition's `context:` block.

Kept free of the index and the `mcp` SDK so that reading a config stays cheap.
"""

from __future__ import annotations

from pydantic import Field

from assay.config.config_model import ConfigModel

DEFAULT_PATTERNS = ["**/*.md", "**/*.markdown", "**/*.txt", "**/*.html", "**/*.htm"]


class PackConfig(ConfigModel):
    """A knowledge pack: a folder of documents, chunked and indexed once per content."""

    path: str
    """The folder holding the documents, relative to the config file."""

    include: list[str] = Field(default=DEFAULT_PATTERNS)  # pydantic copies it per instance
    """Glob patterns, relative to `path`, of the files that make up the pack. Hidden files
    (a name, or a folder's on the way, starting with a dot) are left out unless a pattern
    names the dot itself (`.github/**/*.md`)."""

    chunk_chars: int = Field(default=1200, ge=200)
    """Largest chunk, in characters. Chunks follow headings and paragraphs."""


class ContextConfig(ConfigModel):
    """A condition's `context:`: retrieve passages from a pack into the prompt."""

    pack: str
    """The name of a pack declared under `packs:`."""

    top_k: int = Field(default=5, ge=1, le=50)
    """How many passages to put in front of the question."""
