"""A lone tile's print cut up by a lattice finer than the print
(vision.tiles.pipeline._joined_prints): cells whose prints are one connected print are
one tile; prints apart, or on faces of their own colour, stay apart."""

from __future__ import annotations

import numpy as np

from vision.tiles.config import TilesConfig
from vision.tiles.face import CellLook
from vision.tiles.grid import GridFit
from vision.tiles.pipeline import TileReading, _joined_prints

CPX = 1.5
GRID = GridFit(0.0, 14.0, (0.0, 0.0), 1.0)    # a symbol's width, on 36 mm tiles


def _tile(col: int, row: int) -> TileReading:
    look = CellLook(np.array([95.0, 0.0, 0.0]), 2.0, 0.1, np.array([40.0, 40.0, -80.0]),
                    np.zeros(64 * 16, np.float32), 0.0, (0.0, 0.0), 60.0)
    c = GRID.cell_centre_mm(col, row)
    return TileReading(col, row, (float(c[0]), float(c[1])), False, look)


def _table(*boxes_mm: tuple[float, float, float, float]) -> np.ndarray:
    """Bare table but for the given (x0, y0, x1, y1) mm boxes (prints, or whole faces)."""
    near = np.ones((300, 300), dtype=bool)
    for x0, y0, x1, y1 in boxes_mm:
        near[int(y0 * CPX):int(y1 * CPX), int(x0 * CPX):int(x1 * CPX)] = False
    return near


def test_a_print_cut_by_a_lattice_line_is_one_print() -> None:
    """A 20 mm print across cells (3, 3) and (4, 3) of a 14 mm lattice: one print, centred
    on it (within 1 mm), 20 mm wide (within 1.5 mm)."""
    table = _table((48.0, 46.0, 68.0, 58.0))
    out = _joined_prints([_tile(3, 3), _tile(4, 3)], table, GRID, CPX, (0.0, 0.0), TilesConfig())
    assert len(out) == 1
    (cx, cy), extent = out[0]
    assert abs(cx - 58.0) < 1.0 and abs(cy - 52.0) < 1.0
    assert abs(extent - 20.0) < 1.5


def test_prints_apart_stay_apart() -> None:
    """Two prints 6 mm apart in cells (3, 3) and (5, 3): two prints, each at its cell's symbol."""
    table = _table((44.0, 46.0, 54.0, 58.0), (72.0, 46.0, 82.0, 58.0))
    tiles = [_tile(3, 3), _tile(5, 3)]
    out = _joined_prints(tiles, table, GRID, CPX, (0.0, 0.0), TilesConfig())
    assert [c for c, _ in out] == [t.centre_mm for t in tiles]


def test_faces_of_their_own_colour_are_not_joined() -> None:
    """Two touching tiles whose faces are off the table's colour fill their cells: their
    prints are not told from their faces, so they are not joined."""
    table = _table((42.0, 42.0, 70.0, 56.0))
    tiles = [_tile(3, 3), _tile(4, 3)]
    out = _joined_prints(tiles, table, GRID, CPX, (0.0, 0.0), TilesConfig())
    assert [c for c, _ in out] == [t.centre_mm for t in tiles]
