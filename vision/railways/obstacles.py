"""Obstacle tiles (mountains and lakes): large areas of their colour, outlined.

Why their own colours: the tiles are printed landscape, unlike any card or clip; their
outline (rectangle or L) is what a link is checked against for touching.
"""

from __future__ import annotations

from dataclasses import dataclass

from typing import Any
import cv2
import numpy as np
from numpy.typing import NDArray

from vision.railways.config import OBSTACLE_COLOURS, RailwaysConfig
from vision.railways.stations import Classes, nearest_class, opened_blobs

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
                   board_mm: F64 | None = None) -> list[Obstacle]:
    """Large areas whose pixels are nearest an obstacle colour (among the card colours,
    paper, ink and the table's own local colour: see stations.nearest_class), with the
    tile's printed shading and any chain across it filled in. `board_mm`: the centres of
    the Metropolis board's squares as read (an area holding one is the board)."""
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
            area = cv2.contourArea(c) / (scale * scale)
            if area < min_area_mm2 or area > max_area_mm2:
                continue
            # tiles are rectangles or Ls: their outline fills most of its hull
            hull = cv2.contourArea(cv2.convexHull(c)) / (scale * scale)
            if hull <= 0 or area / hull < cfg.obstacle_solidity:
                continue
            # a tile is its colour nearly all over (its shading and chains over it closed): an
            # outline mostly of the table's colour is a ring of shadows round the table
            # between chains, filled in (dev 2100-2139: 5 of 9 false tiles had 0.14-0.52 of
            # their outline in the tile's colour, the 141 true tiles 0.75 and up)
            if cfg.obstacle_fill_share > 0 and _own_share(own, c) < cfg.obstacle_fill_share:
                continue
            # every tile is longer than any card (a card-sized patch is a card's shadow or art)
            (_, _), (rw, rh), _ = cv2.minAreaRect(c)
            if max(rw, rh) / scale < cfg.obstacle_min_length_mm:
                continue
            # a full square is the Metropolis board (grey like a mountain), never a tile:
            # rectangle tiles are twice as long as wide, an L square only around its hollow
            if max(rw, rh) < 1.25 * min(rw, rh) and area / hull > 0.9:
                continue
            # nor is an area holding a square of the board as the stations read it: chains
            # and cubes over the board cut its outline below that fill (dev 2100-2139: the
            # board read as a mountain on 6 tables, and every link over it crossed it)
            if cfg.obstacle_not_board and board_mm is not None and any(
                    cv2.pointPolygonTest(c, (float(x), float(y)), False) >= 0
                    for x, y in (np.asarray(board_mm, dtype=np.float64).reshape(-1, 2) - origin) * scale - 0.5):
                continue
            poly = cv2.approxPolyDP(c, 2.5 * scale, True).reshape(-1, 2).astype(np.float64)
            out.append(Obstacle(material, (poly + 0.5) / scale + origin, float(area)))
    return out


def _own_share(own: NDArray[Any], contour: NDArray[Any]) -> float:
    """The share of the area inside `contour` that `own` (0/1) marks."""
    x, y, w, h = cv2.boundingRect(contour)
    inside = np.zeros((h, w), np.uint8)
    cv2.drawContours(inside, [contour - np.array([x, y], dtype=contour.dtype)], -1, (1,), thickness=cv2.FILLED)
    n = int(inside.sum())
    return float((own[y:y + h, x:x + w] & inside).sum()) / n if n else 0.0
