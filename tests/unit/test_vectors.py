"""The vector helpers of hybrid search: unit-length float32 blobs, the exact scan, RRF."""

from __future__ import annotations

import pytest

from shared.adapters.documents.vectors import RRF_K, fuse, nearest, pack, unpack


def test_a_vector_is_stored_unit_length_as_float32():
    assert unpack(pack([3.0, 4.0])) == pytest.approx([0.6, 0.8])
    assert len(pack([1.0] * 1536)) == 1536 * 4
    assert unpack(pack([0.0, 0.0])) == [0.0, 0.0]  # nothing to normalise


def test_the_scan_ranks_by_cosine_and_skips_another_dimension():
    stored = [
        ("east", pack([1.0, 0.0])),
        ("north-east", pack([1.0, 1.0])),
        ("north", pack([0.0, 5.0])),
        ("old-model", pack([1.0, 0.0, 0.0])),
    ]
    ranked = nearest([2.0, 0.1], stored, 2)
    assert [key for key, _ in ranked] == ["east", "north-east"]
    assert ranked[0][1] == pytest.approx(0.9988, abs=1e-3)
    assert nearest([1.0, 0.0], [("old-model", pack([1.0, 0.0, 0.0]))], 5) == []


def test_fusion_rewards_agreement_and_keeps_a_key_only_one_ranking_has():
    fused = dict(fuse(["a", "b", "c"], ["b", "d"]))
    assert list(fused)[:2] == ["b", "a"]  # in both lists beats first in one
    assert fused["b"] == pytest.approx(1 / (RRF_K + 2) + 1 / (RRF_K + 1))
    assert fused["d"] == pytest.approx(1 / (RRF_K + 2))
    assert fuse([], []) == []
