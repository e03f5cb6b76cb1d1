"""Grid fitting on drawn lattices: turn, pitch and phase come from the tiles alone."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from tests.vision.seeded_cities import city_5299_centres
from vision.tiles.config import TilesConfig
from vision.tiles.grid import GridFit, fit_grid, held_cells, print_middles, refine_grid


def _draw(angle_deg: float, pitch: float, origin: tuple[float, float], px: float = 1.5,
          size_mm: float = 300.0, seed: int = 0) -> np.ndarray:
    """Grey tiles (3x4) with a dark symbol each, on a mid-grey table, jittered a little;
    drawn 4x finer and area-averaged, as a camera would see them (no staircase edges)."""
    rng = np.random.default_rng(seed)
    out_n = int(size_mm * px)
    px = px * 4
    n = out_n * 4
    img = np.full((n, n), 0.45, np.float32)
    a = math.radians(angle_deg)
    ux, uy = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    side = pitch - 2.0
    for r in range(3):
        for c in range(4):
            ctr = np.asarray(origin) + pitch * ((c + 0.5) * ux + (r + 0.5) * uy) + rng.uniform(-1, 1, 2)
            t = a + math.radians(rng.uniform(-3, 3))
            vx, vy = np.array([math.cos(t), math.sin(t)]), np.array([-math.sin(t), math.cos(t)])
            h = side / 2
            quad = np.array([ctr - h * vx - h * vy, ctr + h * vx - h * vy, ctr + h * vx + h * vy, ctr - h * vx + h * vy])
            cv2.fillConvexPoly(img, np.round(quad * px).astype(np.int32), 0.9, lineType=cv2.LINE_AA)
            cv2.circle(img, tuple(np.round(ctr * px).astype(int)), int(side * 0.25 * px), 0.1, -1, cv2.LINE_AA)
    small = cv2.resize(img, (out_n, out_n), interpolation=cv2.INTER_AREA)
    return np.asarray(small + rng.normal(0, 0.01, small.shape).astype(np.float32), np.float32)


@pytest.mark.parametrize("angle,pitch,origin", [(0.0, 36.0, (40.0, 50.0)), (12.0, 40.0, (80.0, 30.0)),
                                                (-17.0, 32.0, (60.0, 120.0))])
def test_fit_grid_recovers_turn_and_pitch(angle: float, pitch: float, origin: tuple[float, float]) -> None:
    """The fitted lattice has the drawn turn (within 1 deg) and pitch (within 1 mm)."""
    g = fit_grid(_draw(angle, pitch, origin), 1.5, (0.0, 0.0), TilesConfig())
    assert abs(math.degrees(g.angle_rad) - angle) < 1.0
    assert abs(g.pitch_mm - pitch) < 1.0


def test_refine_grid_fixes_a_wrong_pitch_from_tile_centres() -> None:
    """Tile centres on a 40 mm lattice turned 10 deg pull a 36 mm guess to 40 mm and the
    right phase, so every centre lands in the middle of a cell."""
    a = math.radians(10.0)
    ux, uy = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    rng = np.random.default_rng(1)
    pts = np.array([np.array([100.0, 80.0]) + 40.0 * (c * ux + r * uy) + rng.uniform(-1.5, 1.5, 2)
                    for r in range(5) for c in range(5)])
    g = refine_grid(GridFit(math.radians(8.0), 36.0, (0.0, 0.0), 1.0), pts)
    assert abs(g.pitch_mm - 40.0) < 0.5
    assert abs(math.degrees(g.angle_rad) - 10.0) < 0.5
    cells = g.cell_of(pts)
    assert len({(int(c), int(r)) for c, r in cells}) == 25
    centres = np.array([g.cell_centre_mm(int(c), int(r)) for c, r in cells])
    assert np.max(np.linalg.norm(centres - pts, axis=1)) < 3.0


def test_refine_grid_takes_no_diagonal_neighbour_for_a_side_one() -> None:
    """Eight tile centres whose neighbours are mostly diagonal (city 5299's: 1.41 pitches
    apart, inside the side band when the guess is 2% wide), refitted as whole tiles'
    centres, keep the guess's turn and take the tiles' pitch, not a lattice 23 degrees
    and 17% off."""
    pts = city_5299_centres()
    g = refine_grid(GridFit(math.radians(-0.78), 34.06, (0.0, 0.0), 1.0), pts, sides=True)
    assert abs(math.degrees(g.angle_rad) + 1.0) < 0.5
    assert abs(g.pitch_mm - 33.4) < 0.5


def test_refine_grid_takes_diagonal_neighbours_for_diagonals() -> None:
    """Three tiles in a V (A1, C1 and B2 of a T whose B1 went unread on a look: fresh
    loop game 496), every pair diagonal, on a guess 4% wide (the game's lattice, so the
    refit takes the pairs 45 degrees off it for diagonals): the refit keeps the turn and
    takes the tiles' pitch; taken for side pairs they turned it 45 degrees and stretched
    it to 1.41 pitches (and B1, read again on that lattice, fell between cells)."""
    a = math.radians(-11.2)
    ux, uy = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    pts = np.array([np.array([115.8, 153.5]) + 32.7 * (c * ux + r * uy) for c, r in ((0, 0), (2, 0), (1, 1))])
    g = refine_grid(GridFit(math.radians(-12.8), 34.05, (0.0, 0.0), 1.0), pts, diagonals=True)
    assert abs(math.degrees(g.angle_rad) + 11.2) < 0.5
    assert abs(g.pitch_mm - 32.7) < 0.3


def test_print_middles_close_a_broken_rim_into_one_middle() -> None:
    """A filled symbol's rim broken into four arcs by gaps of about 3 mm (20 mm across,
    1.5 px/mm) gives four middles off its centre as it is, and one at its centre (within
    0.5 mm) closed over 4 mm; a 3 mm speck is dropped as too small either way."""
    cfg = TilesConfig()
    strokes = np.zeros((150, 150), np.uint8)
    centre = (75, 75)
    for start in (8, 98, 188, 278):         # 16 degree gaps: 4 px, 2.8 mm
        cv2.ellipse(strokes, centre, (15, 15), 0, start, start + 74, 1, 2)
    cv2.circle(strokes, (20, 20), 2, 1, -1)
    mask = strokes > 0
    apart = print_middles(mask, 1.5, (0.0, 0.0), cfg, 0.0, 4.0)
    joined = print_middles(mask, 1.5, (0.0, 0.0), cfg, 4.0, 8.0)
    want = (np.array(centre) + 0.5) / 1.5
    assert len(apart) == 4
    assert np.min(np.linalg.norm(apart - want, axis=1)) > 4.0
    assert len(joined) == 1
    assert np.linalg.norm(joined[0] - want) < 0.5


def test_held_cells_counts_cells_with_a_print_mid_cell() -> None:
    """Twelve prints mid-cell on a 40 mm lattice turned 10 deg (two more in cells already
    held) hold 12 cells; the lattice moved half a pitch holds none of them."""
    cfg = TilesConfig()
    g = GridFit(math.radians(10.0), 40.0, (30.0, 20.0), 1.0)
    pts = np.array([g.cell_centre_mm(c, r) for r in range(3) for c in range(4)]
                   + [g.cell_centre_mm(0, 0) + 3.0, g.cell_centre_mm(1, 1) - 3.0])
    assert held_cells(g, pts, cfg) == 12
    o = np.asarray(g.origin_mm) + 20.0 * (g.axes[0] + g.axes[1])
    moved = GridFit(g.angle_rad, g.pitch_mm, (float(o[0]), float(o[1])), 1.0)
    assert held_cells(moved, pts, cfg) == 0
