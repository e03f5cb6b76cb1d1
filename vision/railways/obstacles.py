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
from vision.railways.frame import large, membership

F64 = NDArray[Any]


@dataclass
class Obstacle:
    """An obstacle outline in table mm and what it looks like."""

    material: str
    polygon_mm: F64
    area_mm2: float


def find_obstacles(small_lab: NDArray[np.uint8], origin_mm: tuple[float, float], scale: float,
                   cfg: RailwaysConfig, min_area_mm2: float = 2500.0,
                   max_area_mm2: float = 25000.0) -> list[Obstacle]:
    out: list[Obstacle] = []
    k = max(3, int(round(9.0 * scale)) | 1)
    for material, bgr in OBSTACLE_COLOURS.items():
        m = large(membership(small_lab, bgr, cfg.colour_sigma * 0.7), k)
        mask: NDArray[Any] = (m > 100).astype(np.uint8)
        mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for c in cnts:
            area = cv2.contourArea(c) / (scale * scale)
            if area < min_area_mm2 or area > max_area_mm2:
                continue
            poly = cv2.approxPolyDP(c, 2.5 * scale, True).reshape(-1, 2).astype(np.float64)
            out.append(Obstacle(material, (poly + 0.5) / scale + np.asarray(origin_mm), float(area)))
    return out
