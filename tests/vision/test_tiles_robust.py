"""The tile reader's faster statistics equal the plain numpy definitions they replace,
number for number, on seeded random input (the readings must not move by a bit)."""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from vision.tiles.config import TilesConfig
from vision.tiles.grid import GridFit, _spread_smoothly, sharpness, strong_edges
from vision.tiles.occupancy import cell_stats
from vision.tiles.robust import median1, median_cols, median_rows, norm_planes, percentile1

SIZES = list(range(1, 40)) + [255, 256, 1450, 1451]


@pytest.mark.parametrize("ties", [False, True])
def test_median_and_percentile_equal_numpy(ties: bool) -> None:
    """median1 / median_cols / median_rows / percentile1 return np.median's and
    np.percentile's very numbers, odd and even sizes, with and without tied values."""
    rng = np.random.default_rng(7)
    for n in SIZES:
        v = rng.normal(0.0, 30.0, n)
        px = rng.normal(0.0, 20.0, (n, 3))
        if ties:
            v, px = np.round(v / 5.0), np.round(px / 5.0)
        assert median1(v) == float(np.median(v))
        assert np.array_equal(median_cols(px), np.median(px, axis=0))
        assert np.array_equal(median_rows(np.ascontiguousarray(px.T)), np.median(px, axis=0))
        for q in (0.0, 1.0, 25.0, 50.0, 70.0, 75.0, 90.0, 98.0, 99.9, 100.0):
            assert percentile1(v, q) == float(np.percentile(v, q)), (n, q)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_norm_planes_equals_linalg_norm(dtype: type) -> None:
    """norm_planes of the channel planes is np.linalg.norm along the last axis, bit for bit."""
    rng = np.random.default_rng(3)
    x: NDArray[Any] = (rng.normal(0.0, 40.0, (97, 83, 3))).astype(dtype)
    got = norm_planes([x[..., i] - 1.5 for i in range(3)])
    assert got.dtype == dtype
    assert np.array_equal(got, np.linalg.norm(x - 1.5, axis=2))


