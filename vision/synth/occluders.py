"""Things that get in the way: hands and arms reaching over the table (skin tones,
sleeves) and a cup put down on it, with their shadows. The device loop must learn to
ignore them, so they are drawn to look like what a camera sees, not like a mask.

    {"kind": "hand", "wrist_mm": [x, y], "reach_deg": a (the way the fingers point),
     "height_mm": 40..200 (held above the table), "skin": [b,g,r], "sleeve": [b,g,r]|null,
     "scale": 0.85..1.15, "spread": 0..1 (fingers apart), "arm_mm": forearm length shown}
    {"kind": "arm", ...}  the same, fist closed (a forearm and a closed hand)
    {"kind": "cup", "centre_mm": [x, y], "radius_mm": 40, "height_mm": 95,
     "colour": [b,g,r], "fill": "coffee"|"tea"|"empty", "handle_deg": a}

No parallax: a hand is drawn where it hangs over the table plane; its shadow falls
height_mm x cot(light elevation) away, softened with height.
"""

from __future__ import annotations

import math
import random
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.profile import TableProfile
from vision.synth.canvas import Coverage, TableCanvas, circle_pts, transform
from vision.synth.colour import lin
from vision.synth.pieces import DrawContext, register_piece

SKIN = [[182, 200, 226], [158, 184, 218], [128, 163, 205], [104, 138, 184], [80, 108, 150],
        [60, 80, 116], [44, 58, 86]]
SLEEVES = [[40, 40, 40], [120, 60, 30], [50, 50, 140], [200, 200, 200], [60, 110, 60], [30, 30, 90],
           [140, 140, 150], [30, 150, 200]]


def _capsule(p0: NDArray[Any], p1: NDArray[Any], r: float, n: int = 12) -> NDArray[Any]:
    """A stadium (finger, forearm) from p0 to p1 with radius r, as a polygon."""
    d = p1 - p0
    a = math.atan2(float(d[1]), float(d[0]))
    pts = []
    for k in range(n + 1):
        t = a - math.pi / 2 + math.pi * k / n
        pts.append(p1 + r * np.array([math.cos(t), math.sin(t)]))
    for k in range(n + 1):
        t = a + math.pi / 2 + math.pi * k / n
        pts.append(p0 + r * np.array([math.cos(t), math.sin(t)]))
    return np.array(pts)


def _hand_parts(piece: dict[str, Any], closed: bool) -> tuple[list[NDArray[Any]], list[NDArray[Any]], NDArray[Any]]:
    """(hand polygons, sleeve polygons, finger-tip points) in table mm."""
    s = float(piece.get("scale", 1.0))
    spread = float(piece.get("spread", 0.4))
    wrist = np.asarray(piece["wrist_mm"], dtype=np.float64)
    reach = float(piece.get("reach_deg", 0.0))
    arm_len = float(piece.get("arm_mm", 500.0))
    loc: list[NDArray[Any]] = []
    # palm: a rounded trapezoid from the wrist (x = 0) to the knuckles (x = 85)
    palm = np.array([[0, -30], [20, -38], [80, -42], [92, -30], [95, 0], [92, 30], [80, 40],
                     [20, 36], [0, 28], [-8, 0]], dtype=np.float64) * s
    loc.append(palm)
    tips = []
    if closed:
        loc.append(_capsule(np.array([70.0, -28]) * s, np.array([70.0, 28]) * s, 18 * s))
        tips.append(np.array([90.0, 0.0]) * s)
    else:
        lengths = [70, 80, 76, 60]
        widths = [8.5, 9.0, 8.5, 7.5]
        ys = [-28, -10, 9, 27]
        for i in range(4):
            ang = math.radians((i - 1.5) * 7.0 * spread * 2)
            base = np.array([86.0, ys[i]]) * s
            tip = base + np.array([math.cos(ang), math.sin(ang)]) * lengths[i] * s
            loc.append(_capsule(base, tip, widths[i] * s))
            tips.append(tip)
    # thumb from the palm's side, out at 40-70 degrees
    th_ang = math.radians(-(40 + 30 * spread))
    tb = np.array([30.0, -34]) * s
    tt = tb + np.array([math.cos(th_ang), math.sin(th_ang)]) * 58 * s
    loc.append(_capsule(tb, tt, 10 * s))
    tips.append(tt)
    # forearm, back from the wrist, swelling toward the elbow (then the upper arm)
    xs = np.array([10.0, -60.0, -180.0, -300.0, -420.0, -arm_len])
    rs = np.array([27.0, 31.0, 38.0, 43.0, 45.0, 50.0]) * s
    loc.append(np.vstack([np.stack([xs, -rs], axis=1), np.stack([xs[::-1], rs[::-1]], axis=1)]))
    sleeve: list[NDArray[Any]] = []
    if piece.get("sleeve") is not None:
        cuff = float(piece.get("cuff_mm", 60.0))
        rr = np.interp(-cuff, xs[::-1], rs[::-1]) + 9 * s
        sleeve.append(np.array([[-cuff, -rr], [-arm_len - 40, -rr - 18 * s], [-arm_len - 40, rr + 18 * s],
                                [-cuff, rr], [-cuff + 4 * s, 0.0]]))
    to_t = [transform(p, wrist, reach) for p in loc]
    sl_t = [transform(p, wrist, reach) for p in sleeve]
    tips_t = transform(np.array(tips), wrist, reach)
    return to_t, sl_t, tips_t


