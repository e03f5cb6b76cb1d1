"""Pieces of one chain split at a crossing are joined again through it, on the chain's
heading and on what is seen in the gap (vision.railways.chains.join_through)."""

from __future__ import annotations

from typing import Callable

import cv2
import numpy as np

from vision.railways.chains import gap_curve, join_through

SIZE = 600          # the test maps: 1 px per mm, 600 x 600 mm


def _line(a: tuple[float, float], b: tuple[float, float], step: float = 1.0) -> np.ndarray:
    a_, b_ = np.asarray(a, float), np.asarray(b, float)
    n = max(2, int(np.hypot(*(b_ - a_)) / step) + 1)
    return np.asarray(a_ + (b_ - a_) * np.linspace(0.0, 1.0, n)[:, None], dtype=np.float64)


def _band(paths: list[np.ndarray], seed: int) -> np.ndarray:
    """A chain band (0/1, 1 px per mm) about a clip wide along each path, speckled a little."""
    m = np.zeros((SIZE, SIZE), np.uint8)
    for p in paths:
        cv2.polylines(m, [np.round(p).astype(np.int32).reshape(-1, 1, 2)], False, (1,), 9)
    rng = np.random.default_rng(seed)
    return np.asarray(m & (rng.random(m.shape) < 0.9), dtype=np.uint8)


Seen = Callable[[np.ndarray], np.ndarray]


def _seen_in(band: np.ndarray) -> Seen:
    close = cv2.dilate(band, np.ones((5, 5), np.uint8))

    def seen(curve: np.ndarray) -> np.ndarray:
        ij = np.clip(np.floor(curve).astype(int), 0, SIZE - 1)
        return np.asarray(close[ij[:, 1], ij[:, 0]] > 0, dtype=np.float32)
    return seen


def _never_blocked(curve: np.ndarray) -> bool:
    return False


def _join(paths: list[np.ndarray], seen: Seen, free: list[tuple[bool, bool]] | None = None,
          blocked: Callable[[np.ndarray], bool] = _never_blocked) -> list[tuple[np.ndarray, list[int]]]:
    free = free or [(True, True)] * len(paths)
    return join_through(paths, free, seen, blocked, 100.0, 25.0, 8.0, 25.0, 8.0, 0.8)


def test_halves_under_a_crossing_chain_are_joined_straight_through() -> None:
    """A chain hidden for 40 mm under another at 20 degrees: its halves become one path, continuous."""
    left, right = _line((50, 300), (280, 300)), _line((320, 300), (550, 300))
    over = _line((100, 227), (500, 373))                    # the chain on top, 20 degrees across
    got = _join([left, right], _seen_in(_band([left, right, over], 1)))
    assert len(got) == 1 and sorted(got[0][1]) == [0, 1]
    path = got[0][0]
    assert float(np.hypot(*np.diff(path, axis=0).T).max()) < 1.5       # no jump across the gap
    assert float(np.abs(path[:, 1] - 300.0).max()) < 0.5                 # straight on, not bent
    assert {tuple(np.round(path[0])), tuple(np.round(path[-1]))} == {(50.0, 300.0), (550.0, 300.0)}


def test_halves_across_bare_table_stay_apart() -> None:
    """The same two halves with nothing in the gap are two pieces (a chain never floats)."""
    left, right = _line((50, 300), (280, 300)), _line((320, 300), (550, 300))
    got = _join([left, right], _seen_in(_band([left, right], 2)))
    assert sorted(len(o[1]) for o in got) == [1, 1]


def test_the_straighter_continuation_wins_and_an_end_at_a_station_is_kept() -> None:
    """Of two pieces leaving the gap, the one on the heading is taken (not one 20 degrees off, also within reach);
    a piece whose end joins a station is never joined at that end."""
    left, right = _line((50, 300), (280, 300)), _line((320, 300), (550, 300))
    aslant = _line((322, 310), (322 + 200 * np.cos(np.radians(20)), 310 + 200 * np.sin(np.radians(20))))
    seen = _seen_in(_band([left, right, aslant, _line((280, 300), (320, 300))], 3))
    got = _join([left, aslant, right], seen)
    joined = [o[1] for o in got if len(o[1]) > 1]
    assert [sorted(j) for j in joined] == [[0, 2]]
    kept = _join([left, right], seen, free=[(True, False), (True, True)])
    assert sorted(len(o[1]) for o in kept) == [1, 1]


def test_a_gap_over_a_card_is_refused() -> None:
    """Two ends facing each other across a station's card are two links into it, not one chain."""
    left, right = _line((50, 300), (270, 300)), _line((330, 300), (550, 300))
    seen = _seen_in(_band([left, right, _line((270, 300), (330, 300))], 4))

    def on_card(curve: np.ndarray) -> bool:
        return bool(np.any((curve[:, 0] > 280) & (curve[:, 0] < 320)))
    got = _join([left, right], seen, blocked=on_card)
    assert sorted(len(o[1]) for o in got) == [1, 1]


