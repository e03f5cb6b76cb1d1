"""Square printed tiles (a shape and a colour on the face, a plain back) and stacks of
blocks, plus the random families of shape sets, colour sets and art styles.

Piece dicts:
    {"kind": "tile", "centre_mm": [x, y], "side_mm": 38, "angle_deg": 2.0,
     "shape": "star5", "colour": [b, g, r], "face_down": false, "style": {...} or a
     name in scene["styles"], "key": any (fixes the tile's print quirks across frames;
     default: from the scene seed), plus any keys to echo into truth (row, col, id...)}
    {"kind": "stack", "centre_mm": [x, y], "side_mm": 40, "angle_deg": 0,
     "thickness_mm": 2.5, "levels": [{"colour": [b,g,r], "shape": "house"|null,
     "offset_mm": [dx, dy], "angle_deg": a}, ...]}   (bottom level first)

A tile style: {"art": "light"|"dark"|"outlined"|"inverse"|"textured", "face": [b,g,r],
"back": [b,g,r], "back_logo": bool, "border": [b,g,r]|null, "symbol_scale": 0.5-0.8,
"corner_mm": r, "thickness_mm": t, "edge": [b,g,r] (the board's cut edge),
"misprint_mm": max print offset of the symbol, "gloss": 0..1 share of tiles catching
a specular sheen}
"""

from __future__ import annotations

import random
from typing import Any, Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.synth.canvas import Coverage, TableCanvas, rotated_rect, transform
from vision.synth.colour import hsv_colour, lab_distance, lin
from vision.synth.noise import pixel_noise
from vision.synth.pieces import DrawContext, register_piece
from vision.synth.shapes import SHAPES, shape_polygons

F32 = NDArray[Any]   # float32 by convention (the cv2 stubs lose dtypes)

ARTS = ("light", "dark", "outlined", "inverse", "textured")

# named base colours: (hue deg, saturation, value); white/black only where they contrast
BASE_COLOURS: dict[str, tuple[float, float, float]] = {
    "red": (2, 0.85, 0.85), "orange": (25, 0.9, 0.95), "yellow": (52, 0.9, 0.95),
    "lime": (85, 0.75, 0.8), "green": (135, 0.8, 0.6), "teal": (172, 0.85, 0.6),
    "cyan": (193, 0.75, 0.9), "blue": (222, 0.85, 0.8), "purple": (275, 0.6, 0.65),
    "pink": (325, 0.5, 0.95), "brown": (22, 0.65, 0.45), "magenta": (300, 0.8, 0.8),
    "white": (0, 0.0, 0.95), "black": (0, 0.0, 0.12),
}


def random_shape_set(rng: random.Random, n: int = 7) -> list[str]:
    """n distinct shape names from the family."""
    names = list(SHAPES)
    if n > len(names):
        raise ValueError(f"at most {len(names)} shapes, asked for {n}")
    return rng.sample(names, n)


def random_colour_set(rng: random.Random, n: int, face: Sequence[int],
                      min_sep: float = 28.0) -> tuple[list[str], list[list[int]]]:
    """n well-separated symbol colours (names, sRGB BGR) that all contrast with `face`,
    jittered per scene in hue, saturation and value."""
    for attempt in range(200):
        names: list[str] = []
        cols: list[list[int]] = []
        pool = list(BASE_COLOURS)
        rng.shuffle(pool)
        sep = min_sep * (0.97 ** (attempt // 10))
        for nm in pool:
            h, s, v = BASE_COLOURS[nm]
            c = hsv_colour(h + rng.uniform(-8, 8), min(1.0, max(0.0, s * rng.uniform(0.8, 1.1))),
                           min(1.0, v * rng.uniform(0.85, 1.05)))
            if lab_distance(c, face) < 35:
                continue
            if all(lab_distance(c, o) >= sep for o in cols):
                names.append(nm)
                cols.append(c)
            if len(cols) == n:
                return names, cols
    raise ValueError(f"cannot find {n} separated colours against face {list(face)}")


def random_tile_style(rng: random.Random, art: str | None = None) -> dict[str, Any]:
    """A random tile printing style (see module doc)."""
    a = art or rng.choice(ARTS)
    if a == "dark":
        v = rng.randint(12, 40)
        face = [v, v, v + rng.randint(0, 6)]
    elif a == "inverse":
        face = [rng.randint(215, 245)] * 3      # the symbol's colour; face set per tile
    else:
        base = rng.choice([[236, 240, 242], [214, 228, 238], [225, 225, 225], [200, 220, 232]])
        face = [min(255, c + rng.randint(-10, 8)) for c in base]
    back_h = rng.uniform(0, 360)
    back = hsv_colour(back_h, rng.uniform(0.1, 0.7), rng.uniform(0.25, 0.85))
    return {
        "art": a, "face": face, "back": back, "back_logo": rng.random() < 0.6,
        "border": (rng.choice([[60, 60, 60], [180, 180, 180], [40, 90, 140]]) if rng.random() < 0.35 else None),
        "symbol_scale": rng.uniform(0.55, 0.78), "corner_mm": rng.uniform(0.5, 4.0),
        # cardboard tiles, or (one game in five) chunky blocks like Qwirkle's
        "thickness_mm": rng.uniform(1.5, 3.0) if rng.random() < 0.8 else rng.uniform(5.0, 9.0),
        "edge": rng.choice([[150, 160, 165], [90, 95, 100], [200, 205, 205], [30, 30, 30]]),
        "misprint_mm": rng.uniform(0.0, 0.5), "seed": rng.randrange(1 << 30),
        "gloss": rng.choice([0.0, rng.uniform(0.2, 1.0)]),
    }


def resolve_style(piece: dict[str, Any], ctx: DrawContext) -> dict[str, Any]:
    st = piece.get("style", "default")
    if isinstance(st, dict):
        return st
    styles = ctx.scene.get("styles") or {}
    if st in styles:
        return dict(styles[st])
    return random_tile_style(random.Random(0), "light")


def _outline(cov: Coverage, width_px: float) -> Coverage:
    """The inner band of a shape's coverage, width_px wide (outlined art)."""
    if cov.empty:
        return cov
    k = max(1, int(round(width_px)))
    inner = cv2.erode(cov.alpha, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * k + 1, 2 * k + 1)))
    return Coverage(cov.x0, cov.y0, np.clip(cov.alpha - inner, 0.0, 1.0).astype(np.float32))