def _shade(canvas: TableCanvas, cov: Coverage, colour: tuple[float, float, float], height: float,
           rim: float, seed: int) -> None:
    """A rounded look: darker toward the silhouette's edge, a faint blotchy texture."""
    if cov.empty:
        return
    h, w = cov.alpha.shape
    # the rounding is smooth: compute it on a grid ~1 px/mm and upsample
    st = max(1, int(canvas.px_per_mm))
    small = cv2.resize(cov.alpha, (max(2, w // st), max(2, h // st)), interpolation=cv2.INTER_AREA)
    inner = cv2.GaussianBlur(small, (0, 0), max(0.5, 8.0 * canvas.px_per_mm / 3.0 / st))
    rng = np.random.default_rng(seed)
    blot = cv2.resize(rng.standard_normal((max(2, h // 12), max(2, w // 12))).astype(np.float32),
                      (small.shape[1], small.shape[0]), interpolation=cv2.INTER_CUBIC)
    f_small = ((1.0 - rim) + rim * np.clip(inner * 1.6, 0, 1) + 0.04 * blot).astype(np.float32)
    nz = np.flatnonzero(cov.alpha) if cov.alpha.size > 200_000 else None
    if nz is not None and len(nz) < cov.alpha.size // 2:
        # an arm's box is mostly empty: shade only its pixels
        ys, xs = np.unravel_index(nz, cov.alpha.shape)
        n = len(nz)
        cols = 1024                          # remap wants both map sides < 32767
        rows = (n + cols - 1) // cols
        mx = np.zeros(rows * cols, dtype=np.float32)
        my = np.zeros(rows * cols, dtype=np.float32)
        mx[:n] = (xs + 0.5) * (small.shape[1] / w) - 0.5
        my[:n] = (ys + 0.5) * (small.shape[0] / h) - 0.5
        fv = cv2.remap(f_small, mx.reshape(rows, cols), my.reshape(rows, cols), cv2.INTER_LINEAR,
                       borderMode=cv2.BORDER_REPLICATE).reshape(-1)[:n]
        sy, sx = cov.slices()
        roi = canvas.image[sy, sx]
        a1 = cov.alpha[ys, xs][:, None]
        px = roi[ys, xs]
        roi[ys, xs] = px + a1 * (np.asarray(colour, dtype=np.float32)[None, :] * fv[:, None] - px)
    else:
        f = cv2.resize(f_small, (w, h), interpolation=cv2.INTER_LINEAR)
        col = np.asarray(colour, dtype=np.float32)[None, None, :] * f[..., None]
        canvas.blend(cov, col.astype(np.float32), None)
    canvas.floating_drawn.append(cov)


def draw_hand(canvas: TableCanvas, piece: dict[str, Any], ctx: DrawContext, closed: bool = False) -> dict[str, Any]:
    height = float(piece.get("height_mm", 80.0))
    skin = lin(piece.get("skin") or SKIN[2])
    parts, sleeve, tips = _hand_parts(piece, closed)
    # the shadow comes from where the hand really is; the camera sees it lifted
    canvas.add_floating(canvas.coverage(parts + sleeve), height)
    parts = [canvas.lift(p, height) for p in parts]
    sleeve = [canvas.lift(p, height + 15.0) for p in sleeve]
    tips = canvas.lift(tips, height)
    cov = canvas.coverage(parts)
    _shade(canvas, cov, skin, height, 0.35, ctx.rng.randrange(1 << 30))
    # nails: small lighter ovals at the finger tips
    if not closed:
        for tip in tips[:4]:
            d = tip - np.asarray(piece["wrist_mm"], dtype=np.float64)
            a = math.degrees(math.atan2(float(d[1]), float(d[0])))
            c = tip - d / max(float(np.linalg.norm(d)), 1e-6) * 6.0 * float(piece.get("scale", 1.0))
            nail = circle_pts(c, 4.5 * float(piece.get("scale", 1.0)), 20, ry_mm=3.5, angle_deg=a)
            canvas.fill_polygon(nail, tuple(min(1.0, v * 1.25 + 0.03) for v in skin), None, opacity=0.6)  # type: ignore[arg-type]
    if sleeve:
        scov = canvas.coverage(sleeve)
        _shade(canvas, scov, lin(piece["sleeve"]), height + 15.0, 0.45, ctx.rng.randrange(1 << 30))
    poly = [p.tolist() for p in parts]
    return {"kind": piece.get("kind", "hand"), "wrist_mm": list(piece["wrist_mm"]), "height_mm": height,
            "polygons_mm": poly, "tips_mm": tips.tolist()}


def draw_arm(canvas: TableCanvas, piece: dict[str, Any], ctx: DrawContext) -> dict[str, Any]:
    return draw_hand(canvas, piece, ctx, closed=True)


def draw_cup(canvas: TableCanvas, piece: dict[str, Any], ctx: DrawContext) -> dict[str, Any]:
    """A mug seen from above: its wall ring, the drink inside, the handle; solid, so its
    shadow is swept from its foot."""
    c = np.asarray(piece["centre_mm"], dtype=np.float64)
    r = float(piece.get("radius_mm", 40.0))
    h = float(piece.get("height_mm", 95.0))
    col = lin(piece.get("colour") or [235, 235, 235])
    hd = float(piece.get("handle_deg", 0.0))
    hc = c + np.array([math.cos(math.radians(hd)), math.sin(math.radians(hd))]) * (r + 9)
    canvas.circle(canvas.lift(hc[None], h * 0.6)[0], 14.0, tuple(v * 0.85 for v in col), height_mm=h * 0.7,  # type: ignore[arg-type]
                  width_mm=6.0)
    # the wall the camera sees, then the rim at the cup's height
    canvas.prism(circle_pts(c, r, 96), 0.0, h, tuple(v * 0.75 for v in col))  # type: ignore[arg-type]
    c = canvas.lift(c[None], h)[0]
    r = r * float(np.linalg.norm(canvas.lift(np.array([[0.0, 0.0], [1.0, 0.0]]), h)[1]
                                 - canvas.lift(np.array([[0.0, 0.0]]), h)[0]))
    canvas.circle(c, r, col, height_mm=h)
    fill = str(piece.get("fill", "coffee"))
    inside = {"coffee": [20, 35, 60], "tea": [40, 95, 150], "empty": None}.get(fill, [20, 35, 60])
    wall = 4.0
    if inside is None:
        canvas.circle(c, r - wall, tuple(v * 0.7 for v in col), height_mm=None)  # type: ignore[arg-type]
    else:
        canvas.circle(c, r - wall, lin(inside), height_mm=None)
        # the light's reflection on the drink
        canvas.circle(c + np.array([-0.3, -0.3]) * r, r * 0.12, (0.9, 0.9, 0.9), height_mm=None, opacity=0.5)
    canvas.circle(c, r - wall / 2, tuple(min(1.0, v * 1.1) for v in col), height_mm=None, width_mm=1.2)  # type: ignore[arg-type]
    return {"kind": "cup", "centre_mm": c.tolist(), "radius_mm": r, "height_mm": h}


register_piece("hand", draw_hand)
register_piece("arm", draw_arm)
register_piece("cup", draw_cup)


def random_hand(rng: random.Random, profile: TableProfile) -> dict[str, Any]:
    """A hand reaching in from one of the play area's sides, wrist over the area's rim."""
    (ax, ay), (aw, ah) = profile.area_origin_mm, profile.area_size_mm
    side = rng.randrange(4)
    t = rng.uniform(0.1, 0.9)
    depth = rng.uniform(-0.05, 0.45)
    if side == 0:
        wrist, reach = [ax + t * aw, ay + depth * ah], 90.0
    elif side == 1:
        wrist, reach = [ax + aw - depth * aw, ay + t * ah], 180.0
    elif side == 2:
        wrist, reach = [ax + t * aw, ay + ah - depth * ah], 270.0
    else:
        wrist, reach = [ax + depth * aw, ay + t * ah], 0.0
    return {"kind": rng.choice(["hand", "hand", "hand", "arm"]), "wrist_mm": wrist,
            "reach_deg": reach + rng.uniform(-35, 35), "height_mm": rng.uniform(30, 220),
            "skin": rng.choice(SKIN), "sleeve": rng.choice(SLEEVES) if rng.random() < 0.85 else None,
            "scale": rng.uniform(0.85, 1.15), "spread": rng.uniform(0.0, 1.0),
            "cuff_mm": rng.uniform(20, 120), "arm_mm": 1500.0}


def random_cup(rng: random.Random, profile: TableProfile) -> dict[str, Any]:
    """A cup somewhere on or just beside the play area."""
    (ax, ay), (aw, ah) = profile.area_origin_mm, profile.area_size_mm
    return {"kind": "cup", "centre_mm": [rng.uniform(ax - 40, ax + aw + 40), rng.uniform(ay - 40, ay + ah + 40)],
            "radius_mm": rng.uniform(34, 46), "height_mm": rng.uniform(80, 115),
            "colour": rng.choice([[235, 235, 235], [40, 40, 160], [150, 90, 40], [60, 60, 60], [200, 220, 240]]),
            "fill": rng.choice(["coffee", "tea", "empty"]), "handle_deg": rng.uniform(0, 360)}
