"""The straight-step outline test that tells a tile's back from a patch of glare, and
the face colour of a tile with a printed border."""

from __future__ import annotations

import numpy as np

from vision.tiles.face import face_colour
from vision.tiles.grid import GridFit
from vision.tiles.occupancy import side_steps

PX = 2.0   # px per mm of the synthetic view
GRID = GridFit(angle_rad=0.0, pitch_mm=40.0, origin_mm=(0.0, 0.0), strength=1.0)


def _view(value: float = 60.0) -> np.ndarray:
    return np.full((400, 400, 3), (value, 0.0, 0.0), np.float32)


def test_a_square_tile_shows_a_step_on_every_side() -> None:
    """A 36 mm square 20 delta E lighter than the table steps by about 20 on all 4 sides."""
    lab = _view()
    lab[int(42 * PX):int(78 * PX), int(42 * PX):int(78 * PX), 0] = 80.0   # cell (1, 1)
    steps = side_steps(lab, GRID, PX, (0.0, 0.0), [(1, 1)])[(1, 1)]
    assert np.all(steps > 15.0), steps


def test_glare_has_no_straight_step() -> None:
    """A smooth pool of light 25 delta E bright over the cell shows no step above 3."""
    lab = _view()
    yy, xx = np.mgrid[0:400, 0:400].astype(np.float32)
    lab[..., 0] += 25.0 * np.exp(-((xx - 120) ** 2 + (yy - 120) ** 2) / (2 * 40.0 ** 2))
    steps = side_steps(lab, GRID, PX, (0.0, 0.0), [(1, 1)])[(1, 1)]
    assert np.all(steps < 3.0), steps


def test_many_cells_on_a_coarse_lattice_are_stepped_as_one_by_one() -> None:
    """Enough cells on a lattice of a large pitch to make the sample map 32767 rows or
    more (the most cv2.remap takes; alerts bench game 5172's look failed): each cell's
    steps are those it has measured alone."""
    lab = _view()
    lab[int(42 * PX):int(78 * PX), int(42 * PX):int(78 * PX), 0] = 80.0   # cell (1, 1)
    coarse = GridFit(angle_rad=0.0, pitch_mm=120.0, origin_mm=(0.0, 0.0), strength=1.0)
    cells = [(c, r) for r in range(12) for c in range(12)]
    many = side_steps(lab, coarse, PX, (0.0, 0.0), cells)
    assert len(cells) * 4 * 72 > 32767            # the map's rows: 4 sides x 72 points a cell
    for cell in [(0, 0), (1, 1), (11, 11)]:
        assert np.allclose(many[cell], side_steps(lab, coarse, PX, (0.0, 0.0), [cell])[cell])


def test_a_printed_border_is_not_the_face() -> None:
    """A ring that is mostly cream with a thin brown line further out reads as cream."""
    cream, brown = np.array([95.0, -1.0, 6.0]), np.array([60.0, 15.0, 30.0])
    px = np.vstack([np.tile(cream, (80, 1)), np.tile(brown, (20, 1))])
    radius = np.concatenate([np.full(80, 0.32), np.full(20, 0.39)]).astype(np.float32)
    assert np.allclose(face_colour(px, radius), cream)


def test_lines_running_out_of_the_cell_are_no_symbol() -> None:
    """A cutting mat's line crossing (lines out to three or four sides) is no print; a
    compact blob in the middle is."""
    from vision.tiles.config import TilesConfig
    from vision.tiles.face import CellGeometry, analyse_cell
    from vision.tiles.crops import to_lab

    n = 72
    geo = CellGeometry.make(n)
    cross = np.full((n, n, 3), 0.55, np.float32)
    cross[:, 34:38] = 0.9
    cross[34:38, :] = 0.9
    assert not analyse_cell(cross, to_lab(cross), geo, TilesConfig()).has_symbol
    blob = np.full((n, n, 3), 0.55, np.float32)
    blob[22:50, 22:50] = (0.1, 0.2, 0.9)
    assert analyse_cell(blob, to_lab(blob), geo, TilesConfig()).has_symbol
