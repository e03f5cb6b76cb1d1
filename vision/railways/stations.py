"""Station cards, the Metropolis board and the cubes on them, read from colour areas.

Why from large colour areas: a card is a 6 cm square of one printed colour (its type),
far larger than any wire, so an opening of the colour membership keeps cards and drops
clips lying on them; the card's outline is the minimum-area rectangle of what is left.
Cards never touch each other (a rule), so squares that touch are the Metropolis.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import itertools
import math
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.railways.config import CARD_COLOURS, CUBE_COLOURS, OBSTACLE_COLOURS, OTHER_COLOURS, RailwaysConfig
from vision.railways.frame import TopView, lab_of, membership

F64 = NDArray[Any]
F32 = NDArray[Any]


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


def table_colour(small_lab: NDArray[np.uint8], cfg: RailwaysConfig, scale: float) -> NDArray[np.uint8]:
    """The table's own colour at each pixel: the median over a window far larger than any
    piece, so colour casts, gradients and glare that change slowly across it are kept."""
    h, w = small_lab.shape[:2]
    f = 4
    q = cv2.resize(small_lab, (max(1, w // f), max(1, h // f)), interpolation=cv2.INTER_AREA)
    k = max(3, int(round(cfg.table_window_mm * scale / f)) | 1)
    if k >= min(q.shape[:2]):
        k = max(3, (min(q.shape[:2]) - 2) | 1)
    return np.asarray(cv2.resize(cv2.medianBlur(q, k), (w, h), interpolation=cv2.INTER_LINEAR),
                      dtype=np.uint8)


def _distance2(lab: NDArray[np.uint8], ref: NDArray[Any]) -> F32:
    """Squared Lab distance, lightness weighted down (light varies more than hue)."""
    d2: F32 = np.zeros(lab.shape[:2], np.float32)
    for c, wgt in zip(range(3), (0.3, 1.0, 1.0)):
        r = ref[..., c].astype(np.float32) if np.ndim(ref) > 1 else np.float32(ref[c])
        diff = lab[..., c].astype(np.float32) - r
        d2 += wgt * diff * diff
    return d2


def nearest_class(small_lab: NDArray[np.uint8], cfg: RailwaysConfig, scale: float) -> tuple[NDArray[np.uint8], list[str]]:
    """Each pixel's nearest colour among the card types, the table there, and everything
    else a card lies among (paper white, ink, the obstacle tiles): index into the names.

    Why nearest rather than a fixed tolerance per colour: a colour cast moves every card
    colour together, so the nearest stays right long after a fixed tolerance fails."""
    names = list(CARD_COLOURS) + list(OTHER_COLOURS) + list(OBSTACLE_COLOURS) + ["table"]
    refs: list[Any] = [lab_of(b) for b in CARD_COLOURS.values()]
    refs += [lab_of(b) for b in OTHER_COLOURS.values()]
    refs += [lab_of(b) for b in OBSTACLE_COLOURS.values()]
    refs.append(table_colour(small_lab, cfg, scale))
    best: F32 = np.full(small_lab.shape[:2], np.inf, np.float32)
    idx: NDArray[np.uint8] = np.zeros(small_lab.shape[:2], np.uint8)
    for i, ref in enumerate(refs):
        d2 = _distance2(small_lab, ref)
        if names[i] == "table":
            d2 -= np.float32(cfg.card_contrast ** 2)     # the table wins near ties
        closer = d2 < best
        best[closer] = d2[closer]
        idx[closer] = i
    return idx, names


def card_type(lab_px: NDArray[Any]) -> str:
    """The printed type whose colour is nearest the card's median colour (the printing on
    the card is a minority of its pixels, so the median is the card's own colour)."""
    med = np.median(lab_px.reshape(-1, 3).astype(np.float32), axis=0)
    best, best_d = "", float("inf")
    for name, bgr in CARD_COLOURS.items():
        ref = lab_of(bgr)
        d = 0.3 * (med[0] - ref[0]) ** 2 + (med[1] - ref[1]) ** 2 + (med[2] - ref[2]) ** 2
        if d < best_d:
            best, best_d = name, float(d)
    return best


