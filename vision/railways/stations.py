"""Station cards, the Metropolis board, Starting City colours and the cubes on cards.

Why each pixel's nearest colour (card types, paper, ink, the board's grey, obstacle
tiles, and the table's own colour there): under colour casts, gradients and glare every
colour drifts, but the nearest stays right far longer than a fixed tolerance per colour.
A card is then a square of card size mostly of one card colour (its printing, cubes and
chain ends are holes, filled); Starting Cities, washed out to paper white by strong
light, are told from glare by their darker art or a coloured band. The Metropolis is a
2 x 2 group of squares turned alike, and its printed Town and Suburban sections give the
light's cast for typing every other card. A Starting City's player is the colour of the
band printed across it; cubes are cube-sized squares of a player colour on a card once
the card's own white printing is taken out.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import functools
import itertools
import math
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.railways.config import CARD_COLOURS, CUBE_COLOURS, OBSTACLE_COLOURS, OTHER_COLOURS, RailwaysConfig
from vision.railways.frame import TopView, lab_of

F64 = NDArray[Any]
F32 = NDArray[Any]


def grown(poly: F64, by_mm: float) -> F64:
    """A convex outline pushed out by about by_mm (each corner moved away from the middle)."""
    p = np.asarray(poly, dtype=np.float64)
    c = p.mean(axis=0)
    v = p - c
    return np.asarray(c + v * (1 + by_mm / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-9)),
                      dtype=np.float64)


@dataclass
class Station:
    """A station in table mm: outline (4 corners), type, id, cubes by colour; a Starting
    City's player is the colour of the band printed across it (None elsewhere)."""

    id: str
    type: str
    centre_mm: tuple[float, float]
    polygon_mm: F64
    side_mm: float
    metropolis: bool = False
    cubes: list[str] = field(default_factory=list)
    cube_boxes_mm: list[F64] = field(default_factory=list)
    player: str | None = None
    _outline_f32: tuple[F64, F32] | None = field(default=None, init=False, repr=False, compare=False)

    def outline(self) -> F32:
        """polygon_mm as an OpenCV float32 contour, made once per outline (the reader asks
        a station for its distance tens of thousands of times a frame)."""
        got = self._outline_f32
        if got is None or got[0] is not self.polygon_mm:
            got = (self.polygon_mm, self.polygon_mm.astype(np.float32).reshape(-1, 1, 2))
            self._outline_f32 = got
        return got[1]

    def contains(self, pts_mm: F64, grow_mm: float = 0.0) -> NDArray[np.bool_]:
        cnt = grown(self.polygon_mm, grow_mm).astype(np.float32).reshape(-1, 1, 2) if grow_mm else self.outline()
        return np.array([cv2.pointPolygonTest(cnt, (float(p[0]), float(p[1])), False) >= 0
                         for p in np.asarray(pts_mm).reshape(-1, 2)], dtype=bool)

    def distance(self, pt_mm: F64) -> float:
        """Signed distance (mm) of a point to the outline: negative inside."""
        return -float(cv2.pointPolygonTest(self.outline(), (float(pt_mm[0]), float(pt_mm[1])), True))


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
    for c, wgt in zip(range(3), _LAB_WEIGHTS):
        r = ref[..., c].astype(np.float32) if np.ndim(ref) > 1 else np.float32(ref[c])
        diff = lab[..., c].astype(np.float32) - r
        d2 += wgt * diff * diff
    return d2


Classes = tuple[NDArray[np.uint8], list[str]]     # nearest_class: index map, names


def _class_names() -> list[str]:
    return list(CARD_COLOURS) + list(OTHER_COLOURS) + list(OBSTACLE_COLOURS) + ["table"]


def nearest_class(small_lab: NDArray[np.uint8], cfg: RailwaysConfig, scale: float,
                   band_rows: int = 128, washed: tuple[float, ...] = ()) -> tuple[NDArray[np.uint8], list[str]]:
    """Each pixel's nearest colour among the card types, the table there, and everything
    else a card lies among (paper white, ink, the obstacle tiles): index into the names.

    Why nearest rather than a fixed tolerance per colour: a colour cast moves every card
    colour together, so the nearest stays right long after a fixed tolerance fails.
    The fixed colours are looked up in a table over Lab quantised to 64 levels a channel
    (made once: 262144 entries), the table's own colour compared pixel by pixel.
    `washed`: shares of paper white mixed into each card colour but the Starting City's
    (see _fixed_lut), nearest of which is that card's class."""
    names = _class_names()
    lut_k, lut_d = _fixed_lut(tuple(washed))
    table = table_colour(small_lab, cfg, scale)
    bias = np.float32(cfg.card_contrast ** 2)      # the table wins near ties
    wl, wa, wb = (np.float32(v) for v in _LAB_WEIGHTS)
    h, w = small_lab.shape[:2]
    idx: NDArray[np.uint8] = np.empty((h, w), np.uint8)
    n_fixed = len(names) - 1
    for y0 in range(0, h, band_rows):
        y1 = min(h, y0 + band_rows)
        x = small_lab[y0:y1]
        q = ((x[..., 0].astype(np.int32) >> 2) << 12) | ((x[..., 1].astype(np.int32) >> 2) << 6) | (x[..., 2] >> 2)
        k = lut_k[q]
        best = lut_d[q]
        d = x.astype(np.float32) - table[y0:y1].astype(np.float32)
        dt = wl * d[..., 0] ** 2 + wa * d[..., 1] ** 2 + wb * d[..., 2] ** 2 - bias
        idx[y0:y1] = np.where(dt < best, np.uint8(n_fixed), k)
    return idx, names


