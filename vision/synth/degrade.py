"""What the camera does to the light: exposure, colour cast with imperfect white balance,
vignetting, defocus and motion blur, sensor noise, the tone curve, sharpening, JPEG.

Spec (scene["degrade"], every key optional):
    {"noise": 0..12 (noise std in 8-bit levels at mid grey), "blur": {"defocus_px": s,
     "motion_px": L, "motion_deg": a}, "sharpen": 0..1, "jpeg_quality": 30..100 or null,
     "banding": {"amplitude": 0..0.1, "period_px", "phase"} (LED flicker x rolling shutter)}
"""

from __future__ import annotations

import math
import random
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.synth.colour import kelvin_bgr, linear_to_srgb_u8

F32 = NDArray[Any]   # float32 by convention (the cv2 stubs lose dtypes)


def random_degrade(rng: random.Random) -> dict[str, Any]:
    """Phone-to-Pi-camera range of blur, noise and compression."""
    blur: dict[str, float] = {"defocus_px": rng.choice([0.0, rng.uniform(0.3, 1.2), rng.uniform(0.3, 2.2)])}
    if rng.random() < 0.25:
        blur["motion_px"] = rng.uniform(1.0, 5.0)
        blur["motion_deg"] = rng.uniform(0, 180)
    out: dict[str, Any] = {"noise": rng.uniform(0.5, 7.0), "blur": blur, "sharpen": rng.uniform(0.0, 0.8),
                           "jpeg_quality": rng.choice([None, rng.randint(60, 95), rng.randint(80, 97)])}
    if rng.random() < 0.15:
        # LED lamps flickering at mains frequency, caught by the rolling shutter
        out["banding"] = {"amplitude": rng.uniform(0.02, 0.07), "period_px": rng.uniform(40, 300),
                          "phase": rng.uniform(0, 2 * math.pi)}
    return out


def colour_gain(light: dict[str, Any]) -> F32:
    """Per-channel gain: the light's colour, partly undone by the camera's white balance,
    times the exposure (2**stops)."""
    k = float(light.get("kelvin", 5000.0))
    awb = float(light.get("awb", 0.7))
    cast = kelvin_bgr(k) / kelvin_bgr(5500.0)
    cast = cast ** (1.0 - max(0.0, min(1.0, awb)))
    cast = cast / float(cast[1])
    stops = float(light.get("stops", 0.0))
    return np.asarray(cast * (2.0 ** stops), dtype=np.float32)


def vignette(shape: tuple[int, int], strength: float) -> F32:
    """cos^4-like fall-off toward the frame corners (1 at the centre)."""
    h, w = shape
    ys = (np.arange(h, dtype=np.float32) - (h - 1) / 2) / (max(h, w) / 2)
    xs = (np.arange(w, dtype=np.float32) - (w - 1) / 2) / (max(h, w) / 2)
    r2 = xs[None, :] ** 2 + ys[:, None] ** 2
    return np.asarray(1.0 / (1.0 + strength * r2) ** 2, dtype=np.float32)


def motion_kernel(length_px: float, angle_deg: float) -> F32:
    n = int(math.ceil(length_px)) | 1
    k = np.zeros((n, n), dtype=np.float32)
    c = (n - 1) / 2
    a = math.radians(angle_deg)
    dx, dy = math.cos(a) * length_px / 2, math.sin(a) * length_px / 2
    cv2.line(k, (int(round((c - dx) * 16)), int(round((c - dy) * 16))),
             (int(round((c + dx) * 16)), int(round((c + dy) * 16))), (1.0,), 1, cv2.LINE_AA, 4)
    s = float(k.sum())
    return k / s if s > 0 else k


def finish(img: F32, light: dict[str, Any], spec: dict[str, Any], seed: int) -> NDArray[np.uint8]:
    """Linear camera-space radiance -> the uint8 BGR frame the camera would deliver."""
    rng = np.random.default_rng(seed)
    gain = colour_gain(light)
    v = float(light.get("vignette", 0.0))
    if v > 0:
        # the fall-off is smooth: compute it on a 1/8 grid and fold the colour gain in
        h, w = img.shape[:2]
        small = vignette((max(2, h // 8), max(2, w // 8)), v)
        vig = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
        out: NDArray[Any] = np.asarray(cv2.merge([vig * float(gain[0]), vig * float(gain[1]),
                                                  vig * float(gain[2])]), dtype=np.float32)
        out *= img
    else:
        out = np.asarray(img * gain[None, None, :], dtype=np.float32)
    band = spec.get("banding")
    if band:
        rows = np.arange(out.shape[0], dtype=np.float32)
        f = 1.0 + float(band.get("amplitude", 0.04)) * np.sin(
            rows * np.float32(2 * math.pi / max(float(band.get("period_px", 120.0)), 2.0))
            + np.float32(float(band.get("phase", 0.0))))
        out *= f.astype(np.float32)[:, None, None]
    blur = spec.get("blur") or {}
    d = float(blur.get("defocus_px", 0.0))
    # every real lens + demosaic has a point spread of roughly half a pixel
    sigma = math.sqrt(0.45 ** 2 + d * d)
    out = np.asarray(cv2.GaussianBlur(out, (0, 0), sigma), dtype=np.float32)
    m = float(blur.get("motion_px", 0.0))
    if m >= 1.0:
        out = np.asarray(cv2.filter2D(out, -1, motion_kernel(m, float(blur.get("motion_deg", 0.0)))),
                         dtype=np.float32)
    noise = float(spec.get("noise", 0.0))
    if noise > 0:
        # Poisson-Gaussian sensor noise: variance grows with the signal (shot noise)
        sd = noise / 255.0
        # the noise level follows the pixel's brightness (one channel is enough for that)
        lum = cv2.cvtColor(out, cv2.COLOR_BGR2GRAY)
        std = cv2.sqrt(np.maximum(lum, 0.0) * np.float32(sd * sd / 0.2) + np.float32((0.35 * sd) ** 2))
        n = rng.standard_normal(out.shape[:2], dtype=np.float32)
        n *= std
        if out.size < 4_000_000:
            # luminance-heavy noise with some chroma, as after demosaicking
            chroma = rng.standard_normal(out.shape, dtype=np.float32)
            chroma *= (0.45 * std)[..., None]
            out += chroma
            out += (0.75 * n)[..., None]
        else:
            out += n[..., None]
    u8: NDArray[Any] = linear_to_srgb_u8(out)
    sh = float(spec.get("sharpen", 0.0))
    if sh > 0:
        soft = cv2.GaussianBlur(u8, (0, 0), 1.2)
        u8 = cv2.addWeighted(u8, 1.0 + sh, soft, -sh, 0.0)
    q = spec.get("jpeg_quality")
    if q is not None:
        ok, buf = cv2.imencode(".jpg", u8, [cv2.IMWRITE_JPEG_QUALITY, int(q)])
        if ok:
            dec = cv2.imdecode(buf, cv2.IMREAD_COLOR)
            if dec is not None:
                u8 = dec
    return np.asarray(u8, dtype=np.uint8)
