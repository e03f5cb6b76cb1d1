"""The lattice refit to the tiles' centres (pipeline.refit_to_tiles, grid.refine_grid):
two traced cities of the issue's kind, and the refit's choice between side pairs and
every pair."""

from __future__ import annotations

import math

import numpy as np

from tests.vision.seeded_cities import city_5299_centres, score_city
from vision.tiles.config import TilesConfig
from vision.tiles.grid import GridFit, refine_grid
from vision.tiles.pipeline import refit_to_tiles


def test_a_few_centred_prints_with_diagonal_neighbours_keep_their_lattice() -> None:
    """City 5299 (blurred outlined prints, eight of them clear, most of their neighbours
    diagonal): the refit keeps the right lattice, so 21 of its 22 tiles are read (7 when
    a diagonal neighbour was taken for a side one and the lattice turned 23 degrees)."""
    s = score_city(5299)
    assert s.found >= 21 and s.extra == 0


def test_pieces_of_one_print_are_refitted_as_they_fit() -> None:
    """City 5458 (one tile): with diagonal pairs left out, the refit to its print's
    pieces comes out 6 mm, further from the lattice read than all pairs' 7.9 mm; taken
    as all pairs fit it, the tile is read alone, no phantom beside it."""
    s = score_city(5458)
    assert (s.found, s.extra) == (1, 0)


def _city_5299_centres(shift: float = 0.0) -> tuple[GridFit, np.ndarray]:
    """City 5299's eight centres (seeded_cities.city_5299_centres) and the lattice read
    (34.06 mm, -0.78 degrees)."""
    pts = city_5299_centres(shift)
    a = math.radians(-1.0)
    ux, uy = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    # the lattice read lines up with the tiles at the city's middle, cell (5, 6)
    b = math.radians(-0.78)
    vx, vy = np.array([math.cos(b), math.sin(b)]), np.array([-math.sin(b), math.cos(b)])
    o = 33.4 * (5.5 * ux + 6.5 * uy) - 34.06 * (5.5 * vx + 6.5 * vy)
    return GridFit(b, 34.06, (float(o[0]), float(o[1])), 1.0), pts


def test_tiles_mid_cell_are_refitted_without_diagonal_neighbours() -> None:
    """The eight centres mid-cell on the lattice read: the refit keeps its turn and takes
    the tiles' pitch (all pairs would turn it about 23 degrees)."""
    grid, pts = _city_5299_centres()
    g = refit_to_tiles(grid, pts, TilesConfig())
    assert abs(math.degrees(g.angle_rad) + 1.0) < 0.5 and abs(g.pitch_mm - 33.4) < 0.5
    assert abs(math.degrees(refine_grid(grid, pts).angle_rad) + 1.0) > 10.0


def test_tiles_off_their_cells_middles_are_refitted_with_every_pair() -> None:
    """The same centres a third of a pitch off their cells' middles: the lattice read is
    not theirs yet, so its side pairs say nothing and every pair is fitted (loop game 95
    lost 7 of its 8 moves to a refit without diagonal pairs on a hand's prints)."""
    grid, pts = _city_5299_centres(shift=1.0 / 3.0)
    g = refit_to_tiles(grid, pts, TilesConfig())
    assert g == refine_grid(grid, pts)
    assert g != refine_grid(grid, pts, sides=True)