def _washed_colour(bgr: tuple[int, int, int], share: float) -> tuple[int, int, int]:
    """A colour with `share` of paper white's light added in place of its own (mixed in
    linear light, as glare mixes): a card washed out by a lamp's glare."""
    def lin(c: NDArray[Any]) -> NDArray[Any]:
        return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    mix = (1 - share) * lin(np.asarray(bgr, np.float64) / 255) \
        + share * lin(np.asarray(OTHER_COLOURS["paper"], np.float64) / 255)
    out = np.where(mix <= 0.0031308, mix * 12.92, 1.055 * mix ** (1 / 2.4) - 0.055) * 255
    b, g, r = (int(round(float(v))) for v in out)
    return (b, g, r)


@functools.cache
def _fixed_lut(washed: tuple[float, ...] = ()) -> tuple[NDArray[np.uint8], NDArray[np.float32]]:
    """Nearest fixed colour (and its weighted squared distance) for every quantised Lab;
    with `washed`, also each card colour but the Starting City's washed out by glare that
    much (each such colour is its card's class)."""
    fixed = [*CARD_COLOURS.values(), *OTHER_COLOURS.values(), *OBSTACLE_COLOURS.values()]
    cls = list(range(len(fixed)))
    for ci, (name, bgr) in enumerate(CARD_COLOURS.items()):
        if name != "start":
            for share in washed:
                fixed.append(_washed_colour(bgr, share))
                cls.append(ci)
    refs = np.stack([lab_of(b) for b in fixed]).astype(np.float32)
    g = np.arange(64, dtype=np.float32) * 4 + 1.5
    L, A, B = np.meshgrid(g, g, g, indexing="ij")
    best = np.full(L.shape, np.inf, np.float32)
    k = np.zeros(L.shape, np.uint8)
    wl, wa, wb = _LAB_WEIGHTS
    for i, r in enumerate(refs):
        d = wl * (L - r[0]) ** 2 + wa * (A - r[1]) ** 2 + wb * (B - r[2]) ** 2
        closer = d < best
        best[closer] = d[closer]
        k[closer] = cls[i]
    return k.ravel(), best.ravel().astype(np.float32)


_LAB_WEIGHTS = (0.3, 1.0, 1.0)     # lightness matters less than hue (light varies more)


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
                  scale: float, classes: Classes | None = None, spot: TopView | None = None) -> list[Station]:
    """Every square of station size whose pixels are nearest one card colour; `small_lab`
    is the top view's Lab image at `scale` pixels per mm (a coarse copy: cards are big).
    `classes` is nearest_class of small_lab when the caller has it already (the obstacles
    read the same map).

    `spot`: the same view divided by the local light where it outshines the markers'
    white (frame.top_view's spot_mm; its small_lab at `scale`). Cards found on it where
    none was found on `view` are added, read on it. Why: in a lamp's spot the plain view
    clips each channel to white, and a Starting City's lilac (or a board's orange and
    green cards) comes out the white of the table round it; why not read everything on
    it: the rest of the reader (and the cards elsewhere) is measured on the plain view."""
    found, scores = _candidates(view, cfg, small_lab, scale, classes)
    found = _distinct(found, scores)
    spotted: set[int] = set()
    if spot is not None and spot.small_lab is not None:
        more, more_scores = _candidates(spot, cfg, spot.small_lab, scale, None)
        for st in _distinct(more, more_scores):
            if _at_no_place(st.centre_mm, st.side_mm, found):
                found.append(st)
                spotted.add(id(st))
    _mark_metropolis(found, cfg, small_lab, view.origin_mm, scale)
    _types_from_board(found, small_lab, view.origin_mm, scale, cfg, spotted)
    for st in found:
        if st.type == "start" and not st.metropolis:
            on, lab = (spot, spot.small_lab) if spot is not None and spot.small_lab is not None \
                and id(st) in spotted else (view, small_lab)
            st.player = read_player(st, lab, on.origin_mm, scale, cfg,
                                    on.image if on.image.size else None, on.px_per_mm)
    _name(found)
    return found


