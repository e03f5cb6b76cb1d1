"""The grouping's hesitations (vision.tiles.group.hesitations): a tile's candidates are
listed only below the margins, and reach the observation as `candidates`."""

from __future__ import annotations

import numpy as np

from vision.tiles.group import OWN_GROUP, agglomerate_cut, hesitations, pairwise
from vision.tiles.pipeline import TileReading, TilesReading
from vision.tiles.reader import tile_dicts


def _dist(points: list[float]) -> np.ndarray:
    return pairwise(np.array([[p] for p in points]))


def test_a_tile_between_two_groups_lists_the_runner_up_only_below_the_margin() -> None:
    """Groups at 0 and 10; a tile at 3.5 is grouped with 0 (own 3.5 against 6.5 to the
    other: ratio 1.86, no candidate); one at 4.5 (5.5 / 4.5 = 1.22 < 1.5) lists group 1."""
    for x, expect in ((3.5, []), (4.5, [1])):
        d = _dist([0.0, 0.0, x, 10.0, 10.0])
        labels = [0, 0, 0, 1, 1]
        out = hesitations(d, labels, cut=20.0, hesitate=1.5, alone=0.7)
        assert out[2] == expect
        assert out[0] == [] and out[3] == [] and out[4] == []


def test_a_tile_far_from_its_own_group_for_the_cut_may_be_of_its_own() -> None:
    """Own-group distance over the cut above `alone`: a group of its own is listed; a
    group of one lists nothing (it is its own group already)."""
    d = _dist([0.0, 0.0, 8.0, 40.0])
    labels, cut = [0, 0, 0, 1], 10.0
    out = hesitations(d, labels, cut, hesitate=1.5, alone=0.7)
    assert out[2] == [OWN_GROUP]          # 8 / 10 > 0.7
    assert out[0] == [] and out[3] == []  # 8/3 / 10 below; a group of one
    # offered only in groups of at most alone_most tiles
    assert hesitations(d, labels, cut, 1.5, 0.7, alone_most=2)[2] == []
    assert hesitations(d, labels, cut, 1.5, 0.7, alone_most=3)[2] == [OWN_GROUP]


def test_agglomerate_cut_returns_the_window_cut() -> None:
    d = _dist([0.0, 1.0, 10.0, 11.0])
    labels, cut = agglomerate_cut(d, 5.0, None, (0.7, 2.0))
    assert labels == [0, 0, 1, 1] and 3.5 < cut < 10.0


def _tile(col: int, s: int, c: int, sc: list[int], cc: list[int]) -> TileReading:
    t = TileReading(col, 0, (10.0 * col, 0.0), False, None, s, c,  # type: ignore[arg-type]
                    f"shape-{s + 1}", f"colour-{c + 1}")
    t.shape_candidates, t.colour_candidates = sc, cc
    return t


def test_candidates_reach_the_observation_by_the_groups_labels() -> None:
    reading = TilesReading(None, [_tile(0, 0, 0, [], []), _tile(1, 1, 1, [0], [OWN_GROUP])],
                           shape_groups=2, colour_groups=2)
    d = tile_dicts(reading)
    assert "candidates" not in d[0]
    assert d[1]["candidates"] == [{"shape": "shape-1", "colour": "colour-2"},
                                  {"shape": "shape-2", "colour": "colour-3"}]


def test_a_tile_alone_lists_the_nearest_group_only_within_single_cuts() -> None:
    """A group of one hesitates over the nearest group when it lies under `single` cuts
    (a print the cut split off by a little), and over nothing farther or without `single`."""
    d = _dist([0.0, 0.0, 13.0, 40.0])
    labels, cut = [0, 0, 1, 2], 10.0
    assert hesitations(d, labels, cut, 1.5, 0.7)[2] == []              # no `single`
    assert hesitations(d, labels, cut, 1.5, 0.7, single=1.45)[2] == [0]  # 1.3 cuts away
    assert hesitations(d, labels, cut, 1.5, 0.7, single=1.2)[2] == []   # 1.3 > 1.2
    assert hesitations(d, labels, cut, 1.5, 0.7, single=1.45)[3] == []  # 2.7 cuts from group 1


def test_a_tile_far_from_one_mate_may_be_of_its_own_with_apart() -> None:
    """A group chained through a middle tile (0, 5, 9): the end tile's mean to its mates
    is under `alone` of the cut, its distance to the far end over `apart`, so it lists a
    group of its own with `apart` and nothing without."""
    d = _dist([0.0, 5.0, 9.0, 40.0])
    labels, cut = [0, 0, 0, 1], 10.0
    assert hesitations(d, labels, cut, 1.5, 0.7)[2] == []                  # mean 6.5 / 10
    assert hesitations(d, labels, cut, 1.5, 0.7, apart=0.8)[2] == [OWN_GROUP]   # 9 / 10
    assert hesitations(d, labels, cut, 1.5, 0.7, apart=0.95)[2] == []
    assert hesitations(d, labels, cut, 1.5, 0.7, apart=0.8)[1] == []       # 5 and 4 from its mates
