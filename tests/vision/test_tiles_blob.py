"""A small city's lattice from its patch off the table's colour (pipeline._blob_grids):
the first tiles of a game, whose print fools the edge search."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.geometry import locate_table
from calibration.profile import default_profile
from vision.synth import render_scene
from vision.synth.randomize import random_environment
from vision.synth.town77 import city_scene, random_style
from vision.tiles.config import TilesConfig
from vision.tiles.face import CellLook
from vision.tiles.grid import GridFit
from vision.tiles.pipeline import TileReading, _blob_choice, _blob_grids, read_tiles

CPX = 1.5
ORIGIN = (10.0, 20.0)


def _table_with_patch(w_mm: float, h_mm: float, turn_deg: float) -> NDArray[np.bool_]:
    """A 300 x 200 mm bare-table mask (True = table) with one turned rectangle off it."""
    near = np.ones((int(200 * CPX), int(300 * CPX)), np.uint8)
    box = cv2.boxPoints(((150 * CPX, 100 * CPX), (w_mm * CPX, h_mm * CPX), turn_deg))
    cv2.fillPoly(near, [np.round(box).astype(np.int32)], (0,))
    return near.astype(bool)


def test_a_domino_patch_gives_its_pitch_and_turn() -> None:
    """Two tiles of pitch 36 mm turned 10 degrees (a patch 74 x 38 mm) read as 1 x 2 cells
    of about 36 mm at about 10 degrees."""
    cfg = TilesConfig()
    out = _blob_grids(_table_with_patch(2 * 36.0 + cfg.blob_margin_mm, 36.0 + cfg.blob_margin_mm, 10.0),
                      CPX, ORIGIN, cfg)
    assert len(out) == 1 and len(out[0].splits) == 1
    g, a, b = out[0].splits[0]
    assert a * b == 2
    assert abs(g.pitch_mm - 36.0) < 1.5, g
    assert abs(math.degrees(g.angle_rad) - 10.0) < 1.5, g


def test_a_patch_of_no_whole_number_of_cells_is_no_city() -> None:
    """A 38 x 95 mm patch (a card, an arm) is 1 x 2.5 cells at any tile pitch: no lattice."""
    assert _blob_grids(_table_with_patch(38.0, 95.0, 0.0), CPX, ORIGIN, TilesConfig()) == []


def test_three_dark_tiles_on_glare_lit_wood_read_on_their_lattice() -> None:
    """Loop game 137's third frame (three black tiles on wood under two lamps' glare): the
    edge search lands on a 55 mm lattice that holds no symbol (main read no tile at
    all); the patch's lattice reads the three tiles at their cells."""
    prof = default_profile("town77")
    style = random_style(137, prof)
    env = random_environment(random.Random(137), (2304, 1296), prof)
    env["profile"] = prof.name
    cells = [{"row": 0, "col": 0, "shape": 0, "colour": 4}, {"row": 1, "col": 0, "shape": 6, "colour": 1},
             {"row": 1, "col": 1, "shape": 5, "colour": 4}]
    image = render_scene(city_scene(cells, style, env, 137 + 203, [])).image
    reading = read_tiles(image, locate_table(image, prof), prof)
    assert sorted(reading.rc(t) for t in reading.tiles if not t.face_down) == [(0, 0), (1, 0), (1, 1)]
    assert reading.grid is not None and abs(reading.grid.pitch_mm - style["pitch_mm"]) < 0.1 * style["pitch_mm"]



def _look(offset: float) -> CellLook:
    """A printed cell's look whose symbol sits `offset` pitches off the cell's middle."""
    return CellLook(np.zeros(3), 1.0, 0.2, np.full(3, 50.0), np.zeros(16, np.float32), 0.0, (offset, 0.0), 30.0)


def _cells(g: GridFit, n: int, offset: float = 0.02) -> list[TileReading]:
    """Face-up readings of the n x n cells (0..n-1) of lattice g."""
    out = []
    for c in range(n):
        for r in range(n):
            ctr = g.cell_centre_mm(c, r)
            out.append(TileReading(c, r, (float(ctr[0]), float(ctr[1])), False, _look(offset)))
    return out