def _candidates(view: TopView, cfg: RailwaysConfig, small_lab: NDArray[np.uint8], scale: float,
                classes: Classes | None) -> tuple[list[Station], list[float]]:
    """The card squares of every type found on one view, each with its support (the share
    of its square in its own colour), before overlapping ones are resolved."""
    idx, names = classes if classes is not None else nearest_class(small_lab, cfg, scale)
    kc = max(3, int(round(cfg.card_close_mm * scale)) | 1)
    ko = max(3, int(round(cfg.card_open_mm * scale)) | 1)
    found: list[Station] = []
    origin = np.asarray(view.origin_mm)
    scores: list[float] = []
    n_card = len(CARD_COLOURS)
    card_like: NDArray[Any] = (idx < n_card + len(OTHER_COLOURS)).astype(np.uint8)
    paper = n_card + list(OTHER_COLOURS).index("paper")
    for ci, ctype in enumerate(CARD_COLOURS):
        own: NDArray[Any] = (idx == ci).astype(np.uint8)
        if ctype != "start":
            rects = _blob_rects(own, scale, cfg, kc, ko)
        else:
            # a Starting City's pale lilac washes out to paper white under strong light: its
            # colour is read with paper white. A mat's printed lines can come out lilac or
            # paper white too and wall in table round the card, which the filling then joins
            # to it into a blob of no card's size: where that leaves no card, the card is
            # looked for again with thin lines opened away first, then in its colour alone.
            # (A card found several ways is one card: the first way that finds it wins.)
            thin = max(3, int(round(cfg.card_thin_open_mm * scale)) | 1)
            washed = own | (idx == paper).astype(np.uint8)
            rects = _blob_rects(washed, scale, cfg, kc, ko)
            for mask, k in ((own, thin), (washed, thin), (own, 0)):
                rects = _other_places(rects, _blob_rects(mask, scale, cfg, kc, ko, k))
        for rect in rects:
            sq = _square_card(rect, card_like, scale, cfg)
            # glare and white pieces wash out to paper white too, but have no art
            if ctype == "start" and not _mostly_start(sq, idx, ci, n_card):
                continue
            support = _art_contrast(sq, small_lab, own) if ctype == "start" else 100.0
            box = cv2.boxPoints(sq).astype(np.float64)
            poly = (box + 0.5) / scale + origin
            (qx, qy), (qw, qh), _ = sq
            centre = ((qx + 0.5) / scale + origin[0], (qy + 0.5) / scale + origin[1])
            st = Station("", ctype, centre, poly, (qw + qh) / 2 / scale)
            if support < cfg.art_contrast:
                # art washed out too: a coloured band across it still says Starting City
                band = read_player(st, small_lab, view.origin_mm, scale, cfg,
                                   view.image if view.image.size else None, view.px_per_mm,
                                   min_share=cfg.band_share_alone)
                if band is None or band == "white":
                    continue
            found.append(st)
            scores.append(float(_in_box(own, sq).mean()) if _in_box(own, sq).size else 0.0)
    if cfg.card_washed:
        # a card under a lamp's glare is washed out toward paper white, nearer paper, the
        # Starting City's pale lilac or a glaring table than its own colour: where no card
        # was found, each type is looked for again with its washed-out colours as its own
        seen = list(found)
        widx, _ = nearest_class(small_lab, cfg, scale, washed=cfg.card_washed)
        for ci, ctype in enumerate(CARD_COLOURS):
            if ctype == "start":
                continue
            own = (widx == ci).astype(np.uint8)
            for rect in _blob_rects(own, scale, cfg, kc, ko):
                sq = _square_card(rect, card_like, scale, cfg)
                (qx, qy), (qw, qh), _ = sq
                centre = ((qx + 0.5) / scale + origin[0], (qy + 0.5) / scale + origin[1])
                side = (qw + qh) / 2 / scale
                if not _at_no_place(centre, side, seen):
                    continue
                poly = (cv2.boxPoints(sq).astype(np.float64) + 0.5) / scale + origin
                # glare, a tinted table and the tiles wash out alike, but have no printing: a card
                # keeps its paper-white name plate and boxes, and is not mostly table
                inner = _in_box(widx, ((qx, qy), (qw * 0.9, qh * 0.9), sq[2]))
                if not inner.size or float((inner == paper).mean()) < cfg.card_washed_print \
                        or float((inner == len(names) - 1).mean()) > cfg.card_washed_table:
                    continue
                found.append(Station("", ctype, centre, poly, side))
                scores.append(float(_in_box(own, sq).mean()) if _in_box(own, sq).size else 0.0)
    return found, scores


Rect = tuple[tuple[float, float], tuple[float, float], float]


def _other_places(first: list[Rect], more: list[Rect]) -> list[Rect]:
    """`first`, then those of `more` that lie at no place of `first` (closer than 0.6 side)."""
    return first + [r for r in more if all(math.dist(r[0], q[0]) > 0.6 * min(max(r[1]), max(q[1]))
                                           for q in first)]


BLOB_CALL_PIXELS = 12000
"""What one more opening call costs, in pixels of opening (about 30 us against 2.5 ns a
pixel): opened_blobs works the whole map at once when its blobs' boxes would cost more."""


def opened_blobs(filled: NDArray[Any], outer: Any, k: int) -> NDArray[Any]:
    """cv2.morphologyEx(filled, MORPH_OPEN, the k x k ellipse) of a 0/1 mask whose blobs
    are the filled outer contours `outer`, worked only round the blobs the ellipse fits.

    Why it is the same mask: an opening is the union of the ellipses that fit inside the
    mask (the border counting as set), and a fitted ellipse's pixels in the mask (connected)
    lie inside one blob, so every pixel it keeps lies in the bounding box of a blob at
    least k x k or at the mask's edge. Inside such a box the opening only
    reads pixels within two radii of it, so it is made on the box grown by two radii (cut
    where the mask ends, which the whole mask's border rule treats alike) and copied back
    for the box alone. Why: cards and tiles are a few boxes of a mostly empty map, and
    the whole map's opening was most of the stations' time."""
    h, w = filled.shape[:2]
    r = k // 2
    ell = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    need = int(np.count_nonzero(ell))
    boxes: list[tuple[int, int, int, int, int, int, int, int]] = []
    cost = 0
    for c in outer:
        x, y, bw, bh = cv2.boundingRect(c)
        inner_x, inner_y = 0 < x and x + bw < w, 0 < y and y + bh < h
        if (bw < k and inner_x) or (bh < k and inner_y):
            continue                    # no ellipse fits (at the mask's edge, the border counts as set)
        if inner_x and inner_y and np.count_nonzero(filled[y:y + bh, x:x + bw]) < need:
            continue                    # fewer set pixels in the whole box than an ellipse holds
        x0, y0 = max(0, x - 2 * r), max(0, y - 2 * r)
        x1, y1 = min(w, x + bw + 2 * r), min(h, y + bh + 2 * r)
        boxes.append((x, y, bw, bh, x0, y0, x1, y1))
        cost += (x1 - x0) * (y1 - y0) + BLOB_CALL_PIXELS
    if cost >= h * w:
        # many blobs (a mat's texture): the whole map at once is cheaper, and the same
        return np.asarray(cv2.morphologyEx(filled, cv2.MORPH_OPEN, ell), dtype=filled.dtype)
    out = np.zeros_like(filled)
    for x, y, bw, bh, x0, y0, x1, y1 in boxes:
        got = cv2.morphologyEx(filled[y0:y1, x0:x1], cv2.MORPH_OPEN, ell)
        box = out[y:y + bh, x:x + bw]
        np.maximum(box, got[y - y0:y - y0 + bh, x - x0:x - x0 + bw], out=box)
    return out


