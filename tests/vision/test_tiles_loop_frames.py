"""Loop bench frames the reader lost: a tile in a lamp's spot whose print the few
tiles' outline lattice dropped (fresh game 207), a small city beside a cup whose stray
prints outnumbered it, so its last lattice was searched away (fresh game 213), a lone
pioneer off the lattice of a mat's ruled lines (fresh game 231), a tile laid off
its cell read face down (game 24), a dark front without the sheen its fellows show
read face down (held-out game 145), a lone pioneer whose face is about the table's
grey read on a lattice finer than its own (fresh game 460), and a T of four tiles
whose refit took diagonal pairs for sides (fresh game 496)."""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from calibration.geometry import detect_markers, fit_from_markers, lens_at_frame_size, locate_table
from calibration.profile import default_profile
from firmware.loop import LoopConfig
from vision.tiles.grid import GridFit
from vision.tiles.pipeline import read_tiles
from vision.tiles.reader import grid_from_dict

PROFILE = default_profile("town77")


@cache
def _frames(seed: int, moves: int) -> list[np.ndarray]:
    from firmware.bench.loop import real_game

    frames, _ = real_game(seed, moves, (2304, 1296), cups=True, hands=True)
    return frames


def test_a_tile_in_a_lamps_spot_keeps_its_print_beside_the_pioneer() -> None:
    """Game 207, the second tile laid: both tiles read face up with a print (main read
    none: the outline lattice, its pitch set by one tile's outline measured 2 mm wide
    in the glare, lost the pioneer's faint print and was taken anyway)."""
    image = _frames(207, 2)[3]
    out = read_tiles(image, locate_table(image, PROFILE), PROFILE, shapes=7, colours=7)
    cells = sorted((t.row - out.origin_cell[1], t.col - out.origin_cell[0]) for t in out.tiles)
    assert cells == [(0, 0), (1, 0)] and all(t.look.has_symbol and not t.face_down for t in out.tiles)


@pytest.mark.parametrize("fit_frame", [0, 2, 4])
def test_a_city_beside_a_cup_stays_on_its_last_lattice(fit_frame: int) -> None:
    """Game 213, the fourth tile laid beside a cup: on the loop's last lattice (as it held
    it) the city A1, B1, C1 and B2 is read in place, whichever frame's markers placed the
    table (main: 5 of 6 such fits lost the lattice to the cup rim's prints)."""
    frames = _frames(213, 4)
    hint = grid_from_dict({"pitch_mm": 33.277, "angle_deg": 13.556, "origin_mm": [116.18, 74.43]})
    out = read_tiles(frames[5], locate_table(frames[fit_frame], PROFILE), PROFILE, grid_hint=hint)
    assert sorted((t.row, t.col, t.face_down) for t in out.tiles) == [
        (0, 0, False), (0, 1, False), (0, 2, False), (1, 1, False)]


def test_a_lone_pioneer_off_a_mats_lattice_is_read() -> None:
    """Fresh game 231, the pioneer alone: a white front with a pink print on a white mat
    in a lamp's spot, found where it lies (main read no tile: the lattice search followed
    the mat's ruled lines, and the print lay off every cell's middle)."""
    image = _frames(231, 1)[1]
    out = read_tiles(image, locate_table(image, PROFILE), PROFILE)
    assert len(out.tiles) == 1 and out.tiles[0].look.has_symbol and not out.tiles[0].face_down
    assert np.hypot(out.tiles[0].centre_mm[0] - 112.0, out.tiles[0].centre_mm[1] - 172.0) < 3.0


def test_a_tile_laid_off_its_cell_is_read_face_up() -> None:
    """Game 24, the eighth tile laid: the brown ring's tile (C4) lies 0.2 of a cell off the
    lattice, and is read face up with its print (main read it face down: the dark felt on
    one side of its cell was taken for its face, the white face for its print)."""
    frames = _frames(24, 8)
    hint = grid_from_dict({"pitch_mm": 37.342, "angle_deg": 16.393, "origin_mm": [176.44, 86.81]})
    # the table fit as the loop makes it (markers found at fit_max_side, corners at full size)
    prof = lens_at_frame_size(PROFILE, frames[12])
    fit = fit_from_markers(detect_markers(frames[12], prof.dictionary, max_side=LoopConfig().fit_max_side),
                           prof, frames[12])
    out = read_tiles(frames[12], fit, PROFILE, grid_hint=hint)
    c0, r0 = out.origin_cell
    assert sorted((t.row - r0, t.col - c0, t.face_down) for t in out.tiles) == [
        (0, 0, False), (0, 1, False), (1, 0, False), (1, 1, False), (1, 2, False), (2, 2, False),
        (3, 2, False), (3, 3, False)]


