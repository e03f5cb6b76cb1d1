"""Telling the bare table from the tiles before the lattice is fitted: a lamp's gradient
and a cutting mat's ruled lines are table, and the lattice is the tiles' own."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from calibration.geometry import locate_table
from calibration.profile import default_profile
from vision.synth import random_scene, render_scene
from vision.tiles.config import TilesConfig
from vision.tiles.grid import comb_period, decomb, table_near
from vision.tiles.pipeline import read_tiles

PX = 1.5


def _lit_table_with_tile() -> tuple[NDArray[np.float32], NDArray[np.bool_]]:
    """Lab view of a green table under a lamp (L from 35 to 65 across it), one dark tile."""
    h = w = 450
    lab = np.zeros((h, w, 3), np.float32)
    lab[..., 0] = np.linspace(35.0, 65.0, w, dtype=np.float32)[None, :]
    lab[..., 1] = -30.0
    lab[..., 2] = 10.0
    tile = np.zeros((h, w), bool)
    tile[200:260, 300:360] = True
    lab[tile] = (20.0, 5.0, -5.0)
    return lab, tile


def test_a_lamps_gradient_is_table_and_the_tile_is_not() -> None:
    """Table from dark to bright (30 L apart) is all table; the tile on the bright side is not."""
    lab, tile = _lit_table_with_tile()
    near = table_near(lab, PX, TilesConfig())
    assert near is not None
    assert float(np.mean(near[~tile])) > 0.97
    assert float(np.mean(near[tile])) < 0.05


def test_without_growth_the_bright_side_is_lost() -> None:
    """The check above can fail: the commonest colour alone leaves the lit side off the table."""
    lab, tile = _lit_table_with_tile()
    near = table_near(lab, PX, TilesConfig(table_grow_rounds=0))
    assert near is None or float(np.mean(near[~tile])) < 0.8


def _profile(pitch_mm: float, comb_mm: float | None, n: int = 600) -> NDArray[np.float64]:
    binmm = 1.0 / PX
    x = np.arange(n) * binmm
    p = np.zeros(n)
    for k in range(1, int(x[-1] / pitch_mm)):
        if 2 <= k <= 7:      # seven tiles in a row, mid-table
            p[int(round(k * pitch_mm / binmm))] += 5.0
    if comb_mm is not None:
        for k in range(int(x[-1] / comb_mm)):
            p[int(round((k * comb_mm + 0.3) / binmm))] += 3.0
    return np.asarray(cv2.GaussianBlur(p.reshape(1, -1), (7, 1), 1.0).ravel(), np.float64)


def test_a_mats_ruled_lines_are_found_and_cancelled() -> None:
    """A 10 mm print under tiles 41 mm apart: the print's period is found within 0.05 mm,
    and once cancelled the profile's strongest repeat is the tiles' pitch."""
    cfg = TilesConfig()
    p = _profile(41.0, 10.0)
    period = comb_period(p, 1.0 / PX, cfg)
    assert period is not None and abs(period / PX - 10.0) < 0.05
    q = decomb(p, period)
    r = np.correlate(q, q, "full")[len(q) - 1:]
    lo, hi = int(14 * PX), int(60 * PX)
    assert abs((lo + int(np.argmax(r[lo:hi]))) / PX - 41.0) < 1.0


def test_tiles_alone_are_no_print() -> None:
    """Tile edges with no print repeat at no period finer than a tile."""
    assert comb_period(_profile(37.0, None), 1.0 / PX, TilesConfig()) is None


@pytest.mark.parametrize("seed", [7218, 7221])
def test_city_on_a_cutting_mat_reads_on_the_tiles_lattice(seed: int) -> None:
    """Cities on ruled cutting mats under a lamp (seeds where the lattice had locked on the
    mat's lines): pitch within 5% of the tiles', and at most 10% more tiles read than lie there (it had read hundreds)."""
    prof = default_profile("town77")
    scene = random_scene("town77", seed, resolution=(2304, 1296))
    assert scene["surface"]["kind"] == "cutting_mat"
    image = render_scene(scene).image
    reading = read_tiles(image, locate_table(image, prof), prof)
    true_pitch = float(scene["meta"]["pitch_mm"])
    assert abs(reading.grid.pitch_mm - true_pitch) < 0.05 * true_pitch
    assert len(reading.tiles) <= 1.1 * len(scene["meta"]["tiles"])
    assert math.isfinite(reading.grid.angle_rad)


def test_a_mats_cells_are_not_fronts_beside_the_first_tile() -> None:
    """The first tile of a game on a dark ruled mat, turned against the mat's lines: the
    mat's cells (lines crossing them read as prints, the table's colour all over) are not
    tiles beside a front of another face; one tile is read (it had read 32)."""
    from firmware.bench.loop import real_game

    frames, placed = real_game(2, 2, (2304, 1296), cups=False, hands=False)
    prof = default_profile("town77")
    reading = read_tiles(frames[1], locate_table(frames[1], prof), prof)
    assert placed[0] == (0, 0)
    assert len(reading.tiles) == 1 and not reading.tiles[0].face_down


@pytest.mark.parametrize("seed", [1, 2, 5])
def test_the_first_tile_on_a_mat_reads_alike_under_noise(seed: int) -> None:
    """The frame above with a little camera noise (Gaussian, sigma 2) reads the same one
    face-up tile: the mat's cell beside it is judged on its inner part, away from the
    tile's edge and shadow (on the cell's outer 0.8 it was 0.94 bare, against 0.97), and
    a mat's cell the noise leaves partly off the bare-table mask (seeds 1 and 5 on an
    AVX-512 machine: 0.92 and 0.84 bare) has the bare cells' face, not the front's."""
    from firmware.bench.loop import real_game

    frames, _ = real_game(2, 2, (2304, 1296), cups=False, hands=False)
    rng = np.random.default_rng(seed)
    image = np.clip(frames[1] + rng.normal(0.0, 2.0, frames[1].shape), 0, 255).astype(np.uint8)
    prof = default_profile("town77")
    reading = read_tiles(image, locate_table(image, prof), prof)
    assert len(reading.tiles) == 1 and not reading.tiles[0].face_down