def _texture(cov: Coverage, seed: int, strength: float) -> F32:
    """A printed pattern factor (fine halftone-ish grain) for the coverage's box."""
    h, w = cov.alpha.shape
    n = pixel_noise((h, w), seed, sigma_px=0.8)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    lines = np.sin((xx + yy) * 0.9).astype(np.float32)
    return np.asarray(1.0 + strength * (0.5 * n + 0.5 * lines), dtype=np.float32)


def draw_tile_at(canvas: TableCanvas, centre: Sequence[float] | NDArray[Any], side: float, angle: float,
                 style: dict[str, Any], shape: str | None, colour: Sequence[int] | None,
                 face_down: bool, base_height: float, rng: random.Random) -> None:
    """One tile: body, cut edge, then the printed face (symbol) or back (logo)."""
    th = float(style.get("thickness_mm", 2.0))
    top = base_height + th
    corner = float(style.get("corner_mm", 2.0))
    foot = rotated_rect(centre, (side, side), angle, corner)
    edge = lin(style.get("edge", [150, 160, 165]))
    # the sides the camera sees (parallax), then the top face where the camera sees it
    canvas.prism(foot, base_height, top, tuple(v * 0.8 for v in edge))  # type: ignore[arg-type]
    c0 = np.asarray(centre, dtype=np.float64)[:2]
    lifted = canvas.lift(np.array([c0, c0 + np.array([1.0, 0.0])]), top)
    centre = lifted[0]
    side = side * float(np.linalg.norm(lifted[1] - lifted[0]))
    body = rotated_rect(centre, (side, side), angle, corner)
    art = str(style.get("art", "light"))
    if face_down:
        face_c = lin(style.get("back", [90, 110, 140]))
    elif art == "inverse" and colour is not None:
        face_c = lin(colour)
    else:
        face_c = lin(style.get("face", [235, 238, 240]))
    cov = canvas.fill_polygon(body, face_c, height_mm=top)
    seed = int(style.get("seed", 0)) + rng.randrange(1 << 20)
    if art == "textured":
        tex = _texture(cov, seed, 0.06)
        sy, sx = cov.slices()
        canvas.image[sy, sx] *= (1.0 + cov.alpha * (tex - 1.0))[..., None]
    # the cut edge of the board, seen as a thin band along the outline
    canvas.polyline(np.vstack([body, body[:1]]), max(0.35, 0.012 * side), edge, height_mm=None, opacity=0.85)
    px = canvas.px_per_mm
    if face_down:
        if style.get("back_logo", False):
            bc = np.asarray(style.get("back", [90, 110, 140]), dtype=np.float64)
            logo = lin(np.clip(bc * 1.35 + 20, 0, 255).tolist())
            canvas.circle(centre, side * 0.22, logo, height_mm=None, width_mm=side * 0.05)
            canvas.fill_polygon(transform([[-0.5, -0.1], [0.5, -0.1], [0.5, 0.1], [-0.5, 0.1]],
                                          centre, angle, side * 0.16), logo, height_mm=None)
        return
    border = style.get("border")
    if border:
        inset = rotated_rect(centre, (side * 0.86, side * 0.86), angle, max(0.0, corner - 1))
        canvas.polyline(np.vstack([inset, inset[:1]]), max(0.3, side * 0.02), lin(border), height_mm=None)
    if shape is None or colour is None:
        return
    outers, holes = shape_polygons(shape)
    mis = float(style.get("misprint_mm", 0.0))
    c2 = (centre[0] + rng.uniform(-mis, mis), centre[1] + rng.uniform(-mis, mis))
    scale = side / 2 * float(style.get("symbol_scale", 0.65))
    o = [transform(p, c2, angle, scale) for p in outers]
    hls = [transform(p, c2, angle, scale) for p in holes]
    scov = canvas.coverage(o, hls)
    if art == "inverse":
        sym_c = lin(style.get("face", [235, 235, 235]))
    else:
        # print runs differ a little from tile to tile
        sym_c = tuple(v * (1.0 + rng.gauss(0.0, 0.025)) for v in lin(colour))  # type: ignore[assignment]
    if art == "outlined":
        scov = _outline(scov, max(1.0, side * 0.07 * px))
    if art == "textured":
        tex = _texture(scov, seed + 1, 0.08)
        col = np.asarray(sym_c, dtype=np.float32)[None, None, :] * tex[..., None]
        canvas.blend(scov, col, None)
    else:
        canvas.blend(scov, sym_c, None)
    _sheen(canvas, cov, float(style.get("gloss", 0.0)), rng)


