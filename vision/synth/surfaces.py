"""Table surfaces: wood with grain and planks, felt, plain mats and cutting mats, in light
and dark variants, and the floor beyond the table edge.

A surface spec (scene["surface"]) is a small dict; every texture is seeded by its own
"seed", so a game rendered frame by frame keeps the same table while the scene seed
(noise, hands) changes.

    {"kind": "wood"|"felt"|"mat"|"cutting_mat", "tone": "light"|"dark",
     "colour": [b, g, r] (sRGB 0-255, optional: picked from kind+tone),
     "seed": int, "angle_deg": grain/plank direction, "plank_mm": plank width,
     "table_mm": [x0, y0, x1, y1] the table top (outside it: the floor),
     "floor": [b, g, r]}
"""

from __future__ import annotations

import math
import random
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.synth.canvas import TableCanvas, rotated_rect
from vision.synth.colour import lin
from vision.synth.noise import fractal_noise, lattice_values, pixel_noise, value_noise

F32 = NDArray[Any]   # float32 by convention (the cv2 stubs lose dtypes)

TEXTURE_PPM = 1.5

KINDS = ("wood", "felt", "mat", "cutting_mat")

PALETTE: dict[tuple[str, str], list[list[int]]] = {
    ("wood", "light"): [[140, 180, 215], [120, 165, 205], [150, 190, 220], [105, 150, 195]],
    ("wood", "dark"): [[45, 70, 105], [35, 55, 85], [50, 80, 120], [30, 45, 70]],
    ("felt", "light"): [[90, 150, 80], [150, 120, 70], [170, 170, 165], [90, 90, 170]],
    ("felt", "dark"): [[40, 85, 35], [90, 50, 25], [45, 45, 45], [40, 30, 90]],
    ("mat", "light"): [[225, 228, 230], [200, 215, 225], [190, 200, 200], [210, 205, 195]],
    ("mat", "dark"): [[40, 40, 40], [30, 30, 28], [70, 60, 50], [55, 60, 65]],
    ("cutting_mat", "light"): [[120, 160, 80], [200, 200, 200], [170, 130, 90]],
    ("cutting_mat", "dark"): [[60, 90, 30], [40, 40, 40], [90, 60, 30]],
}


def random_surface(rng: random.Random, bounds_mm: tuple[float, float, float, float],
                   kind: str | None = None, tone: str | None = None) -> dict[str, Any]:
    """A random surface whose table top extends 30-350 mm beyond `bounds_mm` on each side."""
    k = kind or rng.choice(KINDS)
    t = tone or rng.choice(("light", "dark"))
    x0, y0, x1, y1 = bounds_mm
    m = [rng.uniform(30, 350) for _ in range(4)]
    return {"kind": k, "tone": t, "colour": list(rng.choice(PALETTE[(k, t)])),
            "seed": rng.randrange(1 << 30), "angle_deg": rng.choice([0.0, 90.0, rng.uniform(0, 180)]),
            "plank_mm": rng.uniform(70, 200), "contrast": rng.uniform(0.6, 1.4),
            "table_mm": [x0 - m[0], y0 - m[1], x1 + m[2], y1 + m[3]],
            "floor": [rng.randint(15, 70), rng.randint(20, 75), rng.randint(25, 85)]}