def _blob_rects(mask: NDArray[Any], scale: float, cfg: RailwaysConfig, kc: int, ko: int,
                thin: int = 0) -> list[Rect]:
    """The card rectangles in a mask of one card colour. The card's printing (name plate,
    art, boxes) leaves holes: a closing fills them; an opening then drops chains lying on
    the card; each outline is the minimum-area rectangle of what is left. `thin` > 0
    first opens the mask that wide, so lines of the card's colour (a mat's grid) cannot
    wall in table round the card for the filling to join to it."""
    lo = cfg.station_side_mm[0]
    if thin > 0:
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (thin, thin)))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (kc, kc)))
    # the printing inside a card (art, cubes, a band) is a hole: fill it; a wide closing
    # would do the same but also join cards lying closer than it (and the board's squares)
    outer, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(mask, outer, -1, (1,), thickness=cv2.FILLED)
    mask = opened_blobs(mask, outer, ko)
    cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    pieces: list[tuple[NDArray[Any], float]] = []
    rects: list[Rect] = []
    for c in cnts:
        area = cv2.contourArea(c) / (scale * scale)
        if area < cfg.card_piece * lo * lo:
            continue
        got = _card_rects(_edge_rect(c), area, scale, cfg)
        if got:
            rects += got
        else:
            pieces.append((c.reshape(-1, 2), area))
    return rects + _joined_pieces(pieces, scale, cfg)


def _card_rects(rect: Rect, area_mm2: float, scale: float, cfg: RailwaysConfig,
                min_fill: float | None = None) -> list[Rect]:
    """The card rectangles a blob of one card colour holds: one card, or two cards of the
    same type lying side by side closer than the picture can part them."""
    lo, hi = cfg.station_side_mm
    (cx, cy), (w, h), ang = rect
    w_mm, h_mm = (w + 1) / scale, (h + 1) / scale
    long_, short = max(w_mm, h_mm), min(w_mm, h_mm)
    fill = cfg.card_min_fill if min_fill is None else min_fill
    if area_mm2 / max(1.0, w_mm * h_mm) < fill or short < cfg.card_short_side * lo:
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


def _edge_rect(c: NDArray[Any]) -> Rect:
    """The rectangle round a blob turned as most of its outline runs (mod 90 degrees).

    Why not the minimum-area rectangle: a card with a corner cut off (a chain lying
    across it) has a minimum-area rectangle turned 45 degrees; its four long uncut sides
    still run the card's way."""
    poly = cv2.approxPolyDP(c, 2.0, True).reshape(-1, 2).astype(np.float64)
    if len(poly) < 3:
        (rx, ry), (rw, rh), ra = cv2.minAreaRect(c)
        return ((rx, ry), (rw, rh), ra)
    seg = np.roll(poly, -1, axis=0) - poly
    length = np.hypot(seg[:, 0], seg[:, 1])
    ang4 = np.arctan2(seg[:, 1], seg[:, 0]) * 4.0      # period 90 degrees
    mean = math.atan2(float((length * np.sin(ang4)).sum()), float((length * np.cos(ang4)).sum())) / 4.0
    cs, sn = math.cos(mean), math.sin(mean)
    pts = c.reshape(-1, 2).astype(np.float64)
    u = pts @ np.array([cs, sn])
    v = pts @ np.array([-sn, cs])
    cu, cv_ = (u.min() + u.max()) / 2, (v.min() + v.max()) / 2
    centre = (cu * cs - cv_ * sn, cu * sn + cv_ * cs)
    (rx, ry), (rw, rh), ra = cv2.minAreaRect(c)
    # the minimum-area rectangle fits an uncut card more tightly: keep it unless it is
    # turned far from the outline's own way
    if abs((ra - math.degrees(mean) + 45.0) % 90.0 - 45.0) <= 20.0:
        return ((rx, ry), (rw, rh), ra)
    return (centre, (float(u.max() - u.min()), float(v.max() - v.min())), math.degrees(mean))


def _joined_pieces(pieces: list[tuple[NDArray[Any], float]], scale: float,
                   cfg: RailwaysConfig) -> list[Rect]:
    """Cards cut in two by something lying across them (the River may cross a card): two
    pieces of one colour, each too small for a card, whose union is one card."""
    lo, hi = cfg.station_side_mm
    used: set[int] = set()
    out: list[Rect] = []
    cand: list[tuple[float, int, int]] = []
    for i, (pa, _) in enumerate(pieces):
        for j in range(i + 1, len(pieces)):
            d = float(np.linalg.norm(pa.mean(axis=0) - pieces[j][0].mean(axis=0))) / scale
            if d < hi:
                cand.append((d, i, j))
    for _, i, j in sorted(cand):
        if i in used or j in used:
            continue
        pts = np.vstack([pieces[i][0], pieces[j][0]]).astype(np.float32)
        (rx, ry), (rw, rh), ra = cv2.minAreaRect(pts)
        area = pieces[i][1] + pieces[j][1]
        got = _card_rects(((rx, ry), (rw, rh), ra), area, scale, cfg, min_fill=cfg.card_joined_fill)
        if len(got) == 1 and max(got[0][1]) / scale <= hi * 1.05:
            out += got
            used |= {i, j}
    return out


def _in_box(arr: NDArray[Any], rect: Rect) -> NDArray[Any]:
    """The values of `arr` inside a rotated rectangle (made in its own small window)."""
    pts = cv2.boxPoints(rect).astype(np.int32)
    h, w = arr.shape[:2]
    x0, y0 = max(0, int(pts[:, 0].min())), max(0, int(pts[:, 1].min()))
    x1, y1 = min(w, int(pts[:, 0].max()) + 1), min(h, int(pts[:, 1].max()) + 1)
    if x1 <= x0 or y1 <= y0:
        return np.asarray(arr[0:0, 0:0]).reshape((0,) + arr.shape[2:])
    m: NDArray[Any] = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(m, [(pts - np.array([x0, y0])).reshape(-1, 1, 2)], (1,))
    return np.asarray(arr[y0:y1, x0:x1][m > 0])


