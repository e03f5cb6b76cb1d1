"""A lone tile whose face is about the table's colour (loop game 16's pioneer: a red
disc on a pale tile on a pale grey table): its cut edge shows only as a faint shadow
line beside the disc's strong edge, so the outline is looked for beyond the print
(pipeline._lone_outline), and a lattice refit that reads no print is not taken."""

from __future__ import annotations

from functools import cache

import numpy as np

from calibration.geometry import locate_table
from calibration.profile import default_profile
from vision.tiles.pipeline import read_tiles

PROFILE = default_profile("town77")


@cache
def _pioneer() -> np.ndarray:
    from firmware.bench.loop import real_game

    frames, placed = real_game(16, 1, (2304, 1296), hands=False)
    assert placed == [(0, 0)]
    return frames[-1]


def test_a_lone_pioneer_on_a_face_of_the_tables_colour_is_read_as_one_tile() -> None:
    """Exactly one face-up tile is read, and its disc is seen as a print."""
    image = _pioneer()
    out = read_tiles(image, locate_table(image, PROFILE), PROFILE, shapes=7, colours=7)
    assert [(t.face_down, t.look.has_symbol) for t in out.tiles] == [(False, True)]


@cache
def _challenge_frame() -> tuple[np.ndarray, dict]:
    from vision.synth import render_scene
    from vision.synth.town77_challenge import challenge_game, challenge_scene, challenge_table

    frames = challenge_game(1, "hint", max_moves=14, misplace_at=None)
    style, env = challenge_table(1, (2304, 1296))
    scene = challenge_scene(frames[2], style, env, seed=1002, wobble=1.0, flat=False)
    return render_scene(scene).image, scene["meta"]


def test_few_tiles_far_apart_take_the_lattice_of_their_outlines() -> None:
    """Challenge game 1, two city tiles and three pile tops well apart: the lattice that
    holds all five prints mid-cell is taken over one turned 6.7 degrees that cut a pile
    top in two (pitch within 5%, turn within 2 degrees of the truth)."""
    image, meta = _challenge_frame()
    out = read_tiles(image, locate_table(image, PROFILE), PROFILE, shapes=7, colours=7)
    turn = (np.degrees(out.grid.angle_rad) - meta["grid"]["angle_deg"] + 45.0) % 90.0 - 45.0
    assert abs(out.grid.pitch_mm / meta["pitch_mm"] - 1.0) < 0.05 and abs(turn) < 2.0
