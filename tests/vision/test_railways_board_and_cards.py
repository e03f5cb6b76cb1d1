"""R12: two causes of wrong crossing lists on the dev tables (2100-2139 at 4608x2592).

- The Metropolis board, grey like a mountain, read as a mountain tile when chains and
  cubes over it cut its outline below the board test's fill: every link over the board
  then listed an obstacle (6 of 15 false obstacles on dev).
- A card other than a link's ends listed when the link's footprint (a clip's width and a
  wire's around the traced centre line) merely brushed it: 16 entries on real links, none
  true. A link may not cross a station, so each one refused a legal link.
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from calibration.profile import default_profile
from vision.railways.clip_counter import CountResult
from vision.railways.config import RailwaysConfig
from vision.railways.frame import TopView
from vision.railways.obstacles import find_obstacles
from vision.railways.pipeline import LinkReading, _crossings
from vision.railways.stations import Station, _class_names


def _board_classes(seed: int) -> tuple[np.ndarray, list[str], np.ndarray]:  # type: ignore[type-arg]
    """A 1 px/mm class map: table everywhere, a 140 mm grey (mountain-coloured) board at
    (400, 400) turned about 10 deg, a quarter of it hidden and two chains ending on it, so
    its outline fills well under 0.9 of its hull; a real mountain tile
    (200 x 100 mm) elsewhere. Returns the map, the names and the board squares' centres."""
    rng = np.random.default_rng(seed)
    names = _class_names()
    idx = np.full((900, 1200), names.index("table"), np.uint8)
    mountain = names.index("mountain")
    a = np.radians(10.0 + rng.uniform(-3, 3))
    u, v = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
    c = np.array([400.0, 400.0]) + rng.uniform(-5, 5, 2)
    corners = [c + u * sx * 70 + v * sy * 70 for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    cv2.fillPoly(idx, [np.round(np.asarray(corners)).astype(np.int32)], (mountain,))
    # a quarter of the board hidden (links laid along it, cubes, shading) and two chains
    # ending on it, wider than the closing (a chain's clips and its shading)
    cv2.fillPoly(idx, [np.round(np.asarray([c, c + u * 75, c + u * 75 + v * 75, c + v * 75])).astype(np.int32)],
                 (names.index("table"),))
    for k in (-1, 1):
        end = c - u * 20 + v * (25 * k + rng.uniform(-4, 4))
        cv2.line(idx, tuple(int(q) for q in np.round(end - u * 150)), tuple(int(q) for q in np.round(end)),
                 (names.index("ink"),), 13)
    cv2.fillPoly(idx, [np.array([[800, 600], [1000, 600], [1000, 700], [800, 700]], np.int32)], (mountain,))
    squares = np.asarray([c + u * sx * 35 + v * sy * 35 for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
    return idx, names, squares


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_metropolis_board_cut_by_chains_is_no_mountain(seed: int) -> None:
    """The board's grey area, cut to an L, holds the read board's squares: it is
    the board, not a tile (without the rule it is a mountain); the real tile is still found."""
    idx, names, squares = _board_classes(seed)
    cfg = RailwaysConfig()
    lab = np.zeros(idx.shape + (3,), np.uint8)
    got = find_obstacles(lab, (0.0, 0.0), 1.0, cfg, classes=(idx, names), board_mm=squares)
    assert len(got) == 1
    assert got[0].polygon_mm[:, 0].min() > 790.0          # the tile at x 800-1000
    off = find_obstacles(lab, (0.0, 0.0), 1.0, dataclasses.replace(cfg, obstacle_not_board=False),
                         classes=(idx, names), board_mm=squares)
    assert len(off) == 2                                   # the board read as a mountain
    none = find_obstacles(lab, (0.0, 0.0), 1.0, cfg, classes=(idx, names), board_mm=None)
    assert len(none) == 2                                  # no board read: nothing to tell it by


def _square(c: tuple[float, float], side: float, angle: float = 0.0) -> np.ndarray:  # type: ignore[type-arg]
    a = np.radians(angle)
    u, v = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
    h = side / 2
    return np.asarray([np.asarray(c) + u * sx * h + v * sy * h for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])


def _link(pts: list[list[float]], ends: list[str]) -> LinkReading:
    return LinkReading("red", CountResult(5, (), 0.0, 1.0, 0.0), np.asarray(pts, dtype=np.float64), ends, 1)


@pytest.mark.parametrize("seed", range(6))
def test_a_card_brushed_by_a_links_footprint_is_not_in_its_list(seed: int) -> None:
    """A link running past a card with its centre line 3-4.5 mm outside the card (its
    footprint, 5.1 mm either side, reaching the card; its clips, 4.5 mm, at most 1.5 mm
    onto it) does not list the card; the same link with its clips 2.5 mm or more on the
    card, or running across it, does. Without station_overlap_mm every one lists it."""
    rng = np.random.default_rng(seed)
    prof = default_profile("railways")
    view = TopView(np.zeros((4, 4, 3), np.uint8), np.zeros((4, 4, 3), np.uint8), (32.0, 32.0), 2.0)
    cfg = RailwaysConfig()
    ang = float(rng.uniform(-20, 20))
    c = (400.0 + rng.uniform(-20, 20), 400.0 + rng.uniform(-20, 20))
    card = Station("S3", "town", c, _square(c, 60.0, ang), 60.0)
    ends = [Station("S1", "city", (c[0] - 250, c[1] - 100), _square((c[0] - 250, c[1] - 100), 60.0), 60.0),
            Station("S2", "town", (c[0] + 250, c[1] - 100), _square((c[0] + 250, c[1] - 100), 60.0), 60.0)]
    a = np.radians(ang)
    u, v = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])

    def past(gap: float) -> LinkReading:
        """A link along the card's top side, its centre line `gap` mm outside it (negative: inside)."""
        mid = np.asarray(c) - v * (30.0 + gap)
        return _link([list(mid - u * 200), list(mid + u * 200)], ["S1", "S2"])

    def listed(lk: LinkReading, cf: RailwaysConfig) -> bool:
        _crossings([lk], None, [], [card] + ends, prof, view, 32.0, cf)
        return "station:S3" in lk.crosses

    brush = float(rng.uniform(3.0, 4.5))
    assert not listed(past(brush), cfg)
    assert listed(past(brush), dataclasses.replace(cfg, station_overlap_mm=-10.0))
    assert listed(past(2.0), cfg)
    assert listed(past(-10.0), cfg)
    across = _link([list(np.asarray(c) - v * 200), list(np.asarray(c) + v * 200)], ["S1", "S2"])
    assert listed(across, cfg)