def _mostly_start(rect: Rect, idx: NDArray[np.uint8], start: int, n_card: int) -> bool:
    """A square found with paper white counts as a Starting City only if lilac is its
    commonest card colour, or the commoner colour lies in one thin stripe (the band): a
    card of another type washed out by glare keeps its colour all over its face."""
    pts = cv2.boxPoints(rect).astype(np.int32)
    h, w = idx.shape[:2]
    x0, y0 = max(0, int(pts[:, 0].min())), max(0, int(pts[:, 1].min()))
    x1, y1 = min(w, int(pts[:, 0].max()) + 1), min(h, int(pts[:, 1].max()) + 1)
    if x1 <= x0 or y1 <= y0:
        return False
    m: NDArray[Any] = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(m, [(pts - np.array([x0, y0])).reshape(-1, 1, 2)], (1,))
    win = np.where(m > 0, idx[y0:y1, x0:x1], 255)
    counts = np.bincount(win[win < n_card].ravel(), minlength=n_card)
    k = int(counts.argmax())
    if k == start or counts[k] <= counts[start]:
        return True
    ys, xs = np.nonzero(win == k)
    if len(xs) < 3:
        return True
    (bx, by), (sw, sh), _ = cv2.minAreaRect(np.stack([xs, ys], axis=1).astype(np.float32))
    side = max(rect[1][0], rect[1][1])
    off = math.hypot(bx + x0 - rect[0][0], by + y0 - rect[0][1]) / side
    # a band is about a twelfth of the card wide (allow a blurred one twice that), a
    # fifth of the side from the middle (not along an edge)
    return bool(min(sw, sh) <= 0.2 * side and 0.1 <= off <= 0.3)


def _art_contrast(rect: Rect, small_lab: NDArray[np.uint8], own: NDArray[Any]) -> float:
    """How much darker the middle of the square is than the card's own colour: every card
    has its art, printed darker, in the middle; glare, paper and table patches have none."""
    (cx, cy), (w, h), ang = rect
    mid = _in_box(small_lab[..., 0], ((cx, cy), (w * 0.12, h * 0.12), ang))
    whole = _in_box(small_lab[..., 0], rect)
    if not mid.size or not whole.size:
        return 0.0
    return float(np.median(whole)) - float(np.median(mid))


def _distinct(found: list[Station], scores: list[float]) -> list[Station]:
    """One card per place: where squares of two colours overlap, the better supported."""
    order = sorted(range(len(found)), key=lambda i: -scores[i])
    keep: list[Station] = []
    for i in order:
        s = found[i]
        if _at_no_place(s.centre_mm, s.side_mm, keep):
            keep.append(s)
    return keep


def _at_no_place(centre: tuple[float, float], side: float, stations: list[Station]) -> bool:
    """A card square here lies at none of `stations`' places (its centre 0.6 of the
    smaller side or more from each): one card per place."""
    return all(math.dist(centre, k.centre_mm) > 0.6 * min(side, k.side_mm) for k in stations)


def _square_card(rect: Rect, card_like: NDArray[Any], scale: float, cfg: RailwaysConfig) -> Rect:
    """A card's whole square from the part of it seen in its own colour.

    Why: the name plate and the row of boxes lie near two opposite edges, in paper white,
    so the card's colour alone stops short of those edges, and a chain or cube at an edge
    can stretch it; a card is square and of one size, so the square is placed, along
    each side, where it holds the most card-like (not table) pixels."""
    (cx, cy), (w, h), ang = rect
    side = min(max(w, h), cfg.card_side_mm * 1.06 * scale)
    if max(abs(side - w), abs(side - h)) < 2.0 * scale:
        return ((cx, cy), (side, side), ang)
    a = math.radians(ang)
    ax_w = np.array([math.cos(a), math.sin(a)])
    ax_h = np.array([-math.sin(a), math.cos(a)])
    gw, gh = abs(w - side) / 2, abs(h - side) / 2
    best: tuple[float, Rect] | None = None
    for kw in ((-1.0, 0.0, 1.0) if gw >= 2.0 * scale else (0.0,)):
        for kh in ((-1.0, 0.0, 1.0) if gh >= 2.0 * scale else (0.0,)):
            c = (cx + ax_w[0] * gw * kw + ax_h[0] * gh * kh, cy + ax_w[1] * gw * kw + ax_h[1] * gh * kh)
            r: Rect = (c, (side, side), ang)
            inside = _in_box(card_like, r)
            score = float(inside.sum()) - 0.5 * float(inside.size - inside.sum()) - 0.01 * (abs(kw) + abs(kh))
            if best is None or score > best[0]:
                best = (score, r)
    assert best is not None
    return best[1]


def _median_lab(s: Station, small_lab: NDArray[np.uint8], origin_mm: tuple[float, float],
                scale: float) -> F32 | None:
    """Median Lab over the middle 60% of a station's square."""
    c = s.polygon_mm.mean(axis=0)
    poly = c + 0.6 * (s.polygon_mm - c)
    px = (poly - np.asarray(origin_mm)) * scale
    (cx, cy), (w, h), a = cv2.minAreaRect(px.astype(np.float32))
    got = _in_box(small_lab, ((cx, cy), (w, h), a))
    if not got.size:
        return None
    return np.asarray(np.median(got.reshape(-1, 3).astype(np.float32), axis=0), dtype=np.float32)


