"""R27l: a link's end is walked on along its colour band where its wire is too faint.

Dev 2100-2139 at 4608x2592: chains near the table's own colour (red on dark red wood, white
on a pale mat, black on a dark one) give wire evidence too faint to walk, and their traced
piece stopped 50-200 mm short of its card; their band (the colour-blind ink) still ran on.
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from vision.railways.config import RailwaysConfig
from vision.railways.frame import TopView
from vision.railways.pipeline import _walk_ends
from vision.railways.stations import Station

PX = 2.0
VIEW = TopView(np.zeros((0, 0, 3), np.uint8), np.zeros((0, 0, 3), np.uint8), (0.0, 0.0), PX)


def _case(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, Station]:  # type: ignore[type-arg]
    """An arc of chain from a card at its start round to a card 200 mm on: its wire (2 px/mm)
    seen on the first quarter only, its band (1 px/mm, 10 mm wide, speckled) the whole way."""
    rng = np.random.default_rng(seed)
    r = 200.0 + rng.uniform(-20, 20)
    t = np.radians(np.linspace(180.0, 270.0, 120))
    whole = np.stack([250.0 + r * np.cos(t), 300.0 + r * np.sin(t)], axis=1)
    traced = whole[10:len(whole) // 4]
    wire = np.zeros((1200, 1200), np.float32)
    cv2.polylines(wire, [np.round(whole[:len(whole) // 4 + 2] * PX).astype(np.int32)], False, (1.0,), 4)
    band = np.zeros((600, 600), np.uint8)
    cv2.polylines(band, [np.round(whole - 0.5).astype(np.int32)], False, (1,), 10)
    band *= (rng.random(band.shape) < 0.8).astype(np.uint8)
    end = whole[-1]
    head = (whole[-1] - whole[-4]) / np.hypot(*(whole[-1] - whole[-4]))
    c = end + head * 30.5
    nrm = np.array([-head[1], head[0]])
    poly = np.array([c + 30 * (sa * head + sb * nrm) for sa, sb in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
    return traced, wire, band, Station("S2", "town", (float(c[0]), float(c[1])), poly, 60.0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_an_end_is_walked_on_its_band_to_the_card(seed: int) -> None:
    """The walk reaches the card along the band; with walk_band off the wire walk gives out and the end stays short."""
    traced, wire, band, card = _case(seed)
    cfg = RailwaysConfig()
    path, walked = _walk_ends(traced, wire, VIEW, [card], cfg, band)
    assert walked and card.distance(path[-1]) <= cfg.walk_arrive_mm
    path, walked = _walk_ends(traced, wire, VIEW, [card], dataclasses.replace(cfg, walk_band=False), band)
    assert not walked and card.distance(path[-1]) > 100.0
