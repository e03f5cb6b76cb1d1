"""R27l: a chain's band thins to one line its whole length.

Dev 2100-2139 at 4608x2592: a white link on a pale mat was traced 50 mm of its 122 mm
because pinholes in its band (cells lost to another colour's specks) made loops of the
skeleton (2139); short links between two cards, aslant, thinned to 10 mm of their 60 mm
band (2128, 2131) and were dropped.
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from vision.railways import skeleton as sk
from vision.railways.chains import chain_paths, fill_small_holes
from vision.railways.config import RailwaysConfig


def _longest(band: np.ndarray, cfg: RailwaysConfig) -> float:  # type: ignore[type-arg]
    return max((sk.path_length(p) for p in chain_paths(band, (0.0, 0.0), cfg)), default=0.0)


def _pinholed_arc(seed: int) -> tuple[np.ndarray, float]:  # type: ignore[type-arg]
    """A 13 mm band along a 220 mm arc (1 px/mm) with 30 pinholes of 1-2 cells inside it."""
    rng = np.random.default_rng(seed)
    band = np.zeros((260, 260), np.uint8)
    t = np.linspace(0, 1.2, 200)
    r = 150 + rng.uniform(-10, 10)
    pts = np.stack([30 + r * np.sin(t), 230 - r * (1 - np.cos(t)) - 60 * t], 1)
    cv2.polylines(band, [np.round(pts).astype(np.int32)], False, (1,), 13)
    ys, xs = np.nonzero(cv2.erode(band, np.ones((7, 7), np.uint8)))
    for k in rng.choice(len(ys), 30, replace=False):
        band[ys[k], xs[k]] = 0
        if rng.random() < 0.5:
            band[ys[k] + 1, xs[k]] = 0
    return band, float(np.hypot(*np.diff(pts, axis=0).T).sum())


def _ragged_strip(seed: int) -> tuple[np.ndarray, float]:  # type: ignore[type-arg]
    """An 8 mm band about 60 mm long at about 30 degrees, its edges ragged with 40 bumps."""
    rng = np.random.default_rng(seed)
    band = np.zeros((120, 120), np.uint8)
    a = np.radians(30 + rng.uniform(-5, 5))
    length = 60 + rng.uniform(-5, 5)
    d = np.array([np.cos(a), np.sin(a)])
    p0, p1 = 60.0 - d * length / 2, 60.0 + d * length / 2
    cv2.line(band, tuple(int(v) for v in np.round(p0)), tuple(int(v) for v in np.round(p1)), (1,), 8)
    n = np.array([-d[1], d[0]])
    for t in rng.uniform(0, 1, 40):
        q = p0 + (p1 - p0) * t + n * rng.choice([-1, 1]) * rng.uniform(3, 6)
        cv2.circle(band, tuple(int(v) for v in np.round(q)), int(rng.integers(1, 3)), (1,), -1)
    return band, length


@pytest.mark.parametrize("seed", [1, 3, 5])
def test_a_pinholed_band_thins_to_one_line(seed: int) -> None:
    """The longest line runs the arc's length; without filling the pinholes it is cut short or doubles back."""
    band, length = _pinholed_arc(seed)
    cfg = RailwaysConfig()
    assert 0.85 * length <= _longest(band, cfg) <= 1.05 * length
    assert _longest(band, dataclasses.replace(cfg, chain_hole_mm2=0.0)) < 0.75 * length


def test_only_small_holes_are_filled() -> None:
    """A pinhole is filled; a hole a chain loop encloses (30 x 30 mm) is not."""
    blob = np.zeros((60, 60), np.uint8)
    cv2.rectangle(blob, (5, 5), (54, 54), (1,), 8)
    blob[30, 8] = 0
    out = fill_small_holes(blob, 20.0)
    assert out[30, 8] == 1 and out[30, 30] == 0


@pytest.mark.parametrize("seed", [2, 3, 5])
def test_a_short_ragged_band_aslant_keeps_its_length(seed: int) -> None:
    """The line runs most of the strip; the plain thinning keeps under half of it."""
    band, length = _ragged_strip(seed)
    cfg = RailwaysConfig()
    assert _longest(band, cfg) >= 0.75 * length
    assert _longest(band, dataclasses.replace(cfg, unstair_short_share=0.0)) < 0.5 * length
