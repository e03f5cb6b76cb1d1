"""A small city's lattice from its patch off the table's colour (pipeline._blob_grids):
the first tiles of a game, whose print fools the edge search."""

from __future__ import annotations

import math
import random

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.geometry import locate_table
from calibration.profile import default_profile
from vision.synth import render_scene
from vision.synth.randomize import random_environment
from vision.synth.town77 import city_scene, random_style
from vision.tiles.config import TilesConfig
from vision.tiles.pipeline import _blob_grids, read_tiles

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
    assert len(out) == 1
    g, a, b, _ = out[0]
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