@pytest.mark.xfail(strict=True, reason="not yet: the darker part is weighed against at least "
                   "dark_fronts (4) alike fronts, and this frame's five split 1, 2 and 2 by their faces")
def test_a_dark_front_without_its_fellows_sheen_is_read_face_up() -> None:
    """Held-out game 145, the fifth tile laid (C2): four dark glossy fronts lifted some 30 L
    by a lamp's sheen and a fifth without one, on the loop's last lattice and table fit:
    all five read face up (main called one face down and lost another, and the game
    missed C2 and C3)."""
    frames = _frames(145, 5)
    hint = grid_from_dict({"pitch_mm": 33.136, "angle_deg": 13.647, "origin_mm": [145.53, 76.14]})
    prof = lens_at_frame_size(PROFILE, frames[8])
    fit = fit_from_markers(detect_markers(frames[8], prof.dictionary, max_side=LoopConfig().fit_max_side),
                           prof, frames[8])
    out = read_tiles(frames[8], fit, PROFILE, grid_hint=hint)
    c0, r0 = out.origin_cell
    assert sorted((t.row - r0, t.col - c0, t.face_down) for t in out.tiles) == [
        (0, 0, False), (1, 0, False), (1, 1, False), (1, 2, False), (2, 0, False)]


@pytest.mark.parametrize("loop_fit", [False, True])
def test_a_lone_pioneer_about_the_tables_grey_is_read_on_its_own_pitch(loop_fit: bool) -> None:
    """Fresh game 460, the pioneer alone: a magenta face (about the table's grey) with a
    white ring, 34.5 mm pitch. Its patch off the table gives the pitch; the outline
    finder sees only the ring's edges (18 and 13 mm squares), which are print and say
    nothing against it (main: 26.3 and 29.4 mm; in the loop 16.6 mm, the ring cut into
    five "tiles")."""
    image = _frames(460, 1)[1]
    if loop_fit:
        prof = lens_at_frame_size(PROFILE, image)
        fit = fit_from_markers(detect_markers(image, prof.dictionary, max_side=LoopConfig().fit_max_side),
                               prof, image)
    else:
        fit = locate_table(image, PROFILE)
    out = read_tiles(image, fit, PROFILE, shapes=7, colours=7, copies=1)
    assert out.grid is not None and abs(out.grid.pitch_mm - 34.5) < 0.05 * 34.5, out.grid
    assert len(out.tiles) == 1 and out.tiles[0].look.has_symbol and not out.tiles[0].face_down


@pytest.mark.parametrize("fit_frame", [0, 1, 2])
def test_a_t_of_four_tiles_keeps_the_games_lattice(fit_frame: int) -> None:
    """Fresh game 496, the fourth tile laid (A1, B1, C1, B2: a T): on the loop's last
    lattice the refit, made on the first read's centres, takes the pairs 45 degrees off
    it for cells' diagonals and keeps the lattice, so the T is read whole (main, whose
    refit took them for sides once B1 dropped out of a read, went to a lattice turned
    45 degrees and 1.3 times the pitch, where B1 lay between cells)."""
    frames = _frames(496, 4)
    hint = GridFit(-0.17610372152622786, 33.06, (95.12968512706587, 135.4216283624441), 1.0)  # the loop's
    out = read_tiles(frames[4], locate_table(frames[fit_frame], PROFILE), PROFILE, grid_hint=hint)
    assert 30.0 < out.grid.pitch_mm < 37.0
    cells = {(t.row, t.col) for t in out.tiles if not t.face_down}
    r0, c0 = min(cells, key=lambda rc: (rc[0] + rc[1], rc))
    assert {(r0, c0), (r0, c0 + 1), (r0, c0 + 2), (r0 + 1, c0 + 1)} <= cells
