"""Session 20's faster paths of the tile reader equal what they replace, number for
number, on seeded random input (a speed change must not move a reading by a bit)."""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.colour import BLACK_LEVEL, WHITE_LEVEL, ColourReference
from vision.tiles.crops import normalise_crop, normalise_crops, to_lab
from vision.tiles.face import _print_colour
from vision.tiles.grid import GridFit, Outline, cornerness, line_profiles
from vision.tiles.pipeline import _bare_shares, _table_share


def test_bare_shares_equal_one_cell_at_a_time() -> None:
    """_bare_shares of many cells is _table_share of each cell's Outline.inside_mm."""
    rng = np.random.default_rng(20)
    near = rng.random((300, 310)) < 0.6
    for angle_deg, inset in ((0.0, 0.6), (9.7, 1.0), (-33.0, 0.5)):
        grid = GridFit(math.radians(angle_deg), 37.3, (41.2, 28.9), 1.0)
        cells = [(c, r) for c in range(-2, 9) for r in range(-1, 8)]
        want = []
        for c, r in cells:
            ctr = grid.cell_centre_mm(c, r)
            o = Outline(grid.pitch_mm, grid.angle_rad, 0.0, (float(ctr[0]), float(ctr[1])))
            want.append(_table_share(near, o.inside_mm(inset=inset), 1.5, (30.0, 30.0)))
        assert _bare_shares(near, grid, cells, 1.5, (30.0, 30.0), inset).tolist() == want


def _normalise_plain(crop: NDArray[np.uint8], reference: ColourReference,
                     centre_mm: NDArray[np.float64]) -> NDArray[np.float32]:
    """normalise_crop as it was written before it served a stack of crops."""
    white = reference.white_at(np.asarray(centre_mm, dtype=np.float64).reshape(1, 2))[0]
    rho = np.asarray(reference.rho, dtype=np.float64)
    span = (WHITE_LEVEL - BLACK_LEVEL) / 255.0
    gain = span / (white * (1.0 - rho))
    offset = BLACK_LEVEL / 255.0 - rho * span / (1.0 - rho)
    h, w = crop.shape[:2]
    out = crop.astype(np.float32).reshape(h, -1)
    out *= np.tile(gain.astype(np.float32), w)
    out += np.tile(offset.astype(np.float32), w)
    np.maximum(out, 0.0, out=out)
    np.minimum(out, 1.0, out=out)
    return out.reshape(crop.shape)


def test_crops_normalised_and_converted_at_once_equal_one_by_one() -> None:
    """normalise_crops and to_lab of a stack give each crop's own numbers, whatever the
    crop size (a frame's cells are read at 36 and 72 pixels)."""
    rng = np.random.default_rng(21)
    ref = ColourReference((), ((5.3, 0.02, -0.01, 1e-5), (5.4, -0.01, 0.02, 0.0), (5.2, 0.0, 0.0, 2e-5)),
                          (0.08, 0.1, 0.12), 100.0, "markers")
    for n in (36, 72, 13):
        crops = rng.integers(0, 256, (9, n, n, 3), dtype=np.uint8)
        ctrs = rng.uniform(0.0, 400.0, (9, 2))
        whites = np.concatenate([ref.white_at(c.reshape(1, 2)) for c in ctrs])
        got = normalise_crops(crops, ref, whites)
        labs = to_lab(got)
        for i in range(9):
            want = _normalise_plain(crops[i], ref, ctrs[i])
            assert np.array_equal(got[i], want)
            assert np.array_equal(normalise_crop(crops[i], ref, ctrs[i]), want)
            assert np.array_equal(labs[i], np.asarray(cv2.cvtColor(want, cv2.COLOR_BGR2LAB)))


def test_print_colour_converts_only_the_print() -> None:
    """_print_colour gives the colour the whole smoothed crop's Lab gives at the print."""
    rng = np.random.default_rng(22)
    for n in (36, 72):
        bgr = rng.random((n, n, 3), dtype=np.float32)
        mask = rng.random((n, n)) < 0.3
        face = np.array([60.0, 5.0, -3.0])
        smooth = np.asarray(cv2.GaussianBlur(bgr, (0, 0), 2.0), dtype=np.float32)
        lab = np.asarray(cv2.cvtColor(smooth, cv2.COLOR_BGR2LAB), dtype=np.float64)[mask]
        dist = np.linalg.norm(lab - face, axis=1)
        want = np.median(lab[dist >= np.percentile(dist, 75.0)], axis=0)
        assert np.array_equal(_print_colour(bgr, face, mask, 2.0), want)


