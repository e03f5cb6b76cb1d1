"""A plain back in a dim, noisy frame (or a textured back) is a candidate cell
(vision.tiles.occupancy.coarse_candidates): its ring varies some 7 delta E, a cell
across a tile's edge or a hand varies far more."""

from __future__ import annotations

import numpy as np

from vision.tiles.config import TilesConfig
from vision.tiles.occupancy import coarse_candidates


def test_a_noisy_plain_back_is_a_candidate_but_a_busy_patch_is_not() -> None:
    """Bare wood (L 60, ring spread 2) all round; a plain dark back with ring spread 7.5
    is a candidate cell, a patch of the same colour with ring spread 16 is not."""
    stats = {(c, r): np.array([60.0, 5.0, 20.0, 2.0, 1.0]) for c in range(6) for r in range(6)}
    stats[(2, 2)] = np.array([25.0, 5.0, -10.0, 7.5, 3.0])
    stats[(4, 4)] = np.array([25.0, 5.0, -10.0, 16.0, 3.0])
    cells, table, _ = coarse_candidates(stats, TilesConfig())
    assert cells == [(2, 2)]
    assert np.allclose(table, [60.0, 5.0, 20.0])