def _wood(canvas: TableCanvas, spec: dict[str, Any], base: F32, seed: int) -> F32:
    """Planks along angle_deg, growth rings warped by stretched noise, per-plank tone,
    dark seams between planks. Kept to few full-size array passes: it dominates a
    frame's render time."""
    angle = float(spec.get("angle_deg", 0.0))
    plank = float(spec.get("plank_mm", 120.0))
    contrast = float(spec.get("contrast", 1.0))
    a = math.radians(angle)
    xs = ((np.arange(canvas.width, dtype=np.float32) + 0.5) / canvas.px_per_mm + canvas.origin_mm[0])
    ys = ((np.arange(canvas.height, dtype=np.float32) + 0.5) / canvas.px_per_mm + canvas.origin_mm[1])
    v = np.float32(-math.sin(a)) * xs[None, :] + np.float32(math.cos(a)) * ys[:, None]   # across the grain
    wst = max(1, int(40.0 * canvas.px_per_mm / 8))
    warp = cv2.resize(value_noise(canvas, 40.0, seed + 1, angle, stretch=8.0, step=wst),
                      (canvas.width, canvas.height), interpolation=cv2.INTER_LINEAR)
    wst2 = max(1, int(200.0 * canvas.px_per_mm / 8))
    warp2 = cv2.resize(value_noise(canvas, 200.0, seed + 6, angle, stretch=4.0, step=wst2),
                       (canvas.width, canvas.height), interpolation=cv2.INTER_LINEAR)
    ring_period = 3.0 + 2.0 * (seed % 5) / 4.0
    # two scales of warp: rings wander (cathedral arcs) instead of running as stripes
    f = v + np.float32(14.0) * warp + np.float32(45.0) * warp2
    f *= np.float32(2 * math.pi / ring_period)
    rings = np.sin(f, out=f)
    fine = value_noise(canvas, 0.6, seed + 2, angle, stretch=30.0, step=1)
    blotch = fractal_noise(canvas, 60.0, seed + 3, octaves=2, angle_deg=angle, stretch=3.0)
    pv = v * np.float32(1.0 / plank)
    pfl = np.floor(pv)
    lo, hi = int(pfl.min()), int(pfl.max())
    ids = np.arange(lo, hi + 1, dtype=np.int64)
    tone_t = 1.0 + lattice_values(seed + 5, ids, np.zeros_like(ids)) * np.float32(0.07)
    tone = tone_t[(pfl - lo).astype(np.intp)]
    pv -= pfl                                       # position across the plank, 0..1
    seam = np.minimum(pv, 1 - pv) * np.float32(plank / max(0.45, 0.7 / canvas.px_per_mm))
    seam_dark = np.minimum(seam, np.float32(1.0)) * np.float32(0.55) + np.float32(0.45)
    out = rings * np.float32(0.09 * contrast)
    out += fine * np.float32(0.05 * contrast)
    out += blotch * np.float32(0.07 * contrast)
    out += tone
    out *= seam_dark
    return np.asarray(cv2.merge([out * float(base[0]), out * float(base[1]), out * float(base[2])]),
                      dtype=np.float32)


def _felt(canvas: TableCanvas, base: F32, seed: int, contrast: float) -> F32:
    mottle = fractal_noise(canvas, 30.0, seed + 1, octaves=3)
    grain = pixel_noise((canvas.height, canvas.width), seed + 2, sigma_px=max(0.6, 0.25 * canvas.px_per_mm))
    f = 1.0 + contrast * (0.05 * mottle + 0.05 * grain)
    return np.asarray(base[None, None, :] * f[..., None], dtype=np.float32)


def _mat(canvas: TableCanvas, base: F32, seed: int, contrast: float) -> F32:
    mottle = fractal_noise(canvas, 80.0, seed + 1, octaves=2)
    grain = pixel_noise((canvas.height, canvas.width), seed + 2, sigma_px=0.7)
    f = 1.0 + contrast * (0.025 * mottle + 0.012 * grain)
    return np.asarray(base[None, None, :] * f[..., None], dtype=np.float32)


def _cutting_grid(canvas: TableCanvas, img: F32, spec: dict[str, Any], base: F32) -> None:
    """Printed 10 mm grid (thicker every 50 mm) of a self-healing cutting mat, drawn
    with anti-aliased cv2 lines straight at canvas resolution (thin, table-long lines)."""
    x0, y0, x1, y1 = spec["table_mm"]
    ang = float(spec.get("angle_deg", 0.0)) % 10.0 - 5.0 if "grid_angle_deg" not in spec \
        else float(spec["grid_angle_deg"])
    line = np.asarray(lin([min(255, c + 90) for c in spec.get("colour", [120, 160, 80])]), dtype=np.float32)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    half = max(x1 - x0, y1 - y0)
    a = math.radians(ang)
    d = np.array([math.cos(a), math.sin(a)])
    n = np.array([-math.sin(a), math.cos(a)])
    mask = np.zeros((canvas.height, canvas.width), dtype=np.uint8)
    ppm = canvas.px_per_mm
    for k in range(-int(half / 10) - 1, int(half / 10) + 2):
        for axis, other in ((d, n), (n, d)):
            c = np.array([cx, cy]) + axis * k * 10.0
            seg = canvas.to_px(np.array([c - other * half, c + other * half]))
            q = np.round(seg * 16).astype(np.int32)
            th = max(1, int(round((0.8 if k % 5 == 0 else 0.35) * ppm)))
            cv2.line(mask, (int(q[0, 0]), int(q[0, 1])), (int(q[1, 0]), int(q[1, 1])), (255,), th, cv2.LINE_AA, 4)
    idx = np.flatnonzero(mask)           # the lines are a few % of the table: work there only
    if len(idx) == 0:
        return
    flat = img.reshape(-1, 3)
    al = (mask.reshape(-1)[idx].astype(np.float32) * np.float32(0.8 / 255.0))[:, None]
    flat[idx] -= al * (flat[idx] - line)


