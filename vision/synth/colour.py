"""Colour helpers for the synthetic table.

The canvas works in LINEAR light (so lighting multiplies and blurs add like photons do);
scene dicts give colours as sRGB BGR 0-255 triplets because that is what people pick.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
from numpy.typing import NDArray

F32 = NDArray[Any]   # float32 by convention (the cv2 stubs lose dtypes)
Colour = tuple[float, float, float]


def srgb_to_linear(x: NDArray[Any] | float) -> NDArray[np.float32]:
    """sRGB 0..1 -> linear 0..1 (the exact piecewise curve)."""
    a = np.asarray(x, dtype=np.float32)
    return np.where(a <= 0.04045, a / 12.92, ((a + 0.055) / 1.055) ** 2.4).astype(np.float32)


def _srgb_exact(a: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.where(a <= 0.0031308, a * 12.92, 1.055 * np.power(a, 1.0 / 2.4) - 0.055)


_LUT_N = 1 << 16
_LUT = _srgb_exact(np.linspace(0.0, 1.0, _LUT_N + 1)).astype(np.float32)


def linear_to_srgb(x: NDArray[Any]) -> NDArray[np.float32]:
    """Linear 0..1 -> sRGB 0..1 (clipped), what a camera's tone curve roughly does.
    A 65537-entry table with linear interpolation: exact to 1e-5, 5x faster than pow."""
    a = np.clip(np.asarray(x, dtype=np.float32), 0.0, 1.0) * np.float32(_LUT_N)
    i = np.minimum(a.astype(np.int32), _LUT_N - 1)
    f = a - i
    return np.asarray(_LUT[i] * (1 - f) + _LUT[i + 1] * f, dtype=np.float32)


_U8_LUT = np.clip(np.round(_srgb_exact(np.arange(1 << 16) / 65535.0) * 255.0), 0, 255).astype(np.uint8)


def linear_to_srgb_u8(x: NDArray[Any]) -> NDArray[np.uint8]:
    """Linear 0..1 -> 8-bit sRGB through a 16-bit table (fast for whole frames)."""
    q = np.asarray(x, dtype=np.float32) * np.float32(65535.0)
    q += np.float32(0.5)
    np.clip(q, 0, 65535, out=q)
    return np.asarray(_U8_LUT[q.astype(np.uint16)], dtype=np.uint8)


def lin(bgr255: Sequence[float]) -> Colour:
    """An sRGB BGR 0-255 triplet (as in scene dicts) -> a linear canvas colour."""
    v = srgb_to_linear(np.asarray([float(c) for c in bgr255[:3]], dtype=np.float32) / 255.0)
    return (float(v[0]), float(v[1]), float(v[2]))


def to_srgb255(colour: Sequence[float]) -> list[int]:
    """A linear canvas colour -> sRGB BGR 0-255 ints (for truth and scene dicts)."""
    v = linear_to_srgb(np.asarray(colour, dtype=np.float32)) * 255.0
    return [int(round(float(c))) for c in v[:3]]


def kelvin_bgr(kelvin: float) -> NDArray[np.float32]:
    """Linear BGR of a black body at `kelvin`, green = 1 (Tanner Helland's fit, 1000-40000 K)."""
    t = min(max(kelvin, 1000.0), 40000.0) / 100.0
    if t <= 66:
        r = 255.0
        g = 99.4708025861 * math.log(t) - 161.1195681661
        b = 0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307
    else:
        r = 329.698727446 * (t - 60) ** -0.1332047592
        g = 288.1221695283 * (t - 60) ** -0.0755148492
        b = 255.0
    rgb = np.clip(np.array([b, g, r], dtype=np.float32), 1.0, 255.0) / 255.0
    out = srgb_to_linear(rgb)
    return np.asarray(out / out[1], dtype=np.float32)


def hsv_colour(h_deg: float, s: float, v: float) -> list[int]:
    """HSV (hue in degrees, s and v 0..1) -> sRGB BGR 0-255, for generating palettes."""
    h = (h_deg % 360.0) / 60.0
    c = v * s
    x = c * (1 - abs(h % 2 - 1))
    m = v - c
    r, g, b = [(c, x, 0), (x, c, 0), (0, c, x), (0, x, c), (x, 0, c), (c, 0, x)][int(h) % 6]
    return [int(round((b + m) * 255)), int(round((g + m) * 255)), int(round((r + m) * 255))]


def lab_distance(a_bgr255: Sequence[float], b_bgr255: Sequence[float]) -> float:
    """CIE76 distance between two sRGB BGR colours (how different they look)."""
    import cv2

    px = np.array([[a_bgr255[:3], b_bgr255[:3]]], dtype=np.float32) / 255.0
    lab = cv2.cvtColor(px, cv2.COLOR_BGR2LAB)[0]
    return float(np.linalg.norm(lab[0] - lab[1]))
