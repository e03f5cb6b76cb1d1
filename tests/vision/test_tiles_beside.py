"""Outlined prints beside a few clear ones (TilesConfig.beside_clear): a large hollow
star or hexagon on a face of the table's colour shows the coarse view's cell centre too
little, and only from three clear prints on does their face vouch for it; the side
neighbours of a few clear prints are read in full instead."""

from __future__ import annotations

import dataclasses
from functools import cache

import numpy as np

from calibration.geometry import locate_table
from calibration.profile import default_profile
from vision.tiles.config import TilesConfig
from vision.tiles.pipeline import read_tiles

PROFILE = default_profile("town77")


@cache
def _four_tiles() -> np.ndarray:
    """Loop game 73's table after its fourth tile (A1, B1, A2, B2; firmware.bench.loop):
    B1 and A2 are large magenta outlines on white tiles on a white table, beside two
    clear prints."""
    from firmware.bench.loop import real_game

    frames, placed = real_game(73, 4, (2304, 1296), hands=False)
    assert placed == [(0, 0), (0, 1), (1, 0), (1, 1)]
    return frames[-1]


def _cells(cfg: TilesConfig) -> list[tuple[int, int]]:
    image = _four_tiles()
    out = read_tiles(image, locate_table(image, PROFILE), PROFILE, cfg, shapes=7, colours=7)
    up = [(t.row, t.col) for t in out.tiles if not t.face_down]
    r0, c0 = min(r for r, _ in up), min(c for _, c in up)
    return sorted((r - r0, c - c0) for r, c in up)


def test_outlined_prints_beside_two_clear_ones_are_read_in_their_cells() -> None:
    """All four tiles are read, in a square of cells."""
    assert _cells(TilesConfig()) == [(0, 0), (0, 1), (1, 0), (1, 1)]


def test_without_the_neighbours_read_the_outlined_prints_are_lost() -> None:
    """The same table read without the neighbours' full read misses the two outlines."""
    assert len(_cells(dataclasses.replace(TilesConfig(), beside_clear=0))) == 2
