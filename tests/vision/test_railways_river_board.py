"""The River's end on the Metropolis board (pipeline._river_counter with river_board_depth):
the rules put the River's silver end on the board, where the reader seldom sees its blue
wire on the board's print, so its path and seen wire stop at the board's edge with its
first clip (and often part of the second) still to come; counted as a link's end clip in
its card, that clip is placed inside the board."""

from __future__ import annotations

import dataclasses

import numpy as np

from railway_chains import slack_chain
from vision.railways.chains import LazyMap
from vision.railways.config import RailwaysConfig
from vision.railways.frame import TopView
from vision.railways.pipeline import _river_counter
from vision.railways.stations import Station

VIEW = TopView(np.zeros((0, 0, 3), np.uint8), np.zeros((0, 0, 3), np.uint8), (0.0, 0.0), 2.0)


def _river(seed: int, board_in_mm: float) -> tuple[LazyMap, np.ndarray, list[Station]]:
    """A River of 32 clips along y 20 mm whose first clip starts board_in_mm inside the
    board (x < its edge), its wire unseen there; the reader's path from the board's edge."""
    cols = ["blue"] * 32
    cols[11] = cols[15] = "silver"
    c = slack_chain(seed, 32, 32.0, colours=cols, background=(60, 70, 60))
    assert c.image is not None
    edge = c.first_mm + board_in_mm
    ev = c.image.copy()
    ev[:, :int(edge * 2)] = 0.0                                      # 2 px/mm
    board = Station("M1", "town", (edge - 70.0, 20.0),
                    np.array([[edge - 140.0, -50.0], [edge, -50.0], [edge, 90.0], [edge - 140.0, 90.0]]),
                    140.0, metropolis=True)
    path = np.array([[edge + 2.0, 20.0], [c.last_mm - 2.0, 20.0]])
    return LazyMap(ev.shape, lambda r, cc: ev[r, cc].astype(np.float32)), path, [board]


def test_the_rivers_first_clip_on_the_metropolis_board_is_counted() -> None:
    off = dataclasses.replace(RailwaysConfig(), river_board_depth=0.0)
    on = dataclasses.replace(RailwaysConfig(), river_board_depth=1.3, river_board_inside=0.4)
    for seed, board_in in ((1, 24.0), (2, 30.0), (3, 22.0)):
        wire, path, board = _river(seed, board_in)
        assert _river_counter(VIEW, board, off)(wire, path, 32.0)[0].count < 32
        res, _ = _river_counter(VIEW, board, on)(wire, path, 32.0)
        assert res.count == 32
        # the starts are given along the path extended by one clip, as read_river takes them
        assert abs(res.starts_mm[0] - (32.0 - board_in - 2.0)) < 6.0


def test_the_shipped_settings_count_the_first_clip_on_the_board() -> None:
    """The reader's own settings (river_board_depth on since session 25) count the same
    Rivers exactly; with the window off they fall a clip short."""
    cfg = RailwaysConfig()
    for seed, board_in in ((1, 24.0), (2, 30.0), (3, 22.0)):
        wire, path, board = _river(seed, board_in)
        assert _river_counter(VIEW, board, cfg)(wire, path, 32.0)[0].count == 32
