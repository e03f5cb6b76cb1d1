"""Where a link's path ends: carried on by its wire past the traced band's end
(chains.carry_by_wire), and kept to its very end in the JSON (pipeline._json_path)."""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.railways.chains import LazyMap, carry_by_wire
from vision.railways.frame import TopView
from vision.railways.pipeline import _json_path

VIEW = TopView(np.zeros((0, 0, 3), np.uint8), np.zeros((0, 0, 3), np.uint8), (0.0, 0.0), 2.0)


def _wire(points_mm: list[tuple[float, float]], size_mm: int = 300) -> LazyMap:
    """A wire map (2 px/mm) of a clip chain's two legs along the polyline."""
    m = np.zeros((size_mm * 2, size_mm * 2), np.uint8)
    p = np.asarray(points_mm, dtype=np.float64)
    for a, b in zip(p[:-1], p[1:]):
        d = (b - a) / np.hypot(*(b - a))
        n = np.array([-d[1], d[0]])
        for side in (-3.5, 3.5):
            pa, pb = (a + n * side) * 2, (b + n * side) * 2
            cv2.line(m, (int(pa[0]), int(pa[1])), (int(pb[0]), int(pb[1])), (255,), 2)
    return LazyMap.over255(m)


def _carry(path: np.ndarray, wire: LazyMap, reach: float = 50.0) -> np.ndarray:  # type: ignore[type-arg]
    return carry_by_wire(path, wire, VIEW, 4.5, reach, 35.0, 4.0, 0.3, straight_share=0.9)


def test_a_traced_end_short_of_the_wire_is_carried_to_its_end() -> None:
    """The band stopped 30 mm short (at a station card): the path is carried on to within
    3 mm of where the wire ends, and no further; the other end, 2 mm from its wire's end,
    is carried those 2 mm; an end not asked for stays."""
    wire = _wire([(50.0, 150.0), (230.0, 150.0)])
    path = np.array([[52.0, 150.0], [200.0, 150.0]])
    out = _carry(path, wire)
    ends = sorted([out[0], out[-1]], key=lambda p: p[0])
    assert abs(ends[1][0] - 230.0) < 3.0 and abs(ends[1][1] - 150.0) < 1.5
    assert abs(ends[0][0] - 50.0) < 3.0
    out = carry_by_wire(path, wire, VIEW, 4.5, 50.0, 35.0, 4.0, 0.3, (False, True), 0.9)
    assert out[0][0] == 52.0 and abs(out[-1][0] - 230.0) < 3.0


def test_a_bent_end_is_followed_by_the_fan_of_headings() -> None:
    """A chain turning 30 degrees where the band stopped is carried past the turn and ends
    within the chain's band (a straight ray would leave its wire after about 15 mm; with
    the River's looser choice, straightest within 70% of the longest run, it leaves the
    band)."""
    turn = math.radians(30.0)
    d = np.array([math.cos(turn), math.sin(turn)])
    end = np.array([200.0, 150.0]) + 40.0 * d
    wire = _wire([(50.0, 150.0), (200.0, 150.0), (float(end[0]), float(end[1]))])
    out = _carry(np.array([[60.0, 150.0], [200.0, 150.0]]), wire)
    far = max([out[0], out[-1]], key=lambda p: p[0])
    rel = far - np.array([200.0, 150.0])
    along = float(rel @ d)
    off = float(abs(rel[0] * d[1] - rel[1] * d[0]))
    assert along > 30.0 and off < 8.0


def test_carrying_stops_at_its_reach_and_at_a_gap() -> None:
    """Wire running on for 120 mm carries the end only `reach` on; a gap wider than the
    allowed one stops it at the gap."""
    wire = _wire([(20.0, 150.0), (290.0, 150.0)])
    out = _carry(np.array([[20.0, 150.0], [150.0, 150.0]]), wire, reach=40.0)
    assert abs(max(out[0][0], out[-1][0]) - 190.0) < 1.5
    gapped = _wire([(20.0, 150.0), (170.0, 150.0)]).make(slice(0, 600), slice(0, 600))
    after = _wire([(180.0, 150.0), (260.0, 150.0)]).make(slice(0, 600), slice(0, 600))
    both = LazyMap.over255((np.maximum(gapped, after) * 255).astype(np.uint8))
    out = _carry(np.array([[20.0, 150.0], [150.0, 150.0]]), both, reach=100.0)
    assert abs(max(out[0][0], out[-1][0]) - 170.0) < 3.0


def test_the_json_path_keeps_its_very_end() -> None:
    """A 95 mm path is given every 10 mm and its end point (not cut at 90 mm)."""
    path = np.array([[0.0, 0.0], [95.0, 0.0]])
    out = _json_path(path)
    assert out[0] == [0.0, 0.0] and out[-1] == [95.0, 0.0] and len(out) == 11
    assert _json_path(np.array([[0.0, 0.0], [90.0, 0.0]]))[-1] == [90.0, 0.0]


def test_path_to_clips_ends_the_path_at_the_counted_end_clips() -> None:
    """With path_to_clips a link's path runs from its first clip's end to its last's even
    when its wire was seen 6 mm further (a cube past the end clip); without it, to where
    the wire was seen."""
    from dataclasses import replace

    from vision.railways.config import RailwaysConfig
    from vision.railways.pipeline import ChainStrip, _count_strip
    n = 400
    near = np.full(n, -3.0, np.float32)
    far = np.full(n, -3.0, np.float32)
    for u in (100, 140, 180):
        near[u] = far[u + 64] = 3.0                 # three 32 mm clips, 20 mm apart
    pts = np.stack([np.arange(n) * 0.5, np.zeros(n)], axis=1)
    st = ChainStrip(np.zeros((n, 21), np.float32), np.ones((n, 21), np.float32), 100, 256, pts, (near, far), False)
    cfg = RailwaysConfig()
    res, seen = _count_strip(st, 32.0, replace(cfg, path_to_clips=True))
    assert res.count == 3
    assert seen[0][0] == 50.0 and seen[-1][0] == 122.0
    _, seen = _count_strip(st, 32.0, replace(cfg, path_to_clips=False))
    assert seen[0][0] == 50.0 and seen[-1][0] == 128.0
