"""Obstacle tiles whose colour the light moved off both tile colours are still found.

A lamp washes a lake out to sky blue, a dim corner takes a mountain to the table's brown:
the nearest-colour pass (find_obstacles' first) loses them (dev 2100-2169: 36 of 280 tiles
missed, 13 of them found by this pass), and a link over a missed tile scores no penalty.
"""

from __future__ import annotations

import dataclasses
import math

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from vision.railways.config import RailwaysConfig
from vision.railways.obstacles import find_obstacles

F64 = NDArray[np.float64]


def _rect(cx: float, cy: float, w: float, h: float, deg: float) -> F64:
    a = math.radians(deg)
    u, v = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    corners = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return np.asarray(np.array([cx, cy]) + corners @ np.stack([u, v]), dtype=np.float64)


def _l_shape(cx: float, cy: float, arm: float, width: float, deg: float) -> F64:
    a = math.radians(deg)
    u, v = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    local = np.array([[0, 0], [width, 0], [width, arm - width], [arm, arm - width], [arm, arm], [0, arm]], np.float64)
    return np.asarray(np.array([cx, cy]) + (local - arm / 2) @ np.stack([u, v]), dtype=np.float64)


def _table(seed: int) -> tuple[NDArray[np.uint8], dict[str, F64], list[F64]]:
    """A 1 px/mm Lab view of a light wood table (a gentle gradient and noise) holding a washed
    lake rectangle with a black chain along one edge, a mountain L gone beige with a card in
    its hollow, and two things no tile: a round patch and a ragged one of tile-like contrast."""
    rng = np.random.default_rng(seed)
    h, w = 800, 1000
    ramp = np.linspace(-12, 12, w, dtype=np.float32)[None, :, None]
    bgr = np.clip(np.array([120, 165, 205], np.float32) + ramp + rng.normal(0, 6, (h, w, 3)), 0, 255)
    img = bgr.astype(np.uint8)
    jitter = rng.uniform(-15, 15, 4)
    shapes = {"lake": _rect(250 + jitter[0], 250 + jitter[1], 130, 60, 20 + jitter[2]),
              "mountain": _l_shape(700 + jitter[1], 260 + jitter[0], 115, 52, -10 + jitter[3])}
    cv2.fillPoly(img, [np.round(shapes["lake"]).astype(np.int32)], (240, 205, 150))
    cv2.fillPoly(img, [np.round(shapes["mountain"]).astype(np.int32)], (160, 185, 200))
    lake = shapes["lake"]
    cv2.line(img, tuple(int(v) for v in np.round(lake[0] + (lake[3] - lake[0]) * 0.1)),
             tuple(int(v) for v in np.round(lake[1] + (lake[2] - lake[1]) * 0.05)), (30, 30, 30), 8)
    mt = shapes["mountain"]
    hollow = (mt[1] + mt[3]) / 2
    card = _rect(float(hollow[0]), float(hollow[1]), 56, 56, -10 + jitter[3])
    cv2.fillPoly(img, [np.round(card).astype(np.int32)], (40, 200, 250))
    cv2.ellipse(img, (300, 600), (65, 40), 15, 0, 360, (235, 200, 150), -1)
    ragged = np.array([[650, 520], [700, 560], [760, 540], [800, 600], [760, 660], [720, 640],
                       [680, 700], [640, 650], [600, 620]], np.int32) + np.round(jitter[:2]).astype(np.int32)
    cv2.fillPoly(img, [ragged], (160, 185, 200))
    lab = np.asarray(cv2.cvtColor(cv2.GaussianBlur(img, (3, 3), 0), cv2.COLOR_BGR2Lab), dtype=np.uint8)
    return lab, shapes, [card]


def _iou(a: F64, b: F64) -> float:
    ma, mb = np.zeros((800, 1000), np.uint8), np.zeros((800, 1000), np.uint8)
    cv2.fillPoly(ma, [np.round(a).astype(np.int32)], (1,))
    cv2.fillPoly(mb, [np.round(b).astype(np.int32)], (1,))
    return float((ma & mb).sum()) / float((ma | mb).sum())


AREA = ((0.0, 0.0), (1000.0, 800.0))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_tiles_the_light_recoloured_are_found_by_their_contrast_and_shape(seed: int) -> None:
    """The washed lake and the beige L are found (outlines IoU >= 0.8: the strip under the
    chain along the lake's edge is not seen as the lake; the L's hollow kept), the round and
    ragged patches are not; without the contrast pass neither tile is found."""
    lab, shapes, cards = _table(seed)
    cfg = RailwaysConfig()
    got = find_obstacles(lab, (0.0, 0.0), 1.0, cfg, cards_mm=cards, area_mm=AREA)
    assert len(got) == 2
    for material, poly in shapes.items():
        best = max(got, key=lambda o: _iou(o.polygon_mm - 0.5, poly))
        assert _iou(best.polygon_mm - 0.5, poly) >= 0.8
        assert best.material == material
    off = find_obstacles(lab, (0.0, 0.0), 1.0, dataclasses.replace(cfg, obstacle_contrast=0.0),
                         cards_mm=cards, area_mm=AREA)
    assert off == []


def test_a_field_of_colour_running_on_past_a_tile_is_no_tile() -> None:
    """A half-table of another colour (a cloth laid over part of the table) is no tile,
    though its corner is a right angle unlike the table round it."""
    rng = np.random.default_rng(7)
    bgr = np.clip(np.array([120, 165, 205], np.float32) + rng.normal(0, 6, (800, 1000, 3)), 0, 255).astype(np.uint8)
    bgr[:, 600:] = (240, 205, 150)
    lab = np.asarray(cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab), dtype=np.uint8)
    assert find_obstacles(lab, (0.0, 0.0), 1.0, RailwaysConfig(), cards_mm=[], area_mm=AREA) == []


def test_a_band_of_a_tiles_colour_round_a_pool_of_light_is_no_tile() -> None:
    """An arc of mountain colour (the ring a lamp's pool of light leaves on a dark table) is
    no tile, though it is large and solid enough: tiles are rectangles or Ls; a real
    mountain beside it is kept. Without the shape rule the arc is a tile too."""
    from vision.railways.stations import _class_names
    names = _class_names()
    idx = np.full((800, 1000), names.index("table"), np.uint8)
    cv2.ellipse(idx, (350, 400), (160, 160), 0, 200, 270, (names.index("mountain"),), 40)
    cv2.fillPoly(idx, [np.round(_rect(750, 400, 130, 60, 25)).astype(np.int32)], (names.index("mountain"),))
    lab = np.zeros(idx.shape + (3,), np.uint8)
    cfg = RailwaysConfig()
    got = find_obstacles(lab, (0.0, 0.0), 1.0, cfg, classes=(idx, names))
    assert len(got) == 1 and got[0].polygon_mm[:, 0].min() > 600.0
    off = find_obstacles(lab, (0.0, 0.0), 1.0, dataclasses.replace(cfg, obstacle_colour_fit=0.0), classes=(idx, names))
    assert len(off) == 2
