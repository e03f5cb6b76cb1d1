"""Obstacle tiles (mountains and lakes): large areas of their colour, outlined; then
tiles the light has recoloured, found by their contrast with the table and their shape.

Why their own colours first: the tiles are printed landscape, unlike any card or clip;
their outline (rectangle or L) is what a link is checked against for touching. Why a
second pass: a lamp washes a lake out to sky blue and a dim corner takes a mountain to the
table's brown, and then neither is nearest its own colour.
"""

from __future__ import annotations

from dataclasses import dataclass

from typing import Any
import cv2
import numpy as np
from numpy.typing import NDArray

from vision.railways.config import OBSTACLE_COLOURS, RailwaysConfig
from vision.railways.stations import Classes, _distance2, nearest_class, opened_blobs, table_colour

F64 = NDArray[Any]


@dataclass
class Obstacle:
    """An obstacle outline in table mm and what it looks like."""

    material: str
    polygon_mm: F64
    area_mm2: float


def find_obstacles(small_lab: NDArray[np.uint8], origin_mm: tuple[float, float], scale: float,
                   cfg: RailwaysConfig, min_area_mm2: float = 2500.0,
                   max_area_mm2: float = 25000.0, classes: Classes | None = None,
                   board_mm: F64 | None = None, cards_mm: list[F64] | None = None,
                   area_mm: tuple[tuple[float, float], tuple[float, float]] | None = None) -> list[Obstacle]:
    """Large areas whose pixels are nearest an obstacle colour (among the card colours,
    paper, ink and the table's own local colour: see stations.nearest_class), with the
    tile's printed shading and any chain across it filled in. `board_mm`: the centres of
    the Metropolis board's squares as read (an area holding one is the board). With
    `cards_mm` (the stations' outlines as read), tiles of other colours are looked for
    too (_by_contrast), centred in `area_mm` ((x, y), (width, height)) when given."""
    idx, names = classes if classes is not None else nearest_class(small_lab, cfg, scale)
    out: list[Obstacle] = []
    kc = max(3, int(round(cfg.obstacle_close_mm * scale)) | 1)
    ko = max(3, int(round(cfg.obstacle_open_mm * scale)) | 1)
    origin = np.asarray(origin_mm, dtype=np.float64)
    for material in OBSTACLE_COLOURS:
        mask: NDArray[Any] = (idx == names.index(material)).astype(np.uint8)
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kc, kc)))
        own = mask.copy() if cfg.obstacle_fill_share > 0 else mask    # the tile's colour, before the fill
        outer, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cv2.drawContours(mask, outer, -1, (1,), thickness=cv2.FILLED)
        mask = opened_blobs(mask, outer, ko)
        cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for c in cnts:
            area = _tile_area(c, scale, cfg, origin, board_mm, min_area_mm2, max_area_mm2)
            if area is None:
                continue
            # a tile is its colour nearly all over (its shading and chains over it closed): an
            # outline mostly of the table's colour is a ring of shadows round the table
            # between chains, filled in (dev 2100-2139: 5 of 9 false tiles had 0.14-0.52 of
            # their outline in the tile's colour, the 141 true tiles 0.75 and up)
            if cfg.obstacle_fill_share > 0 and _own_share(own, c) < cfg.obstacle_fill_share:
                continue
            # a rectangle or an L (a band of a tile's colour round a lamp's pool of light is an arc)
            if cfg.obstacle_colour_fit > 0 and _tile_outline(c, scale, cfg, cfg.obstacle_colour_fit) is None:
                continue
            poly = cv2.approxPolyDP(c, 2.5 * scale, True).reshape(-1, 2).astype(np.float64)
            out.append(Obstacle(material, (poly + 0.5) / scale + origin, area))
    if cfg.obstacle_contrast > 0 and cards_mm is not None:
        out += _by_contrast(small_lab, origin, scale, cfg, idx, names, out, cards_mm, board_mm, area_mm,
                            min_area_mm2, max_area_mm2)
    return out