def _types_from_board(stations: list[Station], small_lab: NDArray[np.uint8], origin_mm: tuple[float, float],
                      scale: float, cfg: RailwaysConfig, spotted: set[int] | frozenset[int] = frozenset()) -> None:
    """The Metropolis board as the table's colour reference: its sections are printed two
    Town and two Suburban, each pair diagonally opposite, so the lighter and yellower
    diagonal is the Towns whatever the light. Their colour as seen, against as printed, is the light's
    cast on this table; every other card's type is then its nearest printed colour moved
    by that cast (a warm light makes Towns look like Cities otherwise). Cards found in a
    lamp's spot (`spotted`, ids) were read on another view: their colour here is the
    spot's clipped white, so they keep their types, and a board with one is no reference."""
    metro = [s for s in stations if s.metropolis]
    if len(metro) != 4 or any(id(s) in spotted for s in metro):
        return
    meds = [_median_lab(s, small_lab, origin_mm, scale) for s in metro]
    if any(m is None for m in meds):
        return
    a = metro[0]
    partner = max(metro[1:], key=lambda t: math.dist(t.centre_mm, a.centre_mm))
    diag = [a, partner]
    rest = [t for t in metro if t not in diag]
    # the sections of one colour must look alike, else this is no board (or a chain or
    # cube hides too much of one): leave the types as read
    med = {id(t): m for t, m in zip(metro, meds)}
    for pair in (diag, rest):
        ma, mb = med[id(pair[0])], med[id(pair[1])]
        if ma is None or mb is None or float(np.linalg.norm(ma - mb)) > cfg.board_alike:
            return
    # Towns (orange) are lighter and yellower than Suburbs (red), under any cast
    lum = {id(t): float(m[0] + m[2] - m[1]) for t, m in zip(metro, meds) if m is not None}
    towns, subs = (diag, rest) if sum(lum[id(t)] for t in diag) >= sum(lum[id(t)] for t in rest) else (rest, diag)
    shift = np.zeros(3, np.float32)
    for t, m in zip(metro, meds):
        t.type = "town" if t in towns else "suburban"
        assert m is not None
        shift += (m - lab_of(CARD_COLOURS[t.type])) / 4
    for s in stations:
        if s.metropolis or s.type == "start" or id(s) in spotted:
            continue
        m = _median_lab(s, small_lab, origin_mm, scale)
        if m is None:
            continue
        kinds = [k for k in CARD_COLOURS if k != "start"]
        s.type = min(kinds, key=lambda k: float((np.asarray(_LAB_WEIGHTS, np.float32)
                                                 * (m - lab_of(CARD_COLOURS[k]) - shift) ** 2).sum()))


def _aligned(group: list[Station], tol_deg: float = 6.0) -> bool:
    """Do the squares share one orientation (the board's sections do; cards lie anyhow)?"""
    angs = []
    for s in group:
        e = s.polygon_mm[1] - s.polygon_mm[0]
        angs.append(math.degrees(math.atan2(float(e[1]), float(e[0]))) % 90.0)
    ref = angs[0]
    return all(abs((a - ref + 45.0) % 90.0 - 45.0) <= tol_deg for a in angs)


def _mark_metropolis(stations: list[Station], cfg: RailwaysConfig,
                     small_lab: NDArray[np.uint8] | None = None, origin_mm: tuple[float, float] = (0.0, 0.0),
                     scale: float = 1.0) -> None:
    """The Metropolis seen as four squares: the best 2 x 2 group (sides of one board
    quarter, diagonals sqrt 2 longer). Cards lying close together rarely make one. When
    only three are seen (a chain or a cube spoils the fourth), the fourth is where the
    board puts it, its type read from the median colour there."""
    q = cfg.metro_quarter_mm
    best: tuple[float, list[Station]] | None = None
    best3: tuple[float, list[Station]] | None = None
    for s in stations:
        near = [t for t in stations if t is not s and math.dist(t.centre_mm, s.centre_mm) < 1.6 * q]
        for group in itertools.combinations(near, 3):
            four = [s, *group]
            d = sorted(math.dist(a.centre_mm, b.centre_mm) for a, b in itertools.combinations(four, 2))
            err = sum(abs(x - q) for x in d[:4]) + sum(abs(x - q * math.sqrt(2)) for x in d[4:])
            if err < cfg.metro_fit * q * 6 and _aligned(four) and (best is None or err < best[0]):
                best = (err, four)
        for pair in itertools.combinations(near, 2):
            # s is the corner of an L: both arms one quarter long, the far side a diagonal
            d1, d2 = (math.dist(t.centre_mm, s.centre_mm) for t in pair)
            d3 = math.dist(pair[0].centre_mm, pair[1].centre_mm)
            err = abs(d1 - q) + abs(d2 - q) + abs(d3 - q * math.sqrt(2))
            if err < cfg.metro_fit * q * 3 and _aligned([s, *pair]) and (best3 is None or err < best3[0]):
                best3 = (err, [s, *pair])
    if best is not None:
        for s in best[1]:
            s.metropolis = True
        return
    if best3 is None:
        return
    corner, a, b = best3[1]
    for s in best3[1]:
        s.metropolis = True
    if small_lab is None:
        return
    cx = a.centre_mm[0] + b.centre_mm[0] - corner.centre_mm[0]
    cy = a.centre_mm[1] + b.centre_mm[1] - corner.centre_mm[1]
    shift = np.array([cx, cy]) - np.asarray(corner.centre_mm)
    poly = corner.polygon_mm + shift
    px = ((poly - np.asarray(origin_mm)) * scale).astype(np.int32)
    inner = np.asarray(poly.mean(axis=0) + 0.6 * (poly - poly.mean(axis=0)))
    pin = ((inner - np.asarray(origin_mm)) * scale).astype(np.int32)
    m: NDArray[Any] = np.zeros(small_lab.shape[:2], np.uint8)
    cv2.fillPoly(m, [pin.reshape(-1, 1, 2)], (1,))
    if not m.any() or (px < 0).any() or (px[:, 0] >= small_lab.shape[1]).any() or (px[:, 1] >= small_lab.shape[0]).any():
        return
    fourth = Station("", card_type(small_lab[m > 0]), (float(cx), float(cy)), poly, corner.side_mm, metropolis=True)
    stations.append(fourth)


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


def _card_frame(s: Station) -> tuple[F64, F64, F64, float]:
    """The card's centre and two unit axes (along its sides) and side, in table mm."""
    poly = np.asarray(s.polygon_mm, dtype=np.float64)
    c = poly.mean(axis=0)
    e1 = poly[1] - poly[0]
    e2 = poly[3] - poly[0]
    side = float((np.linalg.norm(e1) + np.linalg.norm(e2)) / 2)
    return c, e1 / max(1e-9, float(np.linalg.norm(e1))), e2 / max(1e-9, float(np.linalg.norm(e2))), side