def _sheen(canvas: TableCanvas, cov: Coverage, gloss: float, rng: random.Random) -> None:
    """A glossy tile catches the lamp: a soft white gradient across part of its face."""
    if gloss <= 0 or cov.empty or rng.random() > gloss:
        return
    h, w = cov.alpha.shape
    a = rng.uniform(0, 2 * np.pi)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    t = ((xx - w / 2) * np.cos(a) + (yy - h / 2) * np.sin(a)) / max(w, h) + rng.uniform(-0.3, 0.3)
    band = np.exp(-(t / rng.uniform(0.12, 0.35)) ** 2) * np.float32(rng.uniform(0.04, 0.25) * gloss)
    sy, sx = cov.slices()
    canvas.image[sy, sx] += (band * cov.alpha)[..., None]


def draw_tile(canvas: TableCanvas, piece: dict[str, Any], ctx: DrawContext) -> dict[str, Any]:
    style = resolve_style(piece, ctx)
    centre = [float(v) for v in piece["centre_mm"]]
    side = float(piece.get("side_mm", 38.0))
    angle = float(piece.get("angle_deg", 0.0))
    face_down = bool(piece.get("face_down", False))
    shape = piece.get("shape")
    colour = piece.get("colour")
    # (with a "key", ctx.rng follows the tile, not the frame: see render_scene)
    draw_tile_at(canvas, centre, side, angle, style, shape, colour, face_down,
                 float(piece.get("base_height_mm", 0.0)), ctx.rng)
    truth = {k: v for k, v in piece.items() if k not in ("style",)}
    truth["corners_mm"] = rotated_rect(centre, (side, side), angle).tolist()
    return truth


def draw_stack(canvas: TableCanvas, piece: dict[str, Any], ctx: DrawContext) -> dict[str, Any]:
    """Blocks stacked on one lattice cell; each level a little offset and turned, so its
    edge (and the shadow it casts on the level below) shows."""
    style = dict(resolve_style(piece, ctx))
    centre = np.array([float(v) for v in piece["centre_mm"]])
    side = float(piece.get("side_mm", 40.0))
    angle = float(piece.get("angle_deg", 0.0))
    th = float(piece.get("thickness_mm", style.get("thickness_mm", 2.5)))
    style["thickness_mm"] = th
    levels = piece.get("levels") or [{}]
    out_levels = []
    for k, lv in enumerate(levels):
        # hand-stacked blocks never sit exactly on each other: each level's edge shows
        off = lv.get("offset_mm", [ctx.rng.uniform(-2.5, 2.5), ctx.rng.uniform(-2.5, 2.5)])
        c = centre + np.asarray(off, dtype=np.float64)
        a = angle + float(lv.get("angle_deg", ctx.rng.uniform(-4.0, 4.0)))
        st = dict(style)
        st["art"] = "inverse" if lv.get("shape") else "light"
        if lv.get("colour") is not None and not lv.get("shape"):
            st["face"] = lv["colour"]
        # the block's sides: its own colour in shade, with a dark seam on top
        st["edge"] = [int(v * 0.45) for v in (lv.get("colour") or [120, 120, 120])]
        draw_tile_at(canvas, c, side, a, st, lv.get("shape"), lv.get("colour"), False, k * th, ctx.rng)
        out_levels.append({"centre_mm": c.tolist(), "angle_deg": a, "colour": lv.get("colour"),
                           "shape": lv.get("shape"), "top_mm": (k + 1) * th})
    truth = {k: v for k, v in piece.items() if k not in ("style", "levels")}
    truth["height"] = len(levels)
    truth["levels"] = out_levels
    truth["corners_mm"] = rotated_rect(centre, (side, side), angle).tolist()
    return truth


register_piece("tile", draw_tile)
register_piece("stack", draw_stack)