def find_stations(view: TopView, cfg: RailwaysConfig, small_lab: NDArray[np.uint8],
                  scale: float) -> list[Station]:
    """Every square of station size whose pixels are nearest one card colour; `small_lab`
    is the top view's Lab image at `scale` pixels per mm (a coarse copy: cards are big).

    The card's printing (name plate, art, boxes) leaves holes: a closing fills them; an
    opening then drops chains lying on the card; the outline is the minimum-area
    rectangle of what is left."""
    lo, hi = cfg.station_side_mm
    idx, names = nearest_class(small_lab, cfg, scale)
    kc = max(3, int(round(17.0 * scale)) | 1)
    ko = max(3, int(round(cfg.card_open_mm * scale)) | 1)
    found: list[Station] = []
    origin = np.asarray(view.origin_mm)
    scores: list[float] = []
    n_card = len(CARD_COLOURS)
    card_like: NDArray[Any] = (idx < n_card + len(OTHER_COLOURS)).astype(np.uint8)
    paper = n_card + list(OTHER_COLOURS).index("paper")
    for ci, ctype in enumerate(CARD_COLOURS):
        own: NDArray[Any] = (idx == ci).astype(np.uint8)
        # a Starting City's pale lilac washes out to paper white under strong light
        mask = own | (idx == paper) if ctype == "start" else own.copy()
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (kc, kc)))
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (ko, ko)))
        cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for c in cnts:
            area = cv2.contourArea(c) / (scale * scale)
            if area < (lo * cfg.card_short_side) * lo * cfg.card_min_fill:
                continue
            (rx, ry), (rw, rh), ra = cv2.minAreaRect(c)
            for rect in _card_rects(((rx, ry), (rw, rh), ra), area, scale, cfg):
                if ctype == "start" and not _enough_own(rect, own, cfg):
                    continue
                sq = _square_card(rect, card_like, scale, cfg)
                # glare and white pieces wash out to paper white too, but have no art
                support = _art_contrast(sq, small_lab, own) if ctype == "start" else 100.0
                if support < cfg.art_contrast:
                    continue
                box = cv2.boxPoints(sq).astype(np.float64)
                poly = (box + 0.5) / scale + origin
                (qx, qy), (qw, qh), _ = sq
                centre = ((qx + 0.5) / scale + origin[0], (qy + 0.5) / scale + origin[1])
                found.append(Station("", ctype, centre, poly, (qw + qh) / 2 / scale))
                scores.append(float(own[_box_mask(sq, own.shape)].mean()))
    found = _distinct(found, scores)
    _mark_metropolis(found, cfg)
    _name(found)
    return found


Rect = tuple[tuple[float, float], tuple[float, float], float]


def _card_rects(rect: Rect, area_mm2: float, scale: float, cfg: RailwaysConfig) -> list[Rect]:
    """The card rectangles a blob of one card colour holds: one card, or two cards of the
    same type lying side by side closer than the picture can part them."""
    lo, hi = cfg.station_side_mm
    (cx, cy), (w, h), ang = rect
    w_mm, h_mm = (w + 1) / scale, (h + 1) / scale
    long_, short = max(w_mm, h_mm), min(w_mm, h_mm)
    if area_mm2 / max(1.0, w_mm * h_mm) < cfg.card_min_fill or short < cfg.card_short_side * lo:
        return []
    if lo <= long_ <= hi * 1.05:
        return [((cx, cy), (w + 1, h + 1), ang)]
    if 2 * lo <= long_ <= 2 * hi * 1.05 and lo <= short:
        a = math.radians(ang)
        ax = np.array([math.cos(a), math.sin(a)]) if w > h else np.array([-math.sin(a), math.cos(a)])
        q = long_ * scale / 4
        half = (w + 1) / 2, (h + 1) / 2
        size = (half[0], h + 1) if w > h else (w + 1, half[1])
        return [((cx + k * q * ax[0], cy + k * q * ax[1]), size, ang) for k in (-1.0, 1.0)]
    return []


def _box_mask(rect: Rect, shape: tuple[int, ...]) -> NDArray[np.bool_]:
    m: NDArray[Any] = np.zeros(shape[:2], np.uint8)
    cv2.fillPoly(m, [cv2.boxPoints(rect).astype(np.int32).reshape(-1, 1, 2)], (1,))
    return np.asarray(m > 0)


