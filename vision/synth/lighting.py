"""Light on the table: a lamp's uneven falloff and gradient, soft shadows from the height
map (and from floating casters such as hands), contact shadows, glare spots.

Applied to the canvas in table coordinates (the light lives in the room, not in the
camera); colour temperature, exposure and vignetting are the camera's and are applied
in degrade.py. Light spec (scene["light"], every key optional):

    {"kelvin": 2700..6500, "stops": -1..+1, "awb": 0..1 (how much the camera's white
     balance corrects the cast), "ambient": 0..1 (share of diffuse light),
     "lamp": {"pos_mm": [x, y], "height_mm": h}, "gradient": {"dir_deg": a, "strength": s},
     "shadow": {"azimuth_deg", "elevation_deg", "softness", "strength"},
     "glare": [{"pos_mm": [x, y], "radius_mm": r, "strength": s}], "vignette": 0..0.6}
"""

from __future__ import annotations

import math
import random
from typing import Any, Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.synth.canvas import TableCanvas

F32 = NDArray[Any]   # float32 by convention (the cv2 stubs lose dtypes)


def random_light(rng: random.Random, bounds_mm: Sequence[float]) -> dict[str, Any]:
    """A random room light around a play area (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = (float(v) for v in bounds_mm)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    span = max(x1 - x0, y1 - y0)
    ang = rng.uniform(0, 2 * math.pi)
    dist = rng.uniform(0.0, 1.2) * span
    glare = []
    for _ in range(rng.choice([0, 0, 1, 1, 2])):
        glare.append({"pos_mm": [rng.uniform(x0, x1), rng.uniform(y0, y1)],
                      "radius_mm": rng.uniform(0.03, 0.15) * span, "strength": rng.uniform(0.1, 0.7)})
    return {
        "kelvin": rng.uniform(2700, 6500),
        "stops": rng.uniform(-1.0, 1.0),
        "awb": rng.uniform(0.4, 0.95),
        "ambient": rng.uniform(0.25, 0.8),
        "lamp": {"pos_mm": [cx + dist * math.cos(ang), cy + dist * math.sin(ang)],
                 "height_mm": rng.uniform(500, 2000)},
        "gradient": {"dir_deg": rng.uniform(0, 360), "strength": rng.uniform(0.0, 0.35)},
        "softness": rng.uniform(0.03, 0.15),
        "glare": glare,
        "vignette": rng.uniform(0.0, 0.5),
    }


def shadow_direction(light: dict[str, Any], centre_mm: Sequence[float]) -> tuple[float, float, float, float]:
    """(azimuth_deg the shadow falls toward, elevation_deg of the light, softness, strength)."""
    amb = float(light.get("ambient", 0.5))
    sh = light.get("shadow")
    if sh:
        return (float(sh.get("azimuth_deg", 45.0)), float(sh.get("elevation_deg", 55.0)),
                float(sh.get("softness", light.get("softness", 0.08))),
                float(sh.get("strength", 1.0 - amb * 0.8)))
    lamp = light.get("lamp") or {"pos_mm": [centre_mm[0] - 300, centre_mm[1] - 500], "height_mm": 1200}
    lx, ly = (float(v) for v in lamp["pos_mm"])
    lh = float(lamp.get("height_mm", 1200))
    dx, dy = centre_mm[0] - lx, centre_mm[1] - ly
    horiz = math.hypot(dx, dy)
    az = math.degrees(math.atan2(dy, dx)) if horiz > 1e-6 else 0.0
    elev = math.degrees(math.atan2(lh, horiz))
    return az, min(elev, 88.0), float(light.get("softness", 0.08)), 1.0 - amb * 0.8


def illumination(canvas: TableCanvas, light: dict[str, Any], centre_mm: Sequence[float],
                 span_mm: float, step: int = 8) -> F32:
    """Relative irradiance on the table (1 = average over the play area), at 1/step size."""
    gx, gy = canvas.mm_grid(step)
    amb = float(light.get("ambient", 0.5))
    e = np.full(gx.shape, amb, dtype=np.float32)
    lamp = light.get("lamp")
    cx, cy = float(centre_mm[0]), float(centre_mm[1])
    if lamp:
        lx, ly = (float(v) for v in lamp["pos_mm"])
        lh = float(lamp.get("height_mm", 1200))
        d = np.sqrt((gx - lx) ** 2 + (gy - ly) ** 2 + lh * lh)
        d0 = math.sqrt((cx - lx) ** 2 + (cy - ly) ** 2 + lh * lh)
        # Lambert on a horizontal surface from a point source: cos/d^2 = h/d^3
        e += (1.0 - amb) * ((d0 / d) ** 3).astype(np.float32)
    else:
        e += 1.0 - amb
    g = light.get("gradient")
    if g:
        a = math.radians(float(g.get("dir_deg", 0.0)))
        s = float(g.get("strength", 0.0))
        proj = ((gx - cx) * math.cos(a) + (gy - cy) * math.sin(a)) / max(span_mm / 2, 1.0)
        e *= np.clip(1.0 + s * proj, 0.2, 3.0).astype(np.float32)
    inside = (np.abs(gx - cx) < span_mm / 2) & (np.abs(gy - cy) < span_mm / 2)
    mean = float(e[inside].mean()) if bool(inside.any()) else float(e.mean())
    return (e / max(mean, 1e-6)).astype(np.float32)


def _shift_blur(mask: F32, dx_px: float, dy_px: float, sigma_px: float) -> F32:
    h, w = mask.shape
    m = np.array([[1, 0, dx_px], [0, 1, dy_px]], dtype=np.float64)
    out = cv2.warpAffine(mask, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    if sigma_px > 0.3:
        out = cv2.GaussianBlur(out, (0, 0), sigma_px)
    return np.asarray(out, dtype=np.float32)


Box = tuple[int, int, int, int]


def _solid_box(canvas: TableCanvas, pad_mm: float) -> Box | None:
    """Canvas box (x0, y0, x1, y1) holding every raised pixel of the height map, padded
    by pad_mm: shadows are computed only there (pieces cover a small part of a table)."""
    hm = canvas.height_map
    rows = np.flatnonzero(hm.max(axis=1) > 0.25)
    if len(rows) == 0:
        return None
    cols = np.flatnonzero(hm[rows[0]: rows[-1] + 1].max(axis=0) > 0.25)
    return _pad(canvas, (int(cols[0]), int(rows[0]), int(cols[-1]) + 1, int(rows[-1]) + 1), pad_mm)


def _pad(canvas: TableCanvas, b: Box, pad_mm: float) -> Box:
    pad = int(math.ceil(pad_mm * canvas.px_per_mm))
    return (max(0, b[0] - pad), max(0, b[1] - pad), min(canvas.width, b[2] + pad), min(canvas.height, b[3] + pad))


def _one_shadow(canvas: TableCanvas, occ: F32, box: Box, t: float, sig_mm: float, cot: float,
                ux: float, uy: float, sweep: bool) -> F32:
    """The shadow (0..1, box size) of an occluder mask `occ` (box size) t mm up."""
    ppm = canvas.px_per_mm
    bx0, by0, bx1, by1 = box
    H, W = by1 - by0, bx1 - bx0
    off_mm = t * cot
    st = max(1, int(sig_mm * ppm / 2.0))
    sh, sw = max(1, int(math.ceil(H / st))), max(1, int(math.ceil(W / st)))
    occ_s = cv2.resize(occ, (sw, sh), interpolation=cv2.INTER_AREA) if st > 1 else occ
    if sweep:
        # a column standing on the table shades everything from its foot to its top's
        # shadow: the union of all shifts 0..off, a dilation by that segment
        L = off_mm * ppm / st
        n = int(math.ceil(L))
        if n >= 1:
            k = np.zeros((2 * n + 1, 2 * n + 1), dtype=np.uint8)
            cv2.line(k, (n, n), (int(round(n + ux * L)), int(round(n + uy * L))), (1,), 1)
            occ_s = cv2.dilate(occ_s, k[::-1, ::-1].copy(), anchor=(n, n))
        sig = sig_mm * ppm / st
        s = cv2.GaussianBlur(occ_s, (0, 0), sig) if sig > 0.3 else occ_s
    else:
        s = _shift_blur(occ_s, ux * off_mm * ppm / st, uy * off_mm * ppm / st, sig_mm * ppm / st)
    if st > 1:
        s = cv2.resize(s, (W, H), interpolation=cv2.INTER_LINEAR)
    recv = canvas.height_map[by0:by1, bx0:bx1] < t * 0.85
    return np.asarray(s * recv, dtype=np.float32)


def shadow_maps(canvas: TableCanvas, az_deg: float, elev_deg: float,
                softness: float) -> list[tuple[F32, Box]]:
    """Fraction of direct light blocked (0..1), as (map, canvas box) pieces.

    Solid objects (the height map) cast a shadow swept from their foot to their top, a
    union of swept copies at a few height levels; floating casters (hands, arms, in
    canvas.floating) cast a detached shadow, each computed in its own box. Penumbra
    grows with height."""
    cot = 1.0 / math.tan(math.radians(max(5.0, min(elev_deg, 89.0))))
    ux, uy = math.cos(math.radians(az_deg)), math.sin(math.radians(az_deg))
    out: list[tuple[F32, Box]] = []
    hmax = float(canvas.height_map.max())
    if hmax > 0.25:
        box = _solid_box(canvas, hmax * cot + 3 * (0.25 + softness * hmax * 1.5) + 2)
        if box is not None:
            bx0, by0, bx1, by1 = box
            hm = canvas.height_map[by0:by1, bx0:bx1]
            acc: F32 = np.zeros(hm.shape, dtype=np.float32)
            n = int(min(8, max(2, math.ceil(math.log2(hmax / 0.3)) + 1)))
            for t in np.geomspace(0.3, hmax, n):
                s = _one_shadow(canvas, (hm >= t).astype(np.float32), box, float(t),
                                0.25 + softness * float(t) * 1.5, cot, ux, uy, True)
                np.maximum(acc, s, out=acc)
            out.append((acc, box))
    for cov, height in canvas.floating:
        if cov.empty:
            continue
        h, w = cov.alpha.shape
        sig = 0.5 + softness * height
        box = _pad(canvas, (cov.x0, cov.y0, cov.x0 + w, cov.y0 + h), height * cot + 3 * sig + 2)
        bx0, by0, bx1, by1 = box
        occ = np.zeros((by1 - by0, bx1 - bx0), dtype=np.float32)
        occ[cov.y0 - by0: cov.y0 - by0 + h, cov.x0 - bx0: cov.x0 - bx0 + w] = cov.alpha
        out.append((_one_shadow(canvas, occ, box, height, sig, cot, ux, uy, False), box))
    return out


def contact_shadow(canvas: TableCanvas) -> tuple[F32, tuple[int, int, int, int]] | None:
    """Ambient occlusion around anything standing on the table (the dark seam under a tile)."""
    box = _solid_box(canvas, 4.0)
    if box is None or float(canvas.height_map.max()) <= 0.25:
        return None
    bx0, by0, bx1, by1 = box
    hm = canvas.height_map[by0:by1, bx0:bx1]
    H, W = hm.shape
    ppm = canvas.px_per_mm
    st = max(1, int(round(ppm / 3.0)))
    sh, sw = int(math.ceil(H / st)), int(math.ceil(W / st))
    occ = (hm > 0.25).astype(np.float32)
    small = cv2.resize(occ, (sw, sh), interpolation=cv2.INTER_AREA) if st > 1 else occ
    hs = cv2.resize(hm, (sw, sh), interpolation=cv2.INTER_AREA) if st > 1 else hm
    blur = cv2.GaussianBlur(small, (0, 0), max(0.5, 0.8 * ppm / st))
    ao: F32 = blur * (hs <= 0.25)
    if st > 1:
        ao = cv2.resize(ao, (W, H), interpolation=cv2.INTER_LINEAR)
    return np.asarray(ao, dtype=np.float32), box


def apply_lighting(canvas: TableCanvas, light: dict[str, Any], play_bounds_mm: Sequence[float]) -> None:
    """albedo -> radiance on the canvas, in place: irradiance x (1 - shadow) + glare."""
    x0, y0, x1, y1 = (float(v) for v in play_bounds_mm)
    centre = ((x0 + x1) / 2, (y0 + y1) / 2)
    span = max(x1 - x0, y1 - y0)
    step = max(1, int(canvas.px_per_mm * 4))
    e: F32 = illumination(canvas, light, centre, span, step)
    floor = canvas.floor_alpha
    if floor is not None:
        # the floor is far below the table and lit by the room, not by the lamp's pool
        fa = cv2.resize(floor, (e.shape[1], e.shape[0]), interpolation=cv2.INTER_AREA)
        e = e + fa * (np.float32(float(light.get("floor_light", 0.6))) - e)
    e = np.asarray(cv2.resize(e, (canvas.width, canvas.height), interpolation=cv2.INTER_LINEAR), dtype=np.float32)
    az, elev, soft, strength = shadow_direction(light, centre)
    pieces = [(m, b, strength) for m, b in shadow_maps(canvas, az, elev, soft)]
    ao = contact_shadow(canvas)
    if ao is not None:
        pieces.append((ao[0], ao[1], 0.35))
    for m, (bx0, by0, bx1, by1), k in pieces:
        f = 1.0 - k * m
        # what is held above the table is lit: no shadow on the hand itself
        for cov in canvas.floating_drawn:
            h, w = cov.alpha.shape
            ix0, iy0 = max(bx0, cov.x0), max(by0, cov.y0)
            ix1, iy1 = min(bx1, cov.x0 + w), min(by1, cov.y0 + h)
            if ix1 > ix0 and iy1 > iy0:
                a = cov.alpha[iy0 - cov.y0: iy1 - cov.y0, ix0 - cov.x0: ix1 - cov.x0]
                sub = f[iy0 - by0: iy1 - by0, ix0 - bx0: ix1 - bx0]
                sub += a * (1.0 - sub)
        e[by0:by1, bx0:bx1] *= f
    canvas.image *= e[..., None]
    del e
    for g in light.get("glare") or []:
        # each spot only within 3.5 radii of its centre
        px, py = (float(v) for v in g["pos_mm"])
        r = max(float(g.get("radius_mm", 40.0)), 1.0)
        c = canvas.to_px(np.array([[px, py]]))[0]
        rp = 3.5 * r * canvas.px_per_mm
        x0, y0 = max(0, int(c[0] - rp)), max(0, int(c[1] - rp))
        x1, y1 = min(canvas.width, int(c[0] + rp) + 1), min(canvas.height, int(c[1] + rp) + 1)
        if x1 <= x0 or y1 <= y0:
            continue
        xs = (np.arange(x0, x1, dtype=np.float32) - np.float32(c[0])) / np.float32(canvas.px_per_mm)
        ys = (np.arange(y0, y1, dtype=np.float32) - np.float32(c[1])) / np.float32(canvas.px_per_mm)
        blob = np.exp(-(xs[None, :] ** 2 + ys[:, None] ** 2) / np.float32(2 * r * r)) * np.float32(
            float(g.get("strength", 0.4)))
        canvas.image[y0:y1, x0:x1] += blob[..., None]
