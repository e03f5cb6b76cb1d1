"""A lone tile's side and turn from its own outline (grid.tile_outline): symbol edges,
a printed frame and a one-sided shadow must not be taken for the tile's cut edge."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from vision.tiles.config import TilesConfig
from vision.tiles.grid import Outline, tile_outline
from vision.tiles.pipeline import _common_side

PX = 1.5


def _square(img: NDArray[np.float32], centre: tuple[float, float], side: float, angle_deg: float, value: float) -> None:
    box = cv2.boxPoints(((centre[0] * PX, centre[1] * PX), (side * PX, side * PX), angle_deg))
    cv2.fillConvexPoly(img, np.round(box * 16).astype(np.int32), (value,), lineType=cv2.LINE_AA, shift=4)


def _tile(side: float, angle_deg: float, centre: tuple[float, float]) -> NDArray[np.float32]:
    img = np.full((300, 300), 0.45, np.float32)
    _square(img, (centre[0] + 1.5, centre[1] + 1.5), side, angle_deg, 0.3)   # shadow down-right
    _square(img, centre, side, angle_deg, 0.9)                               # the tile
    _square(img, centre, side * 0.82, angle_deg, 0.75)                       # printed frame
    cv2.circle(img, (int(round(centre[0] * PX)), int(round(centre[1] * PX))),
               int(round(side * 0.2 * PX)), (0.1,), -1, cv2.LINE_AA)               # a round symbol
    return np.asarray(cv2.GaussianBlur(img, (0, 0), 0.7), np.float32)


@pytest.mark.parametrize("side,angle", [(34.0, 0.0), (38.0, 7.0), (42.0, -11.0), (31.0, 4.0)])
def test_lone_tile_side_and_turn_from_outline(side: float, angle: float) -> None:
    """The outermost symmetric square of edges is the tile: side and centre within 1 mm,
    turn within 2 deg, though the symbol's point is off the tile's centre."""
    centre = (100.0, 95.0)
    img = _tile(side, angle, centre)
    # the symbol's centroid is a little off the tile's centre, the grid's turn a few degrees off
    out = tile_outline(img, PX, (0.0, 0.0), np.array([centre[0] + 1.0, centre[1] - 1.0]),
                       math.radians(angle + 6.0), TilesConfig(), 3.0)
    assert out
    got = out[0]
    assert abs(got.side_mm - side) < 1.0
    d = (math.degrees(got.angle_rad) - angle + 45) % 90 - 45
    assert abs(d) < 2.0
    assert math.hypot(got.centre_mm[0] - centre[0], got.centre_mm[1] - centre[1]) < 1.0


def test_bare_table_has_no_outline() -> None:
    """A plain patch of table around the point gives no outline at all."""
    img = np.full((300, 300), 0.45, np.float32)
    assert tile_outline(img, PX, (0.0, 0.0), np.array([100.0, 100.0]), 0.0, TilesConfig(), 3.0) == []


def _sq(side: float, x: float, y: float) -> Outline:
    return Outline(side, 0.0, 1.0, (x, y))


def test_pieces_of_a_cut_tile_agree_on_its_square() -> None:
    """Points on pieces of one cut-up tile each find squares; the size they share wins
    (over each one's stray larger square) and they make one tile."""
    cands = [[_sq(52.0, 80.0, 90.0), _sq(34.0, 100.0, 100.0)],
             [_sq(34.5, 100.5, 99.5), _sq(22.0, 110.0, 95.0)],
             [_sq(47.0, 120.0, 80.0), _sq(33.8, 99.6, 100.3)]]
    pts = [(92.0, 92.0), (108.0, 93.0), (100.0, 108.0)]
    out = _common_side(cands, pts, TilesConfig())
    assert len(out) == 1 and abs(out[0].side_mm - 34.0) < 1.0


def test_square_around_two_touching_tiles_is_refused() -> None:
    """A square that swallows a second tile's point loses to the tiles' own squares."""
    cands = [[_sq(58.0, 120.0, 100.0), _sq(38.0, 100.0, 100.0)],
             [_sq(38.4, 139.5, 100.0)]]
    pts = [(100.0, 100.0), (140.0, 100.0)]
    out = _common_side(cands, pts, TilesConfig())
    assert sorted(round(o.centre_mm[0]) for o in out) == [100, 140]
    assert all(abs(o.side_mm - 38.0) < 1.0 for o in out)


@pytest.mark.parametrize("side,angle,lattice", [(36.0, -10.0, 21.0), (34.0, 25.0, -10.0)])
def test_a_pioneer_turned_far_from_the_lattice_is_measured_at_its_own_turn(
        side: float, angle: float, lattice: float) -> None:
    """A lone tile turned some 30 deg from the first lattice (fitted to its symbol's
    edges): its outline is still found at its own turn (within 2 deg) and side (within
    1 mm), not at the end of the search around the lattice's turn."""
    centre = (100.0, 95.0)
    img = _tile(side, angle, centre)
    out = tile_outline(img, PX, (0.0, 0.0), np.array(centre), math.radians(lattice), TilesConfig(), 3.0)
    assert out
    d = (math.degrees(out[0].angle_rad) - angle + 45) % 90 - 45
    assert abs(d) < 2.0
    assert abs(out[0].side_mm - side) < 1.0
