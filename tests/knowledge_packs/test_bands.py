"""The Knowledge Packs reading of a delta, including the edges the published table leaves open."""

from __future__ import annotations

import pytest

from assay.knowledge_packs.bands import pack_reading


@pytest.mark.parametrize("delta_pp, reading", [
    (12.0, "strong"), (5.0, "strong"), ((0.55 - 0.50) * 100, "strong"),
    (4.99, "moderate"), (1.0, "moderate"),
    (0.99, "neutral"), (0.5, "neutral"), (0.0, "neutral"), (-0.5, "neutral"),
    (-1.0, "slight regression"), (-5.0, "slight regression"),
    (-5.01, "significant regression"), (-30.0, "significant regression"),
])
def test_each_band_and_its_edges(delta_pp, reading):
    assert pack_reading(delta_pp) == reading


def test_a_missing_delta_is_an_error_not_a_band():
    with pytest.raises(ValueError, match="finite"):
        pack_reading(float("nan"))