def _sample(lab: NDArray[np.uint8], pts_mm: F64, origin_mm: tuple[float, float], scale: float) -> F32:
    """Lab at points in table mm (bilinear), shape (n, 3)."""
    px = ((np.asarray(pts_mm).reshape(-1, 2) - np.asarray(origin_mm)) * scale - 0.5).astype(np.float32)
    out = cv2.remap(lab, px[:, 0].reshape(-1, 1), px[:, 1].reshape(-1, 1), cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out.reshape(-1, 3), dtype=np.float32)


def _own_colour(s: Station, small_lab: NDArray[np.uint8], origin_mm: tuple[float, float], scale: float) -> F32:
    """The card's own colour as seen (the median over its side margins, where little is
    printed), so a colour cast moves the card's reference with it."""
    c, e1, e2, side = _card_frame(s)
    t = np.linspace(-0.3, 0.3, 13) * side
    pts = [c + e * 0.45 * side * sgn + f * tt for e, f in ((e1, e2), (e2, e1)) for sgn in (-1, 1) for tt in t]
    return np.asarray(np.median(_sample(small_lab, np.asarray(pts), origin_mm, scale), axis=0), dtype=np.float32)


def read_player(s: Station, small_lab: NDArray[np.uint8], origin_mm: tuple[float, float], scale: float,
                cfg: RailwaysConfig, image: NDArray[np.uint8] | None = None,
                image_px_per_mm: float = 2.0, min_share: float | None = None) -> str | None:
    """A Starting City's player: the colour of the band printed across the card, a fifth
    of the side from its middle (which side is up is not known: all four are tried, and
    the one most of whose length is one player colour wins).

    Read from the sharper top view `image` (BGR) when given: the band is under 5 mm wide,
    so at 1 px/mm it is mostly mixed with the card. Each sample votes for the player
    colour its difference from the card's own colour points to (a pixel part band, part
    card lies on the line from the card's colour to the band's)."""
    c, e1, e2, side = _card_frame(s)
    own = _own_colour(s, small_lab, origin_mm, scale)
    names = list(CUBE_COLOURS)
    sw = np.sqrt(np.array(_LAB_WEIGHTS, np.float32))
    dirs = (np.stack([lab_of(b) for b in CUBE_COLOURS.values()]).astype(np.float32) - own) * sw
    dd = (dirs * dirs).sum(axis=1)
    t = np.arange(-0.35 * side, 0.35 * side, 0.5)
    share: dict[str, float] = {n: 0.0 for n in names}
    for axis, along in ((e1, e2), (e2, e1)):
        for sgn in (-1.0, 1.0):
            for off in cfg.band_offsets:
                pts = c[None, :] + axis[None, :] * sgn * off * side + along[None, :] * t[:, None]
                if image is not None:
                    bgr = _sample(image, pts, origin_mm, image_px_per_mm).astype(np.uint8).reshape(-1, 1, 3)
                    lab = cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float32)
                else:
                    lab = _sample(small_lab, pts, origin_mm, scale)
                d = (lab - own) * sw
                alpha = (d @ dirs.T) / dd                                  # (n, colours)
                res = np.sqrt(np.maximum((d * d).sum(axis=1)[:, None] - alpha ** 2 * dd, 0.0))
                # a pixel is between none and all band: alpha far above 1 only means the
                # colour lies close to the card's (white on lilac), not that it is there
                ok = ((alpha > cfg.band_mix) & (alpha < 1.5)
                      & (res < 0.5 * np.sqrt(dd) * np.maximum(alpha, 1e-3)))
                score = np.where(ok, -res / np.sqrt(dd), -np.inf)
                vote = np.where(ok.any(axis=1), score.argmax(axis=1), -1)
                if "white" in names:
                    # white lies close to the pale card: nearer white than the card is enough
                    wk = names.index("white")
                    near_w = ((d - dirs[wk]) ** 2).sum(axis=1) < (d * d).sum(axis=1)
                    vote = np.where((vote == -1) | (vote == wk), np.where(near_w, wk, -1), vote)
                for k, n in enumerate(names):
                    share[n] = max(share[n], float((vote == k).mean()))
    # white is also the printing's paper (name plate, boxes) a misplaced line may cross:
    # any other colour seen along a band wins over it
    coloured = max((n for n in names if n != "white"), key=lambda n: share[n])
    if share[coloured] >= (cfg.band_share if min_share is None else min_share):
        return coloured
    if min_share is not None:
        return None
    if "white" in share and share["white"] >= cfg.band_share_white:
        return "white"
    # no colour at all where a band is printed: every coloured band stays visible when
    # glare washes the card out to paper white, only a white band vanishes with it
    if "white" in share and share[coloured] < cfg.band_absent:
        return "white"
    return None