def _by_contrast(small_lab: NDArray[np.uint8], origin: F64, scale: float, cfg: RailwaysConfig,
                 idx: NDArray[np.uint8], names: list[str], found: list[Obstacle], cards_mm: list[F64],
                 board_mm: F64 | None, area_mm: tuple[tuple[float, float], tuple[float, float]] | None,
                 min_area_mm2: float, max_area_mm2: float) -> list[Obstacle]:
    """Tiles whose colour the light has moved off both tile colours (a lamp washes a lake
    out to sky blue, a dim corner takes a mountain to the table's brown): areas unlike the
    table round them and no card, then each grown again by its own colour and kept when
    shaped like a tile."""
    table = table_colour(small_lab, cfg, scale)
    # smoothed: a dark table's noise alone puts single pixels that far off its colour
    ks = max(1, int(round(cfg.obstacle_smooth_mm * scale)))
    lab_s: NDArray[np.uint8] = np.asarray(cv2.blur(small_lab, (ks, ks)), dtype=np.uint8)
    d2 = _distance2(lab_s, table)
    mask: NDArray[Any] = (d2 > np.float32(cfg.obstacle_contrast ** 2)).astype(np.uint8)
    del d2

    def px(poly: F64) -> NDArray[np.int32]:
        return np.asarray(np.round((np.asarray(poly, dtype=np.float64).reshape(-1, 2) - origin) * scale - 0.5),
                          dtype=np.int32).reshape(-1, 1, 2)
    taken = np.zeros(mask.shape, np.uint8)
    for poly in cards_mm:
        cv2.fillPoly(taken, [px(poly)], (1,))
    for ob in found:
        cv2.fillPoly(taken, [px(ob.polygon_mm)], (1,))
    mask[taken > 0] = 0
    kc = max(3, int(round(cfg.obstacle_close_mm * scale)) | 1)
    ko = max(3, int(round(cfg.obstacle_open_mm * scale)) | 1)
    close = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kc, kc))
    # closed but not filled: chains between cards make rings round the table, and a ring
    # filled is a field of table
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, close)
    outer, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    mask = opened_blobs(mask, outer, ko)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    h, w = mask.shape
    grow = int(round(cfg.obstacle_regrow_mm * scale))
    core_k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (ko, ko))
    kr = max(3, int(round(cfg.obstacle_regrow_close_mm * scale)) | 1)
    reclose = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kr, kr))
    out: list[Obstacle] = []
    for i in range(1, n):
        x, y, bw, bh, a = (int(v) for v in stats[i])
        if a < 0.3 * min_area_mm2 * scale * scale:
            continue
        x0, y0, x1, y1 = max(0, x - grow), max(0, y - grow), min(w, x + bw + grow), min(h, y + bh + grow)
        blob = (labels[y0:y1, x0:x1] == i).astype(np.uint8)
        core = cv2.erode(blob, core_k)
        if not np.any(core):
            continue
        lab = lab_s[y0:y1, x0:x1]
        col = np.median(lab[core > 0], axis=0)
        dc = _distance2(lab, col)
        dt = _distance2(lab, table[y0:y1, x0:x1])
        own = ((dc < dt) & (dc < np.float32(cfg.obstacle_own_tol ** 2)) & (taken[y0:y1, x0:x1] == 0)).astype(np.uint8)
        m2 = cv2.morphologyEx(own, cv2.MORPH_CLOSE, reclose)
        cs, _ = cv2.findContours(m2, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cv2.drawContours(m2, cs, -1, (1,), thickness=cv2.FILLED)
        m2 = cv2.morphologyEx(m2, cv2.MORPH_OPEN, core_k)
        cs, _ = cv2.findContours(m2, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        if not cs:
            continue
        best = max(cs, key=lambda c: _own_share(core, c) * cv2.contourArea(c))
        bx, by, bbw, bbh = cv2.boundingRect(best)
        if bx == 0 or by == 0 or bx + bbw >= x1 - x0 or by + bbh >= y1 - y0:
            continue                    # its colour runs on past the window: a field, not a tile
        if float(_distance2(col.reshape(1, 1, 3).astype(np.uint8), np.median(table[y0:y1, x0:x1][core > 0], axis=0))[0, 0]) \
                < cfg.obstacle_contrast ** 2:
            continue                    # as the table round it (the table's colour judged too far off here)
        c = best + np.array([x0, y0], dtype=best.dtype)
        tile = _tile(c, scale, cfg, origin, board_mm, area_mm, min_area_mm2, max_area_mm2)
        if tile is None or _own_share(own, best) < cfg.obstacle_fill_share:
            continue
        inside = np.zeros(m2.shape, np.uint8)
        cv2.drawContours(inside, [best], -1, (1,), thickness=cv2.FILLED)
        if np.count_nonzero(inside & taken[y0:y1, x0:x1]) > cfg.obstacle_taken_share * np.count_nonzero(inside):
            continue
        counts = [int(np.count_nonzero((idx[y0:y1, x0:x1] == names.index(m)) & (inside > 0)))
                  for m in OBSTACLE_COLOURS]
        material = list(OBSTACLE_COLOURS)[int(np.argmax(counts))] if max(counts) else _material(col)
        out.append(Obstacle(material, *tile))
        taken[y0:y1, x0:x1] |= inside
    return out


def _tile_area(c: NDArray[Any], scale: float, cfg: RailwaysConfig, origin: F64, board_mm: F64 | None,
               min_area_mm2: float, max_area_mm2: float) -> float | None:
    """The area (mm2) of the outline `c` (pixels) when it could be a tile by its size and
    fill and is not the Metropolis board, else None."""
    area = float(cv2.contourArea(c)) / (scale * scale)
    if area < min_area_mm2 or area > max_area_mm2:
        return None
    # tiles are rectangles or Ls: their outline fills most of its hull
    hull = cv2.contourArea(cv2.convexHull(c)) / (scale * scale)
    if hull <= 0 or area / hull < cfg.obstacle_solidity:
        return None
    # every tile is longer than any card (a card-sized patch is a card's shadow or art)
    (_, _), (rw, rh), _ = cv2.minAreaRect(c)
    if max(rw, rh) / scale < cfg.obstacle_min_length_mm:
        return None
    # a full square is the Metropolis board (grey like a mountain), never a tile:
    # rectangle tiles are twice as long as wide, an L square only around its hollow
    if max(rw, rh) < 1.25 * min(rw, rh) and area / hull > 0.9:
        return None
    # nor is an area holding a square of the board as the stations read it: chains and
    # cubes over the board cut its outline below that fill (dev 2100-2139: the board read
    # as a mountain on 6 tables, and every link over it crossed it)
    if cfg.obstacle_not_board and board_mm is not None and any(
            cv2.pointPolygonTest(c, (float(x), float(y)), False) >= 0
            for x, y in (np.asarray(board_mm, dtype=np.float64).reshape(-1, 2) - origin) * scale - 0.5):
        return None
    return area


def _tile(c: NDArray[Any], scale: float, cfg: RailwaysConfig, origin: F64, board_mm: F64 | None,
          area_mm: tuple[tuple[float, float], tuple[float, float]] | None,
          min_area_mm2: float, max_area_mm2: float) -> tuple[F64, float] | None:
    """The outline `c` (pixels) as a tile's (table mm) and its area, or None when it is no
    tile's size or shape."""
    area = _tile_area(c, scale, cfg, origin, board_mm, min_area_mm2, max_area_mm2)
    if area is None:
        return None
    (cx, cy), (rw, rh), _ = cv2.minAreaRect(c)
    if max(rw, rh) / scale > cfg.obstacle_max_length_mm:
        return None
    outline = _tile_outline(c, scale, cfg)
    if outline is None:
        return None
    centre = np.array([cx, cy]) / scale + origin
    if area_mm is not None and not (area_mm[0][0] <= centre[0] <= area_mm[0][0] + area_mm[1][0]
                                    and area_mm[0][1] <= centre[1] <= area_mm[0][1] + area_mm[1][1]):
        return None
    return (outline + 0.5) / scale + origin, area


def _tile_outline(c: NDArray[Any], scale: float, cfg: RailwaysConfig, fit: float | None = None) -> F64 | None:
    """The rectangle or L (pixels) that covers the outline `c` best, when it covers it
    well (intersection over union at least `fit`, by default obstacle_fit), else None. Why a model: chains
    across a tile's edge and a card beside it nibble its outline, and the outline a link
    is checked against should be the tile's, not the nibbles'; a patch of wood grain or a
    lamp's pool of light is a rounded, ragged blob that neither covers."""
    (cx, cy), (rw, rh), ang = cv2.minAreaRect(cv2.convexHull(c))
    if rw < 2 or rh < 2:
        return None
    t = np.radians(ang)
    u, v = np.array([np.cos(t), np.sin(t)]), np.array([-np.sin(t), np.cos(t)])
    pts = c.reshape(-1, 2).astype(np.float64) - np.array([cx, cy])
    local = np.stack([pts @ u + rw / 2, pts @ v + rh / 2], axis=1)    # rect frame, 0..rw x 0..rh
    w, h = int(np.ceil(rw)) + 1, int(np.ceil(rh)) + 1
    m = np.zeros((h, w), np.uint8)
    cv2.fillPoly(m, [np.round(local).astype(np.int32).reshape(-1, 1, 2)], (1,))
    blob = int(np.count_nonzero(m))
    if blob == 0:
        return None

    def to_px(q: F64) -> F64:
        q = np.asarray(q, dtype=np.float64) - np.array([rw / 2, rh / 2])
        return np.asarray(np.outer(q[:, 0], u) + np.outer(q[:, 1], v) + np.array([cx, cy]), dtype=np.float64)
    box = np.array([[0, 0], [rw, 0], [rw, rh], [0, rh]], dtype=np.float64)
    fit = cfg.obstacle_fit if fit is None else fit
    if blob / (rw * rh) >= fit:
        return to_px(box)
    best: tuple[float, F64] | None = None
    band = max(1, int(0.2 * min(w, h)))
    for fx, fy in ((False, False), (True, False), (False, True), (True, True)):
        g = m[::-1 if fy else 1, ::-1 if fx else 1]         # the notch at the top-right
        nw = float(np.median(w - g[:band].sum(axis=1)))
        nh = float(np.median(h - g[:, -band:].sum(axis=0)))
        if not (cfg.obstacle_min_arm_mm * scale <= w - nw and cfg.obstacle_min_arm_mm * scale <= h - nh
                and nw >= cfg.obstacle_min_arm_mm * scale and nh >= cfg.obstacle_min_arm_mm * scale):
            continue
        model = np.ones((h, w), np.uint8)
        model[:int(round(nh)), w - int(round(nw)):] = 0
        inter = int(np.count_nonzero(model & g))
        iou = inter / float(blob + int(np.count_nonzero(model)) - inter)
        if best is None or iou > best[0]:
            x1, y1 = rw - nw, nh
            poly = np.array([[0, 0], [x1, 0], [x1, y1], [rw, y1], [rw, rh], [0, rh]], dtype=np.float64)
            if fx:
                poly[:, 0] = rw - poly[:, 0]
            if fy:
                poly[:, 1] = rh - poly[:, 1]
            best = (iou, poly)
    if best is None or best[0] < fit:
        return None
    return to_px(best[1])


def _material(col: NDArray[Any]) -> str:
    """Lake when the tile's colour is bluer than neutral (b* below 128), else mountain."""
    return "lake" if float(col[2]) < 128 else "mountain"


def _own_share(own: NDArray[Any], contour: NDArray[Any]) -> float:
    """The share of the area inside `contour` that `own` (0/1) marks."""
    x, y, w, h = cv2.boundingRect(contour)
    inside = np.zeros((h, w), np.uint8)
    cv2.drawContours(inside, [contour - np.array([x, y], dtype=contour.dtype)], -1, (1,), thickness=cv2.FILLED)
    n = int(inside.sum())
    return float((own[y:y + h, x:x + w] & inside).sum()) / n if n else 0.0