def draw_surface(canvas: TableCanvas, spec: dict[str, Any]) -> None:
    """Fill the canvas with the floor, then the textured table top.

    The whole surface is computed at <= TEXTURE_PPM and upsampled once into the canvas:
    wood grain, felt and mats have no finer detail that survives the camera, and this
    is otherwise most of a frame's render time."""
    seed = int(spec.get("seed", 0))
    kind = str(spec.get("kind", "mat"))
    tone = str(spec.get("tone", "light"))
    if kind not in KINDS:
        raise ValueError(f"unknown surface kind '{kind}'; use one of: {', '.join(KINDS)}")
    colour = spec.get("colour") or PALETTE[(kind, tone if tone in ("light", "dark") else "light")][0]
    base = np.asarray(lin(colour), dtype=np.float32)
    contrast = float(spec.get("contrast", 1.0))
    floor = np.asarray(lin(spec.get("floor", [40, 45, 50])), dtype=np.float32)
    tex = canvas
    if canvas.px_per_mm > TEXTURE_PPM:
        tex = TableCanvas(canvas.origin_mm, canvas.size_mm, TEXTURE_PPM, background=None)
    tex.image[:] = floor[None, None, :]
    if kind == "wood":
        top = _wood(tex, spec, base, seed)
    elif kind == "felt":
        top = _felt(tex, base, seed, contrast)
    else:
        top = _mat(tex, base, seed, contrast)
    if kind == "cutting_mat":
        spec = dict(spec)
        spec.setdefault("table_mm", [canvas.origin_mm[0], canvas.origin_mm[1],
                                     canvas.origin_mm[0] + canvas.size_mm[0],
                                     canvas.origin_mm[1] + canvas.size_mm[1]])
    t = spec.get("table_mm")
    if t is None:
        tex.image[:] = top
    else:
        x0, y0, x1, y1 = (float(v) for v in t)
        rect = rotated_rect(((x0 + x1) / 2, (y0 + y1) / 2), (x1 - x0, y1 - y0), 0.0, corner_radius_mm=8.0)
        cov = tex.coverage([rect])
        table_alpha: F32 = np.zeros((tex.height, tex.width), dtype=np.float32)
        if not cov.empty:
            table_alpha[cov.slices()] = cov.alpha
            sy, sx = cov.slices()
            a = cov.alpha[..., None]
            tex.image[sy, sx] = tex.image[sy, sx] * (1 - a) + top[sy, sx] * a
            # a thin dark band at the table's edge (its rounded lip in shade), side by
            # side so each coverage stays a thin strip
            for k in range(4):
                seg = rect[k * 7: k * 7 + 8] if k < 3 else np.vstack([rect[21:], rect[:1]])
                tex.darken(tex.coverage([seg], stroke_mm=3.0, closed=False), 0.55)
    del top
    if tex is not canvas:
        cv2.resize(tex.image, (canvas.width, canvas.height), dst=canvas.image,
                   interpolation=cv2.INTER_LINEAR)
    if t is not None:
        # kept at texture resolution: it only steers the (smooth) illumination
        canvas.floor_alpha = np.asarray(1.0 - table_alpha, dtype=np.float32)
    if kind == "cutting_mat":
        _cutting_grid(canvas, canvas.image, spec, base)