def test_gap_curve_follows_both_headings() -> None:
    """The gap's curve leaves one end along its heading and enters the other against its own."""
    c = gap_curve(np.array([0.0, 0.0]), np.array([1.0, 0.0]), np.array([40.0, 10.0]), np.array([-1.0, 0.0]))
    assert len(c) >= 38
    first, last = c[1] - c[0], c[-1] - c[-2]
    assert abs(first[1]) < 0.1 * abs(first[0]) and abs(last[1]) < 0.1 * abs(last[0])
    assert float(np.hypot(*np.diff(c, axis=0).T).max()) < 1.5


def _half_seen(curve: np.ndarray) -> np.ndarray:
    """The gap's evidence seen along its first 60% only (a faint chain over it)."""
    return np.asarray(np.arange(len(curve)) < 0.6 * len(curve), dtype=np.float32)


def test_ends_in_line_need_less_of_the_gap_seen() -> None:
    """Halves in line across a 40 mm gap seen along 60% of it are joined; ends 6 mm off line are not."""
    left, right = _line((50, 300), (280, 300)), _line((320, 300), (550, 300))
    line = (10.0, 4.0, 0.5)
    got = join_through([left, right], [(True, True)] * 2, _half_seen, _never_blocked, 100.0, 25.0, 8.0, 25.0,
                       8.0, 0.8, line)
    assert len(got) == 1
    strict = join_through([left, right], [(True, True)] * 2, _half_seen, _never_blocked, 100.0, 25.0, 8.0, 25.0,
                          8.0, 0.8)
    assert len(strict) == 2
    off = _line((320, 306), (550, 306))
    aside = join_through([left, off], [(True, True)] * 2, _half_seen, _never_blocked, 100.0, 25.0, 8.0, 25.0,
                         8.0, 0.8, line)
    assert len(aside) == 2


def _card(sid: str, c: tuple[float, float]) -> "Station":
    from vision.railways.stations import Station
    h = 30.0
    poly = np.array([[c[0] - h, c[1] - h], [c[0] + h, c[1] - h], [c[0] + h, c[1] + h], [c[0] - h, c[1] + h]])
    return Station(sid, "town", c, poly, 60.0)


def _anchored_halves(far_card: tuple[float, float]) -> list[tuple[str, np.ndarray, int, float, bool]]:
    """Two red halves bent 38 degrees where they were crossed (50 mm apart), one from a card
    at (60, 300), the other ending at 480-ish, 400-ish; the chain seen in the gap. Joined
    by pipeline._joined with the default settings, a second card at far_card."""
    import dataclasses
    from vision.railways.chains import LazyMap
    from vision.railways.config import RailwaysConfig
    from vision.railways.frame import TopView
    from vision.railways.pipeline import _joined
    a = _line((92, 300), (280, 300))
    d = np.array([np.cos(np.radians(38)), np.sin(np.radians(38))])
    b = _line((330, 310), tuple(np.array([330.0, 310.0]) + 150 * d))
    gap = gap_curve(a[-1], np.array([1.0, 0.0]), b[0], -d)
    band = _band([a, b, gap], 3)
    wire = np.zeros((SIZE, SIZE), np.uint8)
    for p in (a, b, gap):
        cv2.polylines(wire, [np.round(p).astype(np.int32).reshape(-1, 1, 2)], False, (255,), 2)
    view = TopView(np.zeros((0, 0, 3), np.uint8), np.zeros((0, 0, 3), np.uint8), (0.0, 0.0), 1.0)
    stations = [_card("A", (60.0, 300.0)), _card("B", far_card)]
    carried = [("red", a, 1, 0.5, False), ("red", b, 1, 0.5, False)]
    cfg = dataclasses.replace(RailwaysConfig(), default_clip_mm=32.0)
    return _joined(carried, {"red": LazyMap.over255(wire)}, {"red": band}, view, stations, cfg)


def test_halves_anchored_at_stations_are_joined_through_a_bend() -> None:
    """Halves each joining a station at their other end are one link across a 38 degree bend (the first pass takes 25); with the far card elsewhere they stay two."""
    d = np.array([np.cos(np.radians(38)), np.sin(np.radians(38))])
    end = np.array([330.0, 310.0]) + 150 * d
    got = _anchored_halves(tuple(end + 32 * d))
    assert len(got) == 1 and got[0][2] == 2
    assert len(_anchored_halves((550.0, 100.0))) == 2
