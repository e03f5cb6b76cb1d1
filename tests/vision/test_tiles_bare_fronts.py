"""Printed cells of the table's colour (vision.tiles.pipeline._without_bare): fronts of
about a white mat's colour stay when their prints vary, a mat's ruled lines (one ink)
are dropped, though the only cell plainly off the table is a back with a logo."""

from __future__ import annotations

import dataclasses

import numpy as np

from vision.tiles.config import TilesConfig
from vision.tiles.face import CellLook
from vision.tiles.grid import GridFit
from vision.tiles.pipeline import TileReading, _without_bare

CPX = 1.5
GRID = GridFit(0.0, 40.0, (0.0, 0.0), 1.0)
INKS = [(50.0, 70.0, 50.0), (60.0, -50.0, 40.0), (40.0, 20.0, -60.0), (85.0, 0.0, 80.0)]


def _tile(col: int, row: int, face: tuple[float, float, float], mark: tuple[float, float, float]) -> TileReading:
    look = CellLook(np.array(face), 2.0, 0.1, np.array(mark), np.zeros(64 * 16, np.float32), 0.0,
                    (0.0, 0.0), 30.0)
    c = GRID.cell_centre_mm(col, row)
    return TileReading(col, row, (float(c[0]), float(c[1])), False, look)


def _table() -> np.ndarray:
    """Bare table everywhere but the back's cell (4, 4)."""
    near = np.ones((600, 600), dtype=bool)
    near[int(4 * 40 * CPX):int(5 * 40 * CPX), int(4 * 40 * CPX):int(5 * 40 * CPX)] = False
    return near


def _read(cells: list[TileReading]) -> list[tuple[int, int]]:
    table = _table()
    out = _without_bare(cells, lambda: table, GRID, CPX, (0.0, 0.0), TilesConfig())
    return sorted((t.col, t.row) for t in out)


BACK = ((74.0, 22.0, -15.0), (89.0, 9.0, -8.0))
SPOTS = [(3, 2), (5, 2), (6, 3), (3, 4), (5, 4), (2, 5), (6, 6), (4, 7)]


def test_white_fronts_on_a_white_mat_stay_beside_a_lone_back() -> None:
    """Eight white fronts (the mat's white) printed in four inks, and one back: all stay."""
    cells = [_tile(4, 4, *BACK)] + [_tile(c, r, (97.0, 0.0, -2.0), INKS[k % 4]) for k, (c, r) in enumerate(SPOTS)]
    assert _read(cells) == sorted([(4, 4)] + SPOTS)


def test_a_mats_ruled_lines_are_dropped() -> None:
    """Eight cells of the mat crossed by its grey lines (one ink) beside one tile: only
    the tile stays."""
    cells = [_tile(4, 4, *BACK)] + [_tile(c, r, (97.0, 0.0, -2.0), (70.0, 0.0, -1.0)) for c, r in SPOTS]
    assert _read(cells) == [(4, 4)]


def test_white_fronts_beside_a_cup_rim_stay() -> None:
    """Two white fronts on a white table and a cup's rim read as printed cells off the
    table, their prints well off their cells' middles: the rim is no front, so the
    fronts stay (dev game 138: the city was dropped as bare table of another face)."""
    rim = _tile(4, 4, (30.0, 20.0, 30.0), (45.0, 60.0, 40.0))
    rim.look = dataclasses.replace(rim.look, offset=(0.31, 0.0))
    cells = [rim] + [_tile(c, r, (97.0, 0.0, -2.0), INKS[k]) for k, (c, r) in enumerate([(1, 1), (2, 1)])]
    assert _read(cells) == [(1, 1), (2, 1), (4, 4)]
