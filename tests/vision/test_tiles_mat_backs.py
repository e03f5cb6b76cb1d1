"""A back a little off a cutting mat's colour is a candidate cell
(vision.tiles.occupancy.coarse_candidates): the mat's printed lines make every ring
vary a lot, but the cells' colour hardly moves from cell to cell."""

from __future__ import annotations

import numpy as np

from vision.tiles.config import TilesConfig
from vision.tiles.occupancy import coarse_candidates


def _mat(seed: int, scatter: float, ring: float) -> dict[tuple[int, int], np.ndarray]:
    """Bare table cells of colour (24, -1, -1) whose colours scatter by `scatter` (per
    channel SD) and whose rings vary by `ring`, with ten printed fronts at columns 0-1."""
    rng = np.random.default_rng(seed)
    stats = {}
    for c in range(10):
        for r in range(8):
            if c < 2 and r < 5:
                stats[(c, r)] = np.array([95.0, 0.0, 0.0, 2.0, 40.0])
            else:
                lab = np.array([24.0, -1.0, -1.0]) + rng.normal(0.0, scatter, 3)
                stats[(c, r)] = np.array([*lab, ring, 1.5])
    return stats


BACKS = [(4, 2), (6, 5), (8, 3)]


def test_backs_fifteen_off_a_ruled_mat_are_candidates() -> None:
    """A mat (ring spread 9.7 from its lines, cell colours steady within 1 delta E) and
    three plain backs 15 delta E off its colour: all three backs are candidates, no bare
    cell is."""
    stats = _mat(3, 0.6, 9.7)
    for k in BACKS:
        stats[k] = np.array([25.0, -16.0, 1.0, 2.5, 1.8])
    cells, _, vary = coarse_candidates(stats, TilesConfig())
    assert [k for k in cells if k[0] >= 2 or k[1] >= 5] == sorted(BACKS, key=lambda t: (t[1], t[0]))
    assert vary < 3.0


def test_a_patch_within_the_tables_own_scatter_is_no_candidate() -> None:
    """A table whose cell colours scatter widely (a lamp's falloff: 5 delta E per
    channel) and whose rings vary by 9: a plain patch 15 delta E off its colour is no
    candidate."""
    stats = _mat(4, 5.0, 9.0)
    stats[(6, 5)] = np.array([25.0, -16.0, 1.0, 2.5, 1.8])
    cells, _, _ = coarse_candidates(stats, TilesConfig())
    assert (6, 5) not in cells