def _cell_stats_plain(lab: NDArray[Any], grid: GridFit, px_per_mm: float, origin_mm: tuple[float, float],
                      area: tuple[float, float, float, float], ring: tuple[float, float], inner: float,
                      bare: NDArray[Any] | None) -> dict[tuple[int, int], NDArray[Any]]:
    """cell_stats as first written: every pixel, interleaved channels, one cell at a time."""
    h, w = lab.shape[:2]
    ux, uy = grid.axes
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    X = origin_mm[0] + (xs + 0.5) / px_per_mm - grid.origin_mm[0]
    Y = origin_mm[1] + (ys + 0.5) / px_per_mm - grid.origin_mm[1]
    u = (X * ux[0] + Y * ux[1]) / grid.pitch_mm
    v = (X * uy[0] + Y * uy[1]) / grid.pitch_mm
    cu, cv = np.floor(u), np.floor(v)
    cheb = np.maximum(np.abs(u - cu - 0.5), np.abs(v - cv - 0.5)).ravel()
    ci, ri = cu.astype(np.int64).ravel(), cv.astype(np.int64).ravel()
    cmin, rmin = int(ci.min()), int(ri.min())
    ncol = int(ci.max()) - cmin + 1
    nk = ncol * (int(ri.max()) - rmin + 1)
    key = (ri - rmin) * ncol + (ci - cmin)
    px = lab.reshape(-1, 3).astype(np.float64)
    rs = (cheb >= ring[0]) & (cheb <= ring[1])
    n_r = np.bincount(key[rs], minlength=nk).astype(np.float64)
    sums = np.stack([np.bincount(key[rs], weights=px[rs, i], minlength=nk) for i in range(3)], 1)
    means = sums / np.maximum(n_r, 1.0)[:, None]
    de = np.linalg.norm(px - means[key], axis=1)
    spread = np.sqrt(np.bincount(key[rs], weights=de[rs] ** 2, minlength=nk) / np.maximum(n_r, 1.0))
    ins = cheb < inner
    n_i = np.bincount(key[ins], minlength=nk).astype(np.float64)
    centre = np.bincount(key[ins], weights=de[ins], minlength=nk) / np.maximum(n_i, 1.0)
    share = None
    if bare is not None:
        share = np.bincount(key[ins & bare.ravel()], minlength=nk) / np.maximum(n_i, 1.0)
    count = np.bincount(key, minlength=nk)
    out = {}
    x0, y0, x1, y1 = area
    h2 = 0.35 * grid.pitch_mm
    for k in np.nonzero(count >= 0.8 * (grid.pitch_mm * px_per_mm) ** 2)[0]:
        c, r = int(k % ncol) + cmin, int(k // ncol) + rmin
        ctr = grid.cell_centre_mm(c, r)
        if x0 + h2 <= ctr[0] <= x1 - h2 and y0 + h2 <= ctr[1] <= y1 - h2:
            row = [means[k, 0], means[k, 1], means[k, 2], spread[k], centre[k]]
            out[(c, r)] = np.array(row if share is None else row + [share[k]])
    return out


@pytest.mark.parametrize("angle_deg,with_bare", [(0.0, False), (7.3, True), (-31.0, True)])
def test_cell_stats_equals_plain_definition(angle_deg: float, with_bare: bool) -> None:
    """The column/row-wise cell_stats gives the per-pixel definition's cells and numbers."""
    rng = np.random.default_rng(11)
    lab = rng.normal(50.0, 20.0, (140, 170, 3)).astype(np.float32)
    bare = rng.random((140, 170)) < 0.5 if with_bare else None
    grid = GridFit(math.radians(angle_deg), 23.7, (11.3, 9.1), 1.0)
    args = (lab, grid, 1.5, (5.0, 4.0), (5.0, 4.0, 118.0, 97.0), (0.3, 0.4), 0.22, bare)
    want = _cell_stats_plain(*args)
    got = cell_stats(*args)
    assert list(got) == list(want) and len(want) > 5
    for k in want:
        assert np.array_equal(got[k], want[k])


def _spread_plain(near: NDArray[Any], sm: NDArray[Any], px_per_mm: float, cfg: TilesConfig) -> NDArray[Any]:
    """_spread_smoothly as first written (interleaved channels, np.linalg.norm)."""
    wide = np.ones((cfg.table_line_px, cfg.table_line_px), np.uint8)
    flat = np.asarray(cv2.morphologyEx(cv2.morphologyEx(sm, cv2.MORPH_OPEN, wide), cv2.MORPH_CLOSE, wide),
                      np.float32)
    cur = near
    k = max(3, int(round(cfg.table_local_mm * px_per_mm)) | 1)
    for _ in range(cfg.table_grow_rounds):
        wt = cur.astype(np.float32)
        den = np.asarray(cv2.blur(wt, (k, k)), np.float32)
        local = np.asarray(cv2.blur(flat * wt[..., None], (k, k)), np.float32) / np.maximum(den, 1e-6)[..., None]
        grown = (den > cfg.table_local_share) & (np.linalg.norm(flat - local, axis=2) < cfg.table_local_match)
        if not np.any(grown & ~cur):
            break
        cur = cur | grown
    return np.asarray(cur, dtype=np.bool_)


def test_spread_smoothly_equals_plain_definition() -> None:
    """Growing the table plane by plane gives the interleaved definition's mask on a
    smoothly lit random table (whole-number colours, as table_near's median view has)."""
    rng = np.random.default_rng(5)
    yy, xx = np.mgrid[0:150, 0:160]
    base = np.stack([120 + 0.5 * xx, 128 + 0.1 * yy, 140 - 0.2 * xx], -1)
    sm = np.clip(np.round(base + rng.normal(0, 6, base.shape)), 0, 255).astype(np.float32)
    sm[40:80, 50:90] = (60, 150, 100)
    near = np.linalg.norm(sm - sm[5, 5], axis=2) < 18
    cfg = TilesConfig()
    want = _spread_plain(near, sm, 0.75, cfg)
    assert np.count_nonzero(want) > np.count_nonzero(near)
    assert np.array_equal(_spread_smoothly(near, sm, 0.75, cfg), want)


def test_sharpness_equals_plain_definition() -> None:
    """sharpness over the shared strongest edges equals the per-turn definition."""
    rng = np.random.default_rng(9)
    gx = rng.normal(0, 1, (90, 110)).astype(np.float32)
    gy = rng.normal(0, 1, (90, 110)).astype(np.float32)
    weight = rng.random((90, 110)).astype(np.float32)
    e = strong_edges(gx, gy, weight, 1.5)
    binmm = 1.0 / 1.5
    w = (np.hypot(gx, gy) * weight).ravel()
    n = w.size
    k = max(200, int(n * 0.04))
    idx = np.argpartition(w, n - k)[n - k:]
    ys, xs = np.divmod(idx, gx.shape[1])
    X, Y = (xs + 0.5) / 1.5, (ys + 0.5) / 1.5
    Gx, Gy, W = gx.ravel()[idx], gy.ravel()[idx], weight.ravel()[idx]
    turns = [0.01 * i for i in range(-5, 6)]
    want = []
    for t in turns:
        c, s = math.cos(t), math.sin(t)
        gu, gv = np.abs(Gx * c + Gy * s) * W, np.abs(-Gx * s + Gy * c) * W
        u, v = X * c + Y * s, -X * s + Y * c
        hu = np.bincount(((u - u.min()) / binmm).astype(np.int64), weights=np.where(gu > 2 * gv, gu, 0))
        hv = np.bincount(((v - v.min()) / binmm).astype(np.int64), weights=np.where(gv > 2 * gu, gv, 0))
        want.append(float(np.sum(hu * hu) + np.sum(hv * hv)))
    assert sharpness(e, turns, binmm) == want
