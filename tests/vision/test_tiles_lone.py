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