def _cornerness_plain(gx: NDArray[np.float32], gy: NDArray[np.float32], window_px: float) -> NDArray[np.float32]:
    jxx = cv2.GaussianBlur(gx * gx, (0, 0), window_px)
    jyy = cv2.GaussianBlur(gy * gy, (0, 0), window_px)
    jxy = cv2.GaussianBlur(gx * gy, (0, 0), window_px)
    half = 0.5 * (jxx + jyy)
    lam2 = half - np.sqrt(0.25 * (jxx - jyy) ** 2 + jxy ** 2)
    return np.asarray(np.sqrt(np.maximum(lam2, 0.0)), dtype=np.float32)


def _line_profiles_plain(gray: NDArray[np.float32], theta: float, px_per_mm: float,
                         origin_mm: tuple[float, float], line_mm: float,
                         long_mm: float = 75.0) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """line_profiles' two profiles as first written (every opening along its own axis)."""
    h, w = gray.shape
    c, s = math.cos(theta), math.sin(theta)
    corners = np.array([[origin_mm[0], origin_mm[1]], [origin_mm[0] + w / px_per_mm, origin_mm[1]],
                        [origin_mm[0], origin_mm[1] + h / px_per_mm],
                        [origin_mm[0] + w / px_per_mm, origin_mm[1] + h / px_per_mm]])
    us = corners[:, 0] * c + corners[:, 1] * s
    vs = -corners[:, 0] * s + corners[:, 1] * c
    u0, v0 = float(us.min()), float(vs.min())
    ow = int(math.ceil((us.max() - u0) * px_per_mm))
    oh = int(math.ceil((vs.max() - v0) * px_per_mm))
    p = px_per_mm
    m = np.array([[c, -s, (u0 * c - v0 * s - origin_mm[0]) * p + 0.5 * (c - s) - 0.5],
                  [s, c, (u0 * s + v0 * c - origin_mm[1]) * p + 0.5 * (s + c) - 0.5]])
    rot = cv2.warpAffine(gray, m, (ow, oh), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=(-1.0,))
    valid = np.asarray(cv2.erode((rot >= 0).astype(np.uint8), np.ones((5, 5), np.uint8)), np.float32)
    rot = np.maximum(rot, 0).astype(np.float32)
    gx = np.abs(np.asarray(cv2.Sobel(rot, cv2.CV_32F, 1, 0, ksize=3), np.float32)) * valid
    gy = np.abs(np.asarray(cv2.Sobel(rot, cv2.CV_32F, 0, 1, ksize=3), np.float32)) * valid
    n = max(3, int(round(line_mm * px_per_mm)))
    gx = np.asarray(cv2.blur(gx, (5, 1)), np.float32)
    gy = np.asarray(cv2.blur(gy, (1, 5)), np.float32)
    n_long = max(n + 2, int(round(long_mm * px_per_mm)))
    gx = np.asarray(cv2.morphologyEx(gx, cv2.MORPH_OPEN, np.ones((n, 1), np.uint8))
                    - cv2.morphologyEx(gx, cv2.MORPH_OPEN, np.ones((n_long, 1), np.uint8)), np.float32)
    gy = np.asarray(cv2.morphologyEx(gy, cv2.MORPH_OPEN, np.ones((1, n), np.uint8))
                    - cv2.morphologyEx(gy, cv2.MORPH_OPEN, np.ones((1, n_long), np.uint8)), np.float32)
    return gx.sum(axis=0).astype(np.float64), gy.sum(axis=1).astype(np.float64)


def test_cornerness_and_line_profiles_equal_their_plain_definitions() -> None:
    """cornerness worked in place, and line_profiles opening the horizontal runs on the
    transposed view, give the first definitions' numbers."""
    rng = np.random.default_rng(23)
    for i in range(4):
        gx = rng.normal(0.0, 1.0, (150, 170)).astype(np.float32)
        gy = rng.normal(0.0, 1.0, (150, 170)).astype(np.float32)
        assert np.array_equal(cornerness(gx, gy, 6.0 + i), _cornerness_plain(gx, gy, 6.0 + i))
        gray = np.asarray(cv2.GaussianBlur(rng.random((150, 170)).astype(np.float32), (0, 0), 1.0), np.float32)
        gray[40:90, 50:100] += 0.5
        theta = 0.3 * i - 0.4
        pu, pv, _, _, _ = line_profiles(gray, theta, 1.5, (30.0, 30.0), 16.0)
        want = _line_profiles_plain(gray, theta, 1.5, (30.0, 30.0), 16.0)
        assert np.array_equal(pu, want[0]) and np.array_equal(pv, want[1])
