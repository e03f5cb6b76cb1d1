"""A link's end at no station is walked on along its own wire to the station it reaches."""

from __future__ import annotations

import cv2
import numpy as np

from vision.railways.chains import walk_by_wire
from vision.railways.frame import TopView

PX = 2.0
VIEW = TopView(np.zeros((0, 0, 3), np.uint8), np.zeros((0, 0, 3), np.uint8), (0.0, 0.0), PX)


def _arc(radius: float, a0: float, a1: float, centre: tuple[float, float] = (250.0, 300.0)) -> np.ndarray:
    t = np.radians(np.linspace(a0, a1, max(2, int(abs(a1 - a0) * radius / 57.3 / 2))))
    return np.stack([centre[0] + radius * np.cos(t), centre[1] + radius * np.sin(t)], axis=1)


def _wire(path_mm: np.ndarray, seed: int, gaps: list[tuple[int, int]] = []) -> np.ndarray:
    """A speckled wire (a chain's two legs, 0..1) drawn along path_mm on a 600 x 600 mm map."""
    m = np.zeros((1200, 1200), np.float32)
    tang = np.gradient(path_mm, axis=0)
    tang /= np.hypot(tang[:, :1], tang[:, 1:])
    nrm = np.stack([-tang[:, 1], tang[:, 0]], axis=1)
    for side in (-4.0, 4.0):                                   # a clip's two legs, 8 mm apart
        px = np.round((path_mm + side * nrm) * PX).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(m, [px], False, (1.0,), 3)
    rng = np.random.default_rng(seed)
    m *= (rng.random(m.shape) < 0.6).astype(np.float32)        # loops, not a solid line
    for a, b in gaps:
        seg = np.round(path_mm[a:b] * PX).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(m, [seg], False, (0.0,), 24)
    return m


def test_walk_follows_a_bending_wire_across_a_gap_to_the_station() -> None:
    """The traced piece stops 250 mm short; the walk bends with the wire, jumps a 12 mm gap and ends at the card."""
    whole = _arc(200.0, 180.0, 270.0)                     # (50, 300) round to (250, 100)
    traced = whole[: len(whole) // 4]
    station = np.array([[240.0, 80.0], [260.0, 80.0], [260.0, 99.0], [240.0, 99.0]])
    cnt = station.astype(np.float32).reshape(-1, 1, 2)

    def arrived(p: np.ndarray) -> bool:
        return -cv2.pointPolygonTest(cnt, (float(p[0]), float(p[1])), True) <= 2.0
    n = len(whole)
    got = walk_by_wire(traced, _wire(whole, 1, gaps=[(n // 2, n // 2 + 4)]), VIEW, 4.5, arrived,
                       400.0, 4.0, 12.0, 20.0, 20.0, 0.3)
    assert got is not None
    assert arrived(got[-1])
    # the walk keeps to the chain's middle, and within its width where the gap pulls it
    off = np.abs(np.hypot(got[:, 0] - 250.0, got[:, 1] - 300.0) - 200.0)
    assert float(np.median(off)) < 1.0 and float(off.max()) < 6.5


def test_walk_that_reaches_no_station_is_refused() -> None:
    """Wire that gives out in the open (or runs on past every station) gives no walk."""
    whole = _arc(200.0, 180.0, 250.0)
    traced = whole[: len(whole) // 3]
    got = walk_by_wire(traced, _wire(whole, 2), VIEW, 4.5, lambda p: False, 400.0, 4.0, 12.0, 20.0, 20.0, 0.3)
    assert got is None
    far = walk_by_wire(traced, _wire(whole, 3), VIEW, 4.5, lambda p: bool(p[1] < 0), 60.0, 4.0, 12.0, 20.0,
                       20.0, 0.3)
    assert far is None
