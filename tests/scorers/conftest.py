"""Building scorers the way a config does: validate the params, then construct."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from assay.registry import scorers
from assay.scorers.base import Scorer
from assay.services import Services

MakeScorer = Callable[..., Any]


@pytest.fixture
def make_scorer(tmp_path: Path) -> MakeScorer:
    """`make_scorer("contains", value="x")`: a scorer of that kind, based in tmp_path."""

    def make(kind: str, **params: Any) -> Scorer:
        cls = scorers.get(kind)
        validated = cls.Params.model_validate({"type": kind, **params})
        return cls(validated, Services(base_dir=tmp_path))

    return make
