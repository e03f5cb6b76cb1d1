"""Lens models for the synthetic camera, from a plain 66-degree Camera Module 3 to the
strong barrel of the 120-degree-diagonal Camera Module 3 Wide.

A lens is {"hfov_deg": h, "dist": [k1, k2, p1, p2, k3]} (OpenCV's model). make_lens
derives the coefficients from a distortion strength: 0 is a rectilinear pinhole, 1 an
equidistant fisheye (r = f * theta), fitted over the frame's whole diagonal so the
model stays monotonic (one ray per pixel) everywhere in the image.
"""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.synth.camera import radial_limit


def _ratio(ru: NDArray[Any], s: float) -> NDArray[Any]:
    """Distorted / undistorted radius of the rectilinear-fisheye blend of strength s."""
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(ru > 1e-9, np.arctan(ru) / np.maximum(ru, 1e-9), 1.0)
    return (1 - s) + s * r


def make_lens(hfov_deg: float, strength: float, resolution: tuple[int, int],
              tangential: tuple[float, float] = (0.0, 0.0)) -> dict[str, Any]:
    """A lens dict whose frame spans hfov_deg horizontally with the given barrel strength
    (lowered a little where the polynomial cannot stay one-to-one out to the corner)."""
    s = max(0.0, min(1.0, strength))
    for _ in range(30):
        lens = _fit_lens(hfov_deg, s, resolution, tangential)
        if _corner_ok(lens, resolution):
            return lens
        s *= 0.9
    return {"hfov_deg": float(hfov_deg), "dist": [0.0, 0.0, float(tangential[0]), float(tangential[1]), 0.0]}


def _corner_ok(lens: dict[str, Any], resolution: tuple[int, int]) -> bool:
    """Whether the frame's corner lies well inside the model's monotonic range."""
    from vision.synth.camera import CameraModel, distort_normalized

    d = [float(v) for v in lens["dist"]]
    cam = CameraModel(resolution, float(lens["hfov_deg"]), tuple(d))
    k = cam.K
    corner_d = math.hypot(resolution[0] / 2, resolution[1] / 2) / k[0, 0]
    lim = radial_limit(d)
    rd, _ = distort_normalized(np.array([lim * 0.98]), np.array([0.0]), (d[0], d[1], 0.0, 0.0, d[4]))
    return bool(float(rd[0]) > corner_d * 1.02)


def _fit_lens(hfov_deg: float, s: float, resolution: tuple[int, int],
              tangential: tuple[float, float]) -> dict[str, Any]:
    w, h = resolution
    th = math.radians(hfov_deg) / 2
    rd_edge = float(_ratio(np.array([math.tan(th)]), s)[0]) * math.tan(th)
    rd_diag = rd_edge * math.hypot(w, h) / w
    # undistorted radius of the frame corner (invert the blend numerically)
    grid = np.linspace(0, 12.0, 20001)
    rd = grid * _ratio(grid, s)
    ru_max = float(np.interp(rd_diag, rd, grid)) * 1.04
    if s <= 1e-6:
        return {"hfov_deg": float(hfov_deg), "dist": [0.0, 0.0, float(tangential[0]), float(tangential[1]), 0.0]}
    ru = np.linspace(0, ru_max, 400)
    y = _ratio(ru, s) - 1.0
    a = np.stack([ru ** 2, ru ** 4, ru ** 6], axis=1)
    wts = 1.0 + ru / ru_max          # the frame's edge matters as much as its centre
    k, *_ = np.linalg.lstsq(a * wts[:, None], y * wts, rcond=None)
    dist = [float(k[0]), float(k[1]), float(tangential[0]), float(tangential[1]), float(k[2])]
    if radial_limit(dist, r_cap=ru_max * 1.5) < ru_max:
        # fall back to two coefficients, which stay monotonic for these blends
        k2, *_ = np.linalg.lstsq(a[:, :2] * wts[:, None], y * wts, rcond=None)
        dist = [float(k2[0]), float(k2[1]), float(tangential[0]), float(tangential[1]), 0.0]
    return {"hfov_deg": float(hfov_deg), "dist": dist}


LENSES = {
    "standard": (66.0, 0.0, 0.12),     # Camera Module 3: 66 deg H, slight barrel
    "wide": (102.0, 0.45, 0.8),        # Camera Module 3 Wide: 102 deg H / 120 deg diagonal
}


def random_lens(rng: random.Random, resolution: tuple[int, int], kind: str = "any") -> dict[str, Any]:
    """A random lens: 'standard' (60-75 deg, little distortion), 'wide' (95-120 deg,
    strong barrel) or 'any' (either, or in between)."""
    if kind == "any":
        kind = rng.choice(["standard", "standard", "wide", "mid"])
    if kind == "standard":
        hfov, s = rng.uniform(60, 75), rng.uniform(0.0, 0.15)
    elif kind == "wide":
        hfov, s = rng.uniform(95, 120), rng.uniform(0.45, 0.85)
    elif kind == "mid":
        hfov, s = rng.uniform(75, 95), rng.uniform(0.15, 0.5)
    else:
        raise ValueError(f"unknown lens kind '{kind}'; use standard, wide, mid or any")
    tang = (rng.uniform(-8e-4, 8e-4), rng.uniform(-8e-4, 8e-4))
    return make_lens(hfov, s, resolution, tang)
