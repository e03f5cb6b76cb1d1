"""Backs told from glare-lifted dark fronts by their repeated design
(vision.tiles.pipeline._mark_face_down and _off_designs)."""

from __future__ import annotations

import numpy as np

from vision.tiles.config import TilesConfig
from vision.tiles.face import CellLook
from vision.tiles.pipeline import TileReading, _mark_face_down

RNG = np.random.default_rng(77)
SHAPES = [RNG.uniform(0.0, 1.0, 64 * 16).astype(np.float32) for _ in range(7)]


def _tile(col: int, face: tuple[float, float, float], mark: tuple[float, float, float],
          shape: int) -> TileReading:
    look = CellLook(np.array(face), 2.0, 0.2, np.array(mark), SHAPES[shape], 0.0, (0.0, 0.0), 30.0)
    return TileReading(col, 0, (40.0 * col, 0.0), False, look)


def _dark_fronts() -> list[TileReading]:
    """Eight dark glossy fronts, a lamp lifting some (L 12-44): the fronts' face varies
    so much that only a tile over 25 delta E off is a back by its face alone. Two
    fronts share a print (same shape and colour) on the fronts' face."""
    faces = [12.0, 14.0, 16.0, 18.0, 30.0, 44.0, 13.0, 15.0]
    marks = [(55.0, 60.0, 40.0), (60.0, -50.0, 30.0), (50.0, 20.0, -60.0), (80.0, 0.0, 70.0),
             (55.0, 60.0, 40.0), (60.0, -50.0, 30.0), (50.0, 20.0, -60.0), (50.0, 20.0, -60.0)]
    shapes = [0, 1, 2, 3, 4, 5, 6, 6]
    return [_tile(k, (f, 0.0, 0.0), m, s) for k, (f, m, s) in enumerate(zip(faces, marks, shapes))]


def test_backs_sharing_one_logo_are_face_down_though_near_the_fronts() -> None:
    """Three backs of one design (a teal face 15 delta E from the dark fronts' face, a
    paler logo of one shape) among the glare-lifted fronts are face down; the fronts,
    the two of one print included, stay face up."""
    backs = [_tile(8 + k, (33.0, -10.0, -9.0), (49.0, -13.0, -6.0), 1) for k in range(3)]
    tiles = _dark_fronts() + backs
    _mark_face_down(tiles, TilesConfig())
    assert [t.face_down for t in tiles] == [False] * 8 + [True] * 3


def test_a_lone_tile_of_that_look_stays_face_up() -> None:
    """One tile of that teal look has no design repeated to vouch for it: within the
    fronts' loose bound, it stays face up."""
    tiles = _dark_fronts() + [_tile(8, (33.0, -10.0, -9.0), (49.0, -13.0, -6.0), 1)]
    _mark_face_down(tiles, TilesConfig())
    assert [t.face_down for t in tiles] == [False] * 9
