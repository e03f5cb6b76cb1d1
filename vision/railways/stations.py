"""Station cards, the Metropolis board and the cubes on them, read from colour areas.

Why from large colour areas: a card is a 6 cm square of one printed colour (its type),
far larger than any wire, so an opening of the colour membership keeps cards and drops
clips lying on them; the card's outline is the minimum-area rectangle of what is left.
Cards never touch each other (a rule), so squares that touch are the Metropolis.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import math
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.railways.config import CARD_COLOURS, CUBE_COLOURS, RailwaysConfig
from vision.railways.frame import TopView, large, membership

F64 = NDArray[Any]


@dataclass
class Station:
    """A station in table mm: outline (4 corners), type, id, cubes by colour."""

    id: str
    type: str
    centre_mm: tuple[float, float]
    polygon_mm: F64
    side_mm: float
    metropolis: bool = False
    cubes: list[str] = field(default_factory=list)
    cube_boxes_mm: list[F64] = field(default_factory=list)

    def contains(self, pts_mm: F64, grow_mm: float = 0.0) -> NDArray[np.bool_]:
        poly = self.polygon_mm
        if grow_mm:
            c = poly.mean(axis=0)
            v = poly - c
            poly = c + v * (1 + grow_mm / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-9))
        cnt = poly.astype(np.float32).reshape(-1, 1, 2)
        return np.array([cv2.pointPolygonTest(cnt, (float(p[0]), float(p[1])), False) >= 0
                         for p in np.asarray(pts_mm).reshape(-1, 2)], dtype=bool)

    def distance(self, pt_mm: F64) -> float:
        """Signed distance (mm) of a point to the outline: negative inside."""
        cnt = self.polygon_mm.astype(np.float32).reshape(-1, 1, 2)
        return -float(cv2.pointPolygonTest(cnt, (float(pt_mm[0]), float(pt_mm[1])), True))


def find_stations(view: TopView, cfg: RailwaysConfig, small_lab: NDArray[np.uint8],
                  scale: float) -> list[Station]:
    """Every card-coloured square of station size; `small_lab` is the top view's Lab image
    at `scale` pixels per mm (a coarse copy: cards are big)."""
    found: list[Station] = []
    k = 3
    lo, hi = cfg.station_side_mm
    for ctype, bgr in CARD_COLOURS.items():
        m = large(membership(small_lab, bgr, cfg.colour_sigma * 0.8), k)
        mask: NDArray[Any] = (m > 110).astype(np.uint8)
        # the card's printing (name plate, art, boxes) leaves holes: close them
        kc = max(3, int(round(17.0 * scale)) | 1)
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (kc, kc)))
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (kc, kc)))
        n, lab, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        for i in range(1, n):
            area = stats[i, cv2.CC_STAT_AREA] / (scale * scale)
            if area < (lo * 0.8) ** 2 * cfg.card_min_fill:
                continue
            # a blob whose bounding box is wider than the diagonal of the largest card
            # cannot fit one (the table-sized blobs of near-white colours): skip the
            # rectangle fit, the costliest step, for the very same answer
            if max(stats[i, 2], stats[i, 3]) - 1 > math.sqrt(2.0) * hi * 1.05 * scale:
                continue
            ys, xs = np.nonzero(lab[stats[i, 1]:stats[i, 1] + stats[i, 3], stats[i, 0]:stats[i, 0] + stats[i, 2]] == i)
            pts = np.stack([xs + stats[i, 0], ys + stats[i, 1]], axis=1).astype(np.float32)
            (cx, cy), (w, h), ang = cv2.minAreaRect(pts)
            w_mm, h_mm = (w + 1) / scale, (h + 1) / scale
            side = (w_mm + h_mm) / 2
            if not (lo <= min(w_mm, h_mm) and max(w_mm, h_mm) <= hi * 1.05):
                continue
            if max(w_mm, h_mm) > 1.3 * min(w_mm, h_mm):
                continue
            fill = area / max(1.0, w_mm * h_mm)
            if fill < cfg.card_min_fill:
                continue
            box = cv2.boxPoints(((cx, cy), (w + 1, h + 1), ang)).astype(np.float64)
            poly = (box + 0.5) / scale + np.asarray(view.origin_mm)
            centre = ((cx + 0.5) / scale + view.origin_mm[0], (cy + 0.5) / scale + view.origin_mm[1])
            found.append(Station("", ctype, centre, poly, side))
    _mark_metropolis(found)
    _name(found)
    return found


def _mark_metropolis(stations: list[Station]) -> None:
    """Squares touching other squares (ordinary cards never touch) form the Metropolis."""
    for s in stations:
        near = [t for t in stations if t is not s and
                np.hypot(t.centre_mm[0] - s.centre_mm[0], t.centre_mm[1] - s.centre_mm[1]) < 1.2 * s.side_mm]
        if len(near) >= 1:
            s.metropolis = True


def _name(stations: list[Station]) -> None:
    """Ids by position: M1..M4 for the Metropolis (clockwise from top-left of the board),
    then S1.. in reading order (rows of 100 mm, then x)."""
    metro = [s for s in stations if s.metropolis]
    if metro:
        c = np.mean([s.centre_mm for s in metro], axis=0)
        metro.sort(key=lambda s: np.arctan2(s.centre_mm[1] - c[1], s.centre_mm[0] - c[0]))
        # start from the top-left quadrant (angle near -135 degrees)
        angs = [np.degrees(np.arctan2(s.centre_mm[1] - c[1], s.centre_mm[0] - c[0])) for s in metro]
        k = int(np.argmin([abs(((a + 135) + 180) % 360 - 180) for a in angs]))
        metro = metro[k:] + metro[:k]
        for i, s in enumerate(metro):
            s.id = f"M{i + 1}"
    others = [s for s in stations if not s.metropolis]
    others.sort(key=lambda s: (int(s.centre_mm[1] // 100), s.centre_mm[0]))
    for i, s in enumerate(others):
        s.id = f"S{i + 1}"


def find_cubes(stations: list[Station], small_lab: NDArray[np.uint8], origin_mm: tuple[float, float],
               scale: float, cfg: RailwaysConfig) -> None:
    """Cubes on each station: blobs of a player colour, cube-sized, not the card's colour."""
    lo, hi = cfg.cube_side_mm
    for s in stations:
        x0, y0 = ((s.polygon_mm.min(axis=0) - np.asarray(origin_mm)) * scale).astype(int)
        x1, y1 = ((s.polygon_mm.max(axis=0) - np.asarray(origin_mm)) * scale).astype(int) + 1
        x0, y0 = max(0, x0), max(0, y0)
        roi = small_lab[y0:y1, x0:x1]
        if roi.size == 0:
            continue
        inside: NDArray[Any] = np.zeros(roi.shape[:2], np.uint8)
        poly = ((s.polygon_mm - np.asarray(origin_mm)) * scale - np.array([x0, y0])).astype(np.int32)
        cv2.fillPoly(inside, [poly.reshape(-1, 1, 2)], (1,))
        inside = cv2.erode(inside, np.ones((3, 3), np.uint8))
        card = membership(roi, CARD_COLOURS[s.type], cfg.colour_sigma * 0.8)
        for colour, bgr in CUBE_COLOURS.items():
            m = membership(roi, bgr, cfg.colour_sigma * 0.7)
            mask: NDArray[Any] = ((m > 150) & (m > card) & (inside > 0)).astype(np.uint8)
            mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
            n, _, stats, _ = cv2.connectedComponentsWithStats(mask)
            for i in range(1, n):
                w, h = stats[i, 2] / scale, stats[i, 3] / scale
                area = stats[i, 4] / (scale * scale)
                if lo <= min(w, h) and max(w, h) <= hi * 1.45 and area >= (lo * lo) * 0.6:
                    s.cubes.append(colour)
                    bx = np.array([[stats[i, 0], stats[i, 1]], [stats[i, 0] + stats[i, 2], stats[i, 1]],
                                   [stats[i, 0] + stats[i, 2], stats[i, 1] + stats[i, 3]],
                                   [stats[i, 0], stats[i, 1] + stats[i, 3]]], dtype=np.float64)
                    s.cube_boxes_mm.append((bx + np.array([x0, y0])) / scale + np.asarray(origin_mm))
        s.cubes.sort()
