"""Session 20's faster paths of the tile reader equal what they replace, number for
number, on seeded random input (a speed change must not move a reading by a bit)."""

from __future__ import annotations

import math

import numpy as np

from vision.tiles.grid import GridFit, Outline
from vision.tiles.pipeline import _bare_shares, _table_share


def test_bare_shares_equal_one_cell_at_a_time() -> None:
    """_bare_shares of many cells is _table_share of each cell's Outline.inside_mm."""
    rng = np.random.default_rng(20)
    near = rng.random((300, 310)) < 0.6
    for angle_deg, inset in ((0.0, 0.6), (9.7, 1.0), (-33.0, 0.5)):
        grid = GridFit(math.radians(angle_deg), 37.3, (41.2, 28.9), 1.0)
        cells = [(c, r) for c in range(-2, 9) for r in range(-1, 8)]
        want = []
        for c, r in cells:
            ctr = grid.cell_centre_mm(c, r)
            o = Outline(grid.pitch_mm, grid.angle_rad, 0.0, (float(ctr[0]), float(ctr[1])))
            want.append(_table_share(near, o.inside_mm(inset=inset), 1.5, (30.0, 30.0)))
        assert _bare_shares(near, grid, cells, 1.5, (30.0, 30.0), inset).tolist() == want
