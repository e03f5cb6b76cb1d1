"""The lattice judge: on a crowded table every candidate pitch is rated by how tile-like
its cells look, so a symbol's width or a mat's print no longer wins the pitch."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from calibration.geometry import locate_table
from calibration.profile import default_profile
from vision.synth import random_scene, render_scene
from vision.tiles.config import TilesConfig
from vision.tiles.grid import GridFit, half_shifts
from vision.tiles.occupancy import lattice_score, printed
from vision.tiles.pipeline import TilesReading, read_tiles


def _stats(centre: float, spread: float, n: int, bare: float | None = None) -> dict[tuple[int, int], np.ndarray]:
    row = [60.0, 0.0, 0.0, spread, centre] + ([] if bare is None else [bare])
    return {(i, 0): np.array(row) for i in range(n)}


def test_a_symbol_in_a_plain_ring_outscores_one_in_a_busy_ring() -> None:
    """Cells whose symbol sits inside a plain face ring rate higher than cells of the same
    contrast whose ring crosses tile sides and gaps (a lattice at the wrong pitch)."""
    cfg = TilesConfig()
    good = lattice_score(_stats(40.0, 6.0, 20), cfg)
    busy = lattice_score(_stats(40.0, 30.0, 40), cfg)
    assert good == 40.0 / 6.0
    assert busy == 40.0 / 30.0
    assert lattice_score(_stats(5.0, 2.0, 20), cfg) == 0.0     # no symbol anywhere


def test_print_on_bare_table_is_not_a_printed_cell() -> None:
    """A cell with a symbol's contrast whose middle is bare table all over (a mat's lines)
    does not count as printed; the same cell off the table does."""
    cfg = TilesConfig()
    on_table = np.array(list(_stats(40.0, 6.0, 3, bare=0.99).values()))
    off_table = np.array(list(_stats(40.0, 6.0, 3, bare=0.1).values()))
    assert not printed(on_table, cfg).any()
    assert printed(off_table, cfg).all()


def test_half_shift_puts_cell_centres_on_line_crossings() -> None:
    """The shifted copy's cell centres are the lattice's own line crossings."""
    g = GridFit(math.radians(12.0), 35.0, (80.0, 60.0), 1.0)
    same, moved = half_shifts(g)
    assert same == g
    assert np.allclose(moved.cell_centre_mm(0, 0), g.cell_centre_mm(0, 0) + 0.5 * g.pitch_mm * (g.axes[0] + g.axes[1]))
    assert moved.pitch_mm == g.pitch_mm and moved.angle_rad == g.angle_rad


def _read_city(seed: int) -> tuple[dict[str, Any], TilesReading]:
    """A Town 77 city of the issue's kind (2304x1296) and the reader's reading of it."""
    prof = default_profile("town77")
    scene = random_scene("town77", seed, resolution=(2304, 1296))
    image = render_scene(scene).image
    return scene, read_tiles(image, locate_table(image, prof), prof)


def test_big_symbols_on_a_cutting_mat_read_on_the_tiles_pitch() -> None:
    """Seed 7363 (inverse art, 44 tiles on a ruled cutting mat), where the smallest strong
    autocorrelation peak lies at two thirds of the pitch (it had read 81 tiles on a
    21 mm lattice): the judged lattice is within 3% of the tiles' pitch, every tile read."""
    scene, reading = _read_city(7363)
    true_pitch = float(scene["meta"]["pitch_mm"])
    assert abs(reading.grid.pitch_mm - true_pitch) < 0.03 * true_pitch
    assert len(reading.tiles) == len(scene["meta"]["tiles"])


def test_a_mats_bold_lines_near_the_tiles_pitch_do_not_set_the_lattices_phase() -> None:
    """Seed 5069 (41 tiles, a blurred green cutting mat whose bold lines lie about the
    tiles' pitch apart): the edges' autocorrelation peak is 3% off the pitch and their
    phase follows the mat, so that lattice rated below one 1.5 pitches wide (it had read
    15 tiles); refitted to the prints' middles it rates highest, and every face-up tile
    is read in its cell, face up or face down as it lies."""
    scene, reading = _read_city(5069)
    # (the lattice refitted to the tiles read lands 4% wide here; the 1.5-pitch one was 55%)
    true_pitch = float(scene["meta"]["pitch_mm"])
    assert abs(reading.grid.pitch_mm - true_pitch) < 0.05 * true_pitch
    want = {(t["row"], t["col"], t["face_down"]) for t in scene["meta"]["tiles"]}
    r0, c0 = min(t.row for t in reading.tiles), min(t.col for t in reading.tiles)
    assert {(t.row - r0, t.col - c0, t.face_down) for t in reading.tiles} == want


def test_tiles_turned_off_a_mats_lines_are_read_on_their_own_turn() -> None:
    """Seed 104731 (the colour bench's generic tiles scene 2: 36 pale fronts turned 15 deg
    on a light cutting mat ruled at 0 deg): no candidate turn is the tiles' (their edges
    are pale on pale), and every lattice of the mat's turn rated higher than none; the
    lattice fitted to the prints' middles is the tiles' (it had read 114 "tiles" on the
    mat's 14 mm lattice)."""
    scene = random_scene("tiles", 104731, resolution=(2304, 1296))
    rendered = render_scene(scene)
    prof = rendered.profile
    reading = read_tiles(rendered.image, locate_table(rendered.image, prof), prof)
    truth = rendered.truth
    assert abs(reading.grid.pitch_mm - float(truth["pitch_mm"])) < 0.03 * float(truth["pitch_mm"])
    assert len(reading.tiles) == len(truth["tiles"])


def test_filled_prints_under_a_warm_lamp_on_wood_set_the_lattice() -> None:
    """Seed 5002 (28 white tiles with filled symbols on light wood under an orange cast
    and a lamp's glare): no candidate from the edges is the tiles' turn, and the prints'
    strokes are broken rims and tile corners; closed into whole rims their middles give
    the tiles' lattice (it had read 47 phantoms on a 21 mm lattice)."""
    scene, reading = _read_city(5002)
    true_pitch = float(scene["meta"]["pitch_mm"])
    assert abs(reading.grid.pitch_mm - true_pitch) < 0.05 * true_pitch
    want = {(t["row"], t["col"]) for t in scene["meta"]["tiles"]}
    r0, c0 = min(t.row for t in reading.tiles), min(t.col for t in reading.tiles)
    assert {(t.row - r0, t.col - c0) for t in reading.tiles} == want
