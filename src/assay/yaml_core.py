"""YAML whose booleans are only `true` and `false`, as in YAML 1.2.

PyYAML reads YAML 1.1, where `yes`, `no`, `on`, `off`, `y` and `n` are
booleans too: a dataset's `expected: yes` became `True` and was compared as
the text "true", so a correct answer "yes" failed. YAML 1.2 (2009) dropped
those; every config and dataset assay reads follows it. Where a boolean is
wanted, pydantic still accepts `yes`/`no` for a `bool` field.
"""

from __future__ import annotations

import re

import yaml

BOOL_TAG = "tag:yaml.org,2002:bool"


class CoreLoader(yaml.SafeLoader):
    """PyYAML's safe loader with YAML 1.2's booleans."""


CoreLoader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag != BOOL_TAG]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
CoreLoader.add_implicit_resolver(
    BOOL_TAG, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