def _block(pitch: float, n: int) -> tuple[NDArray[np.bool_], NDArray[np.float32], GridFit]:
    """A bare-table mask and a grey view of n x n dark tiles (side pitch - gap) at 0
    degrees in the middle of a 300 x 200 mm table, and their lattice."""
    cfg = TilesConfig()
    side = pitch - cfg.gap_mm
    grey = np.full((int(200 * CPX), int(300 * CPX)), 0.8, np.float32)
    x0, y0 = 150.0 - 0.5 * n * pitch, 100.0 - 0.5 * n * pitch
    for i in range(n):
        for j in range(n):
            a = (x0 + i * pitch + 0.5 * cfg.gap_mm - 0.0) * CPX, (y0 + j * pitch + 0.5 * cfg.gap_mm) * CPX
            cv2.rectangle(grey, (int(round(a[0])), int(round(a[1]))),
                          (int(round(a[0] + side * CPX)), int(round(a[1] + side * CPX))), (0.3,), -1)
    near = _table_with_patch(n * pitch + cfg.blob_margin_mm, n * pitch + cfg.blob_margin_mm, 0.0)
    g = GridFit(0.0, pitch, (ORIGIN[0] + x0, ORIGIN[1] + y0), 1.0)
    return near, grey, g


def test_a_held_block_is_not_read_on_a_split_too_coarse() -> None:
    """3 x 3 tiles of 36 mm held in their cells on a lattice turned 6 degrees off the
    patch: the patch's 2 x 2 split (54 mm, each cell's merged print near its middle)
    would read 4 of the 9 tiles; the 3 x 3 split (36 mm, the tiles' outlines) is taken."""
    cfg = TilesConfig()
    near, grey, true = _block(36.0, 3)
    searched = GridFit(math.radians(6.0), 36.0, true.origin_mm, 1.0)

    def read(g: GridFit) -> list[TileReading]:
        n = int(round(3 * 36.0 / g.pitch_mm))
        return _cells(g, n)

    picked = _blob_choice(_cells(searched, 3), searched, lambda: near, grey, CPX, ORIGIN, cfg, read)
    assert picked is not None
    g, tiles = picked
    assert abs(g.pitch_mm - 36.0) < 2.0 and abs(g.angle_rad) < 0.02, g
    assert len(tiles) == 9


def test_a_held_block_is_kept_when_only_a_coarse_split_fits() -> None:
    """The same 3 x 3 block when the patch offers only splits of other pitches (its
    3 x 3 split refused): the lattice that held nine tiles is kept, not a split that
    reads four."""
    cfg = replace(TilesConfig(), blob_cells=2)
    near, grey, true = _block(36.0, 3)
    searched = GridFit(math.radians(6.0), 36.0, true.origin_mm, 1.0)
    picked = _blob_choice(_cells(searched, 3), searched, lambda: near, grey, CPX, ORIGIN, cfg,
                          lambda g: _cells(g, 2))
    assert picked is None


def test_a_six_tile_t_keeps_its_pitch() -> None:
    """Six tiles of 34.5 mm in a T (style and table of seed 9107): the patch's 2 x 2
    split (54.6 mm, 1.6x too coarse) read one tile; the lattice of all six is kept."""
    prof = default_profile("town77")
    style = random_style(9107, prof)
    env = random_environment(random.Random(9107), (2304, 1296), prof)
    env["profile"] = prof.name
    rng = random.Random(9107)
    t6 = [(0, 0), (0, 1), (0, 2), (1, 1), (2, 1), (1, 0)]
    cells = [{"row": r, "col": c, "shape": rng.randrange(7), "colour": rng.randrange(7)} for r, c in t6]
    image = render_scene(city_scene(cells, style, env, 9107 + 203, [])).image
    reading = read_tiles(image, locate_table(image, prof), prof)
    assert sorted(reading.rc(t) for t in reading.tiles if not t.face_down) == sorted(t6)
    assert reading.grid is not None and abs(reading.grid.pitch_mm - style["pitch_mm"]) < 0.1 * style["pitch_mm"]
