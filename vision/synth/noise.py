"""Seeded value noise anchored in TABLE millimetres.

Anchoring in the table frame (not canvas pixels) keeps a table's wood grain and stains
in the same place whatever part of the table a canvas covers or at what resolution,
so frame N and frame N+1 of a game show the same table.
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.synth.canvas import TableCanvas

F32 = NDArray[Any]   # float32 by convention (the cv2 stubs lose dtypes)

def lattice_values(seed: int, cols: NDArray[np.int64], rows: NDArray[np.int64]) -> F32:
    """Deterministic pseudo-random values in [-sqrt3, sqrt3] (unit variance) for integer
    lattice points, by hashing (seed, col, row): any window of the infinite lattice can be
    generated on its own and always agrees with every other window."""
    with np.errstate(over="ignore"):
        x = (cols.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
             ^ rows.astype(np.uint64) * np.uint64(0xC2B2AE3D27D4EB4F)
             ^ np.uint64((seed * 0x165667B19E3779F9) & 0xFFFFFFFFFFFFFFFF))
        x ^= x >> np.uint64(30)
        x *= np.uint64(0xBF58476D1CE4E5B9)
        x ^= x >> np.uint64(27)
        x *= np.uint64(0x94D049BB133111EB)
        x ^= x >> np.uint64(31)
    u = (x >> np.uint64(40)).astype(np.float64) / float(1 << 24)
    return ((u * 2.0 - 1.0) * math.sqrt(3.0)).astype(np.float32)


def value_noise(canvas: TableCanvas, scale_mm: float, seed: int, angle_deg: float = 0.0,
                stretch: float = 1.0, step: int = 1) -> F32:
    """Smooth zero-mean, unit-ish variance noise with features ~scale_mm across
    (stretch > 1 elongates them along angle_deg, like wood grain). Sampled at every
    `step`-th canvas pixel (shape ceil(H/step) x ceil(W/step))."""
    cell_v = max(scale_mm, 0.05)
    cell_u = cell_v * max(stretch, 1.0)
    h = int(math.ceil(canvas.height / step))
    w = int(math.ceil(canvas.width / step))
    a = math.radians(angle_deg)
    ca, sa = math.cos(a), math.sin(a)
    s = step / canvas.px_per_mm
    ox = canvas.origin_mm[0] + 0.5 / canvas.px_per_mm
    oy = canvas.origin_mm[1] + 0.5 / canvas.px_per_mm
    m_xy = np.array([[s, 0, ox], [0, s, oy], [0, 0, 1]])
    m_uv = np.array([[ca / cell_u, sa / cell_u, 0], [-sa / cell_v, ca / cell_v, 0], [0, 0, 1]])
    m = m_uv @ m_xy
    corners = np.array([[0, 0, 1], [w, 0, 1], [0, h, 1], [w, h, 1]], dtype=np.float64) @ m.T
    c0 = int(math.floor(corners[:, 0].min())) - 3
    r0 = int(math.floor(corners[:, 1].min())) - 3
    c1 = int(math.ceil(corners[:, 0].max())) + 4
    r1 = int(math.ceil(corners[:, 1].max())) + 4
    cols, rows = np.meshgrid(np.arange(c0, c1, dtype=np.int64), np.arange(r0, r1, dtype=np.int64))
    lat = lattice_values(seed, cols, rows)
    m2 = m.copy()
    m2[0, 2] -= c0
    m2[1, 2] -= r0
    out = cv2.warpAffine(lat, m2[:2].astype(np.float64), (w, h),
                         flags=cv2.INTER_CUBIC | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REFLECT)
    return np.asarray(out, dtype=np.float32)


def fractal_noise(canvas: TableCanvas, scale_mm: float, seed: int, octaves: int = 3,
                  angle_deg: float = 0.0, stretch: float = 1.0) -> F32:
    """Sum of octaves (each half the size, half the weight) at full canvas resolution;
    coarse octaves are computed on a reduced grid and upsampled (they are smooth)."""
    total = np.zeros((canvas.height, canvas.width), dtype=np.float32)
    amp = 1.0
    norm = 0.0
    for o in range(octaves):
        sc = scale_mm / (2 ** o)
        step = max(1, int(sc * canvas.px_per_mm / 6))
        n = value_noise(canvas, sc, seed * 31 + o, angle_deg, stretch, step)
        if step > 1:
            n = cv2.resize(n, (canvas.width, canvas.height), interpolation=cv2.INTER_LINEAR)
            n = n[: canvas.height, : canvas.width]
        total += amp * n
        norm += amp * amp
        amp *= 0.5
    return (total / math.sqrt(norm)).astype(np.float32)


def pixel_noise(shape: tuple[int, int], seed: int, sigma_px: float = 0.0) -> F32:
    """Per-pixel grain (paper fibre, felt fuzz); optionally softened."""
    rng = np.random.default_rng(seed)
    n: F32 = rng.standard_normal(shape).astype(np.float32)
    if sigma_px > 0:
        n = np.asarray(cv2.GaussianBlur(n, (0, 0), sigma_px), dtype=np.float32)
        n = n / max(float(n.std()), 1e-6)
    return n