def find_cubes(stations: list[Station], small_lab: NDArray[np.uint8], origin_mm: tuple[float, float],
               scale: float, cfg: RailwaysConfig) -> None:
    """Cubes on each station: cube-sized squares of a player colour inside the card.

    Each pixel of the card goes to its nearest colour among the player colours and what
    is printed there (the card's own colour as seen, its darker art, paper white);
    a player-colour blob is a cube only if it is cube-sized and square. The card's printed
    boxes are paper white and nearly cube-sized (about 8 x 7 mm against a 10 mm cube), so
    white needs more area, and white blobs where the row of boxes is printed are boxes."""
    lo, hi = cfg.cube_side_mm
    names = list(CUBE_COLOURS)
    for s in stations:
        s.cubes = []
        s.cube_boxes_mm = []
        x0, y0 = np.floor((s.polygon_mm.min(axis=0) - np.asarray(origin_mm)) * scale).astype(int)
        x1, y1 = np.ceil((s.polygon_mm.max(axis=0) - np.asarray(origin_mm)) * scale).astype(int) + 1
        x0, y0 = max(0, x0), max(0, y0)
        roi = small_lab[y0:y1, x0:x1]
        if roi.size == 0:
            continue
        inside: NDArray[Any] = np.zeros(roi.shape[:2], np.uint8)
        poly = ((s.polygon_mm - np.asarray(origin_mm)) * scale - np.array([x0, y0])).astype(np.int32)
        cv2.fillPoly(inside, [poly.reshape(-1, 1, 2)], (1,))
        inside = cv2.erode(inside, np.ones((3, 3), np.uint8))
        own = _own_colour(s, small_lab, origin_mm, scale)
        art = np.array([own[0] * 0.6, 128 + (own[1] - 128) * 0.8, 128 + (own[2] - 128) * 0.8], np.float32)
        # no ink: a black cube is ink-coloured, and the printed ink is far smaller than a cube
        refs = [lab_of(b) for b in CUBE_COLOURS.values()] + [own, art]
        best: F32 = np.full(roi.shape[:2], np.inf, np.float32)
        idx: NDArray[Any] = np.zeros(roi.shape[:2], np.uint8)
        for i, ref in enumerate(refs):
            d2 = _distance2(roi, np.asarray(ref, dtype=np.float32))
            closer = d2 < best
            best[closer] = d2[closer]
            idx[closer] = i
        found: list[tuple[str, F64]] = []
        for k, colour in enumerate(names):
            mask: NDArray[Any] = ((idx == k) & (inside > 0)).astype(np.uint8)
            if not mask.any():
                continue
            if colour == "white":
                # a white cube touching the white printing would make one blob with it
                mask[_printed_layout(s, mask, (x0, y0), origin_mm, scale, cfg) > 0] = 0
            mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
            n, lab, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
            min_area = (cfg.cube_white_min_area_mm2 if colour == "white" else cfg.cube_min_area_mm2) * scale * scale
            for i in range(1, n):
                if stats[i, cv2.CC_STAT_AREA] < min_area:
                    continue
                ys, xs = np.nonzero(lab == i)
                (bx, by), (bw, bh), ba = cv2.minAreaRect(np.stack([xs, ys], axis=1).astype(np.float32))
                w_mm, h_mm = (bw + 1) / scale, (bh + 1) / scale
                if not (lo <= min(w_mm, h_mm) and max(w_mm, h_mm) <= hi
                        and max(w_mm, h_mm) <= cfg.cube_square * min(w_mm, h_mm)):
                    continue
                if stats[i, cv2.CC_STAT_AREA] / (scale * scale) / (w_mm * h_mm) < 0.6:
                    continue
                box = cv2.boxPoints(((bx, by), (bw + 1, bh + 1), ba)).astype(np.float64)
                found.append((colour, (box + np.array([x0, y0]) + 0.5) / scale + np.asarray(origin_mm)))
        printed = _printed_boxes([b for c, b in found if c == "white"], s, cfg)
        for colour, box_mm in found:
            if colour == "white" and any(box_mm is p for p in printed):
                continue
            s.cubes.append(colour)
            s.cube_boxes_mm.append(box_mm)
        s.cubes.sort()


_CORNER_DA = np.array([-1, 1, 1, -1])
_CORNER_DB = np.array([-1, -1, 1, 1])


def _printed_layout(s: Station, white: NDArray[Any], roi_xy: tuple[int, int], origin_mm: tuple[float, float],
                    scale: float, cfg: RailwaysConfig) -> NDArray[np.uint8]:
    """Where the card's white printing is (name plate, row of boxes, a white band), in
    the station's window: every card is printed alike, only which edge is up is unknown,
    so of the four ways round, the one whose printing is whitest in `white`."""
    c, e1, e2, side = _card_frame(s)
    grow = cfg.print_grow_mm
    best: tuple[float, NDArray[np.uint8]] | None = None
    for axis, along in ((e1, e2), (e2, e1)):
        for sgn in (-1.0, 1.0):
            parts = [(c - axis * sgn * 0.36 * side, 0.8 * side, 0.14 * side)]
            parts += [(c + axis * sgn * 0.36 * side + along * k * side, 0.14 * side, 0.12 * side)
                      for k in (-0.3, -0.1, 0.1, 0.3)]
            if s.type == "start":
                parts.append((c + axis * sgn * 0.2 * side, 0.9 * side, 0.08 * side))
            m: NDArray[np.uint8] = np.zeros(white.shape[:2], np.uint8)
            for centre, la, lb in parts:
                # the four corners at once, each the very sum centre + along da (..) + axis db (..)
                corners = (centre[None, :] + along[None, :] * _CORNER_DA[:, None] * (la / 2 + grow)
                           + axis[None, :] * _CORNER_DB[:, None] * (lb / 2 + grow))
                px = ((corners - np.asarray(origin_mm)) * scale - np.asarray(roi_xy)).astype(np.int32)
                cv2.fillPoly(m, [px.reshape(-1, 1, 2)], (1,))
            if not m.any():
                continue
            score = float(white[m > 0].mean())
            if best is None or score > best[0]:
                best = (score, m)
    return best[1] if best is not None else np.zeros(white.shape[:2], np.uint8)


def _printed_boxes(whites: list[F64], s: Station, cfg: RailwaysConfig) -> list[F64]:
    """The white blobs that are the card's printed row of boxes, not cubes: the row lies
    along one edge (which one is not known), its boxes a fifth of the side apart; the
    edge where most white blobs sit on those places is the row's."""
    if not whites:
        return []
    c, e1, e2, side = _card_frame(s)
    centres = [np.asarray(b).mean(axis=0) for b in whites]
    best: list[F64] = []
    for axis, along in ((e1, e2), (e2, e1)):
        for sgn in (-1.0, 1.0):
            slots = [c + axis * sgn * cfg.box_row_offset * side + along * k * side for k in (-0.3, -0.1, 0.1, 0.3)]
            hit = [b for b, m in zip(whites, centres)
                   if min(math.dist(m, sl) for sl in slots) <= cfg.box_slot_tolerance_mm]
            if len(hit) > len(best):
                best = hit
    return best if len(best) >= 2 else []
