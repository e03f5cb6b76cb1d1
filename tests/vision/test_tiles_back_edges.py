"""A face-down tile's cut edge against the face-up tiles' (vision.tiles.pipeline.
_outlined_backs): a back whose colour lies near the table's shows a weaker step than
fronts of a contrasting face, but a straight one; a soft patch of glare shows none."""

from __future__ import annotations

import numpy as np

from vision.tiles.config import TilesConfig
from vision.tiles.face import CellLook
from vision.tiles.grid import GridFit
from vision.tiles.pipeline import TileReading, _outlined_backs

CPX = 1.5
GRID = GridFit(0.0, 40.0, (0.0, 0.0), 1.0)
TABLE_L = 50.0


def _reading(col: int, row: int, face_l: float, down: bool) -> TileReading:
    look = CellLook(np.array([face_l, 0.0, 0.0]), 2.0, 0.0 if down else 0.1, np.array([20.0, 40.0, 0.0]),
                    np.zeros(64 * 16, np.float32), 0.0, (0.0, 0.0), 0.0 if down else 40.0)
    c = GRID.cell_centre_mm(col, row)
    return TileReading(col, row, (float(c[0]), float(c[1])), down, look)


def _scene() -> tuple[np.ndarray, list[TileReading]]:
    """Three fronts (face L 90 on a table of L 50: a 40 step), a back of L 61 (an 11 step,
    0.28 of the fronts') and a soft glare patch (+15 L, no edge), each alone on the table."""
    n = int(400 * CPX)
    lab = np.zeros((n, n, 3), np.float32)
    lab[..., 0] = TABLE_L
    tiles = []
    for col, row, face, down in ((3, 3, 90.0, False), (4, 3, 90.0, False), (5, 3, 90.0, False),
                                 (4, 6, 61.0, True)):
        x0, y0 = int((col * 40 + 1) * CPX), int((row * 40 + 1) * CPX)
        lab[y0:y0 + int(38 * CPX), x0:x0 + int(38 * CPX), 0] = face
        tiles.append(_reading(col, row, face, down))
    ys, xs = np.mgrid[0:n, 0:n].astype(np.float32)
    cx, cy = 7.5 * 40 * CPX, 6.5 * 40 * CPX
    lab[..., 0] += 15.0 * np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * (12 * CPX) ** 2))
    glare = _reading(7, 6, TABLE_L + 15.0, True)
    return lab, tiles + [glare]


def test_a_back_near_the_tables_colour_keeps_its_cut_edge() -> None:
    """The back (a straight step 0.28 of the fronts') stays a tile; the glare patch does not."""
    lab, tiles = _scene()
    kept = _outlined_backs(tiles, lab, GRID, CPX, (0.0, 0.0), TilesConfig())
    assert sorted((t.col, t.row) for t in kept) == [(3, 3), (4, 3), (4, 6), (5, 3)]
