"""The face-down call (vision.tiles.pipeline._mark_face_down) on what a lamp does to
glossy dark fronts."""

from __future__ import annotations

import numpy as np

from vision.tiles.config import TilesConfig
from vision.tiles.face import CellLook
from vision.tiles.pipeline import TileReading, _mark_face_down


def _tile(col: int, face: tuple[float, float, float], mark: tuple[float, float, float] | None,
          ) -> TileReading:
    frac = 0.3 if mark is not None else 0.0
    look = CellLook(np.array(face), 2.0, frac, np.array(mark if mark is not None else face),
                    np.zeros(64 * 16, np.float32), 0.0, (0.0, 0.0), 40.0 if frac else 0.0)
    return TileReading(col, 0, (40.0 * col, 0.0), False, look)


def test_two_printed_tiles_are_fronts_however_their_faces_differ() -> None:
    """Two tiles with a print, one dark face lifted 55 L by glare: neither is a back
    (two tiles cannot show which face is the fronts')."""
    tiles = [_tile(0, (12.0, 0.0, 0.0), (55.0, 60.0, 40.0)),
             _tile(1, (67.0, 0.0, 0.0), (60.0, -50.0, 30.0))]
    _mark_face_down(tiles, TilesConfig())
    assert [t.face_down for t in tiles] == [False, False]


def test_glare_on_dark_fronts_is_not_a_back_but_a_coloured_face_is() -> None:
    """Dark fronts lifted by glare (L 8-50, no hue) stay face up; a plain green face with
    a print among them is a back."""
    fronts = [_tile(k, (8.0 + 7 * k, 0.0, 0.0), (50.0 + k, 40.0 * (-1) ** k, 30.0))
              for k in range(7)]
    back = _tile(7, (70.0, -45.0, 35.0), (90.0, -30.0, 25.0))
    tiles = fronts + [back]
    _mark_face_down(tiles, TilesConfig())
    assert [t.face_down for t in tiles] == [False] * 7 + [True]