def _art_contrast(rect: Rect, small_lab: NDArray[np.uint8], own: NDArray[Any]) -> float:
    """How much darker the middle of the square is than the card's own colour: every card
    has its art, printed darker, in the middle; glare, paper and table patches have none."""
    (cx, cy), (w, h), ang = rect
    mid = _box_mask(((cx, cy), (w * 0.12, h * 0.12), ang), small_lab.shape)
    whole = _box_mask(rect, small_lab.shape) & (own > 0)
    if not mid.any() or not whole.any():
        return 0.0
    return float(np.median(small_lab[..., 0][whole])) - float(np.median(small_lab[..., 0][mid]))


def _distinct(found: list[Station], scores: list[float]) -> list[Station]:
    """One card per place: where squares of two colours overlap, the better supported."""
    order = sorted(range(len(found)), key=lambda i: -scores[i])
    keep: list[Station] = []
    for i in order:
        s = found[i]
        if all(math.dist(s.centre_mm, k.centre_mm) > 0.6 * min(s.side_mm, k.side_mm) for k in keep):
            keep.append(s)
    return keep


def _enough_own(rect: Rect, own: NDArray[Any], cfg: RailwaysConfig) -> bool:
    """A Starting City found with paper white must still show some of its own lilac
    (glare and white pieces show none)."""
    m: NDArray[Any] = np.zeros(own.shape[:2], np.uint8)
    cv2.fillPoly(m, [cv2.boxPoints(rect).astype(np.int32).reshape(-1, 1, 2)], (1,))
    inside = own[m > 0]
    return bool(inside.size) and float(inside.mean()) >= cfg.start_own_share


def _square_card(rect: Rect, card_like: NDArray[Any], scale: float, cfg: RailwaysConfig) -> Rect:
    """A card's whole square from the part of it seen in its own colour.

    Why: the name plate and the row of boxes lie near two opposite edges, in paper white,
    so the card's colour alone stops short of those edges; a card is square, so the
    long side is its size, and the short side grows towards whichever end has more
    card-like (not table) pixels."""
    (cx, cy), (w, h), ang = rect
    side = min(max(w, h), cfg.station_side_mm[1] * scale)
    short = min(w, h)
    if side - short < 2.0 * scale:
        return ((cx, cy), (side, side), ang)
    a = math.radians(ang)
    # the short axis: minAreaRect's w runs along (cos a, sin a)
    ax = np.array([math.cos(a), math.sin(a)]) if w < h else np.array([-math.sin(a), math.cos(a)])
    grow = (side - short) / 2
    best: tuple[float, Rect] | None = None
    for k in (-1.0, 0.0, 1.0):
        c = (cx + ax[0] * grow * k, cy + ax[1] * grow * k)
        r: Rect = (c, (side, side), ang)
        m: NDArray[Any] = np.zeros(card_like.shape[:2], np.uint8)
        cv2.fillPoly(m, [cv2.boxPoints(r).astype(np.int32).reshape(-1, 1, 2)], (1,))
        score = float(card_like[m > 0].sum()) - 0.5 * float((m > 0).sum() - card_like[m > 0].sum())
        if best is None or score > best[0]:
            best = (score, r)
    assert best is not None
    return best[1]


def _mark_metropolis(stations: list[Station], cfg: RailwaysConfig) -> None:
    """The Metropolis seen as four squares: the best 2 x 2 group (sides of one board
    quarter, diagonals sqrt 2 longer). Cards lying close together rarely make one."""
    q = cfg.metro_quarter_mm
    best: tuple[float, list[Station]] | None = None
    for s in stations:
        near = [t for t in stations if t is not s and
                math.dist(t.centre_mm, s.centre_mm) < 1.6 * q]
        for group in itertools.combinations(near, 3):
            four = [s, *group]
            d = sorted(math.dist(a.centre_mm, b.centre_mm) for a, b in itertools.combinations(four, 2))
            err = sum(abs(x - q) for x in d[:4]) + sum(abs(x - q * math.sqrt(2)) for x in d[4:])
            if err < 0.15 * q * 6 and (best is None or err < best[0]):
                best = (err, four)
    if best is not None:
        for s in best[1]:
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
