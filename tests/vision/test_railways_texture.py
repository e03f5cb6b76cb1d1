"""The table's own texture is not chains: ruled cutting mats and sensor noise
(vision.railways.frame.background, trace.ink_cut and trace.chain_band)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.railways.config import RailwaysConfig
from vision.railways.frame import backgrounds
from vision.railways.trace import chain_band, ink

CFG = RailwaysConfig()
PX = 2          # px per mm of the top view


def _grid_mat(seed: int, size_mm: int = 300) -> np.ndarray:
    """A dark blue cutting mat with a pale 10 mm grid (thicker every 50 mm), slightly
    turned, with a little sensor noise, at 2 px/mm."""
    rng = np.random.default_rng(seed)
    n = size_mm * PX
    img = np.full((n, n, 3), (90, 60, 30), np.uint8)
    turn = float(rng.uniform(-5, 5))
    m = cv2.getRotationMatrix2D((n / 2, n / 2), turn, 1.0)
    lines = np.zeros((2 * n, 2 * n), np.uint8)
    for k in range(0, 2 * n, 10 * PX):
        w = 3 if (k // (10 * PX)) % 5 == 0 else 1
        lines[:, k:k + w] = 255
        lines[k:k + w, :] = 255
    lines = cv2.warpAffine(lines[n // 2:n // 2 + n, n // 2:n // 2 + n], m, (n, n))
    a = (lines.astype(np.float32) / 255.0)[..., None]
    img = (img * (1 - a) + np.float32((200, 190, 170)) * a).astype(np.float32)
    img += rng.normal(0, 4, img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def _chain(img: np.ndarray, y_mm: int, colour: tuple[int, int, int]) -> None:
    """A run of clip outlines 9 mm wide along row y_mm (wire 1.25 mm)."""
    for x0 in range(20, img.shape[1] // PX - 40, 28):
        cv2.rectangle(img, (x0 * PX, (y_mm - 4) * PX), ((x0 + 32) * PX, (y_mm + 4) * PX), colour, 2 * PX // 2 + 1)


def _band(img: np.ndarray) -> np.ndarray:
    bg = backgrounds(img, int(round(12.0 * PX)), textured=True)[1]
    im = ink(img, bg, PX)
    return chain_band(im, np.zeros(im.shape, np.uint8), CFG)


def test_a_ruled_mat_is_its_own_background() -> None:
    """On a 10 mm grid the background is the mat between the lines, not halfway to them."""
    for seed in range(2):
        img = _grid_mat(seed)
        bg = backgrounds(img, 24, textured=True)[1]
        d = cv2.absdiff(bg, np.uint8([[[90, 60, 30]]]).repeat(img.shape[0], 0).repeat(img.shape[1], 1))
        assert float(np.median(d.max(axis=2))) < 10


def test_a_ruled_mat_makes_no_band_and_a_chain_on_it_does() -> None:
    """The grid's lines and crossings leave no chain-sized band; a green chain across the mat does."""
    for seed in range(2):
        img = _grid_mat(seed)
        _chain(img, 150, (64, 140, 60))
        band = _band(img)
        assert band[140:161, 40:240].max(axis=0).mean() > 0.9
        rest = band.copy()
        rest[130:171] = 0                             # the chain and what its band may reach
        rest[:20] = rest[-20:] = 0                    # the synthetic mat's own edge is no table
        rest[:, :20] = rest[:, -20:] = 0
        n, lab, stats, _ = cv2.connectedComponentsWithStats(rest)
        assert int(stats[1:, cv2.CC_STAT_AREA].max(initial=0)) < CFG.min_chain_area_mm2


def test_a_plain_table_keeps_its_background() -> None:
    """On a plain table both backgrounds are the same: a chain is removed, the table kept."""
    img = np.full((400, 400, 3), (150, 190, 220), np.uint8)
    _chain(img, 100, (30, 36, 48))
    plain, bg = backgrounds(img, 24, textured=True)
    assert (plain == bg).all()
    assert int(np.abs(bg.astype(int) - np.array([150, 190, 220])).max()) <= 3
