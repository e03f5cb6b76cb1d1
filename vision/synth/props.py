"""Cards (art + text), meeples, cubes and tokens: the small pieces of Paper Tales,
Papertown and Paperclip Railways. Simple but drawn like printed, lit objects.

    {"kind": "card", "centre_mm": [x, y], "size_mm": [63, 88], "angle_deg": a,
     "colour": [b,g,r] (frame), "title": "...", "lines": ["...", ...], "art_seed": n,
     "face_down": false, "back": [b,g,r], "cost": n|null, "id": ...}
    {"kind": "meeple", "centre_mm": [x, y], "angle_deg": a, "colour": [b,g,r],
     "size_mm": 16, "height_mm": 18, "pose": "standing"|"lying"}
    {"kind": "cube", "centre_mm": [x, y], "size_mm": 8, "angle_deg": a, "colour": [b,g,r]}
    {"kind": "token", "centre_mm": [x, y], "radius_mm": 10, "colour": [b,g,r],
     "label": "3", "thickness_mm": 2}
"""

from __future__ import annotations

import random
from typing import Any, Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.synth.canvas import TableCanvas, circle_pts, rotated_rect, transform
from vision.synth.colour import hsv_colour, lin
from vision.synth.pieces import DrawContext, register_piece

CARD_PPM = 6.0          # card faces are printed at this resolution, then pasted


def _blob_art(rng: np.random.Generator, w: int, h: int) -> NDArray[np.uint8]:
    """Painterly card art: a sky-to-ground gradient with soft coloured blobs and shapes."""
    top = np.array(hsv_colour(float(rng.uniform(0, 360)), float(rng.uniform(0.2, 0.7)), float(rng.uniform(0.6, 1.0))),
                   dtype=np.float32)
    bot = np.array(hsv_colour(float(rng.uniform(0, 360)), float(rng.uniform(0.3, 0.9)), float(rng.uniform(0.2, 0.7))),
                   dtype=np.float32)
    t = np.linspace(0, 1, h, dtype=np.float32)[:, None, None]
    img = top * (1 - t) + bot * t
    img = np.repeat(img, w, axis=1)
    for _ in range(int(rng.integers(3, 9))):
        c = hsv_colour(float(rng.uniform(0, 360)), float(rng.uniform(0.3, 1.0)), float(rng.uniform(0.2, 1.0)))
        layer: NDArray[Any] = np.zeros((h, w), dtype=np.float32)
        cx, cy = int(rng.uniform(0, w)), int(rng.uniform(0, h))
        if rng.random() < 0.5:
            cv2.ellipse(layer, (cx, cy), (int(rng.uniform(0.05, 0.4) * w), int(rng.uniform(0.05, 0.3) * h)),
                        float(rng.uniform(0, 180)), 0, 360, (1.0,), -1, cv2.LINE_AA)
        else:
            pts = np.array([[cx + rng.uniform(-0.3, 0.3) * w, cy + rng.uniform(-0.3, 0.3) * h] for _ in range(3)],
                           dtype=np.int32)
            cv2.fillPoly(layer, [pts], (1.0,), cv2.LINE_AA)
        layer = cv2.GaussianBlur(layer, (0, 0), float(rng.uniform(0.5, 4.0)))[..., None]
        img = img * (1 - layer) + np.array(c, dtype=np.float32) * layer
    return np.clip(img, 0, 255).astype(np.uint8)


def card_face(piece: dict[str, Any], seed: int) -> NDArray[np.uint8]:
    """The printed face of a card as an sRGB BGR image at CARD_PPM."""
    w_mm, h_mm = (float(v) for v in piece.get("size_mm", [63.0, 88.0]))
    w, h = int(round(w_mm * CARD_PPM)), int(round(h_mm * CARD_PPM))
    rng = np.random.default_rng(int(piece.get("art_seed", seed)))
    if piece.get("face_down"):
        back = np.array(piece.get("back") or [60, 40, 120], dtype=np.uint8)
        img = np.empty((h, w, 3), dtype=np.uint8)
        img[:] = back
        light = np.clip(back.astype(np.int32) + 45, 0, 255).astype(np.uint8)
        step = int(6 * CARD_PPM)
        for k in range(-h, w + h, step):
            cv2.line(img, (k, 0), (k + h, h), tuple(int(v) for v in light), 2, cv2.LINE_AA)
            cv2.line(img, (k, h), (k + h, 0), tuple(int(v) for v in light), 2, cv2.LINE_AA)
        b = int(3 * CARD_PPM)
        cv2.rectangle(img, (b, b), (w - b, h - b), tuple(int(v) for v in light), 3, cv2.LINE_AA)
        return img
    frame = np.array(piece.get("colour") or [60, 120, 180], dtype=np.uint8)
    img = np.empty((h, w, 3), dtype=np.uint8)
    img[:] = (236, 240, 242)
    b = int(round(2.5 * CARD_PPM))
    img[b:h - b, b:w - b] = frame
    ax0, ay0, ax1, ay1 = int(5 * CARD_PPM), int(14 * CARD_PPM), w - int(5 * CARD_PPM), int(h * 0.58)
    img[ay0:ay1, ax0:ax1] = _blob_art(rng, ax1 - ax0, ay1 - ay0)
    # title bar and text box
    cv2.rectangle(img, (ax0, int(4.5 * CARD_PPM)), (ax1, int(12 * CARD_PPM)), (225, 232, 236), -1)
    title = str(piece.get("title", ""))[:18]
    if title:
        cv2.putText(img, title, (ax0 + 6, int(10.5 * CARD_PPM)), cv2.FONT_HERSHEY_SIMPLEX, 0.55 * CARD_PPM / 6,
                    (30, 30, 30), 1, cv2.LINE_AA)
    ty0 = int(h * 0.62)
    cv2.rectangle(img, (ax0, ty0), (ax1, h - int(5 * CARD_PPM)), (215, 228, 235), -1)
    for i, line in enumerate((piece.get("lines") or [])[:5]):
        cv2.putText(img, str(line)[:28], (ax0 + 5, ty0 + int((5 + 5 * i) * CARD_PPM)), cv2.FONT_HERSHEY_SIMPLEX,
                    0.38 * CARD_PPM / 6, (40, 40, 40), 1, cv2.LINE_AA)
    cost = piece.get("cost")
    if cost is not None:
        c = (int(ax1 - 3 * CARD_PPM), int(8 * CARD_PPM))
        cv2.circle(img, c, int(3.6 * CARD_PPM), (30, 170, 230), -1, cv2.LINE_AA)
        cv2.putText(img, str(cost), (c[0] - int(1.3 * CARD_PPM), c[1] + int(1.4 * CARD_PPM)),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.6 * CARD_PPM / 6, (20, 20, 20), 2, cv2.LINE_AA)
    return img


def draw_card(canvas: TableCanvas, piece: dict[str, Any], ctx: DrawContext) -> dict[str, Any]:
    c = [float(v) for v in piece["centre_mm"]]
    size = [float(v) for v in piece.get("size_mm", [63.0, 88.0])]
    ang = float(piece.get("angle_deg", 0.0))
    base = float(piece.get("base_height_mm", 0.0))
    corners = rotated_rect(c, size, ang)
    face = card_face(piece, ctx.rng.randrange(1 << 30))
    # rounded corners: an alpha channel cut by a rounded rectangle
    h, w = face.shape[:2]
    alpha = np.zeros((h, w), dtype=np.uint8)
    r = int(3 * CARD_PPM)
    cv2.rectangle(alpha, (r, 0), (w - 1 - r, h - 1), (255,), -1)
    cv2.rectangle(alpha, (0, r), (w - 1, h - 1 - r), (255,), -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(alpha, (cx, cy), r, (255,), -1, cv2.LINE_AA)
    canvas.paste(np.dstack([face, alpha]), corners, height_mm=base + 0.35)
    truth = {k: v for k, v in piece.items() if k not in ("lines",)}
    truth["corners_mm"] = corners.tolist()
    return truth


def meeple_outline(size: float) -> NDArray[Any]:
    """The classic meeple silhouette (head, arms, legs), about `size` mm tall, y down."""
    s = size / 2.0
    pts = [(0, -1.0), (0.22, -0.96), (0.33, -0.8), (0.3, -0.58), (0.2, -0.46), (0.85, -0.3), (0.95, -0.12),
           (0.85, 0.0), (0.4, 0.02), (0.55, 0.6), (0.75, 0.95), (0.25, 1.0), (0.0, 0.55)]
    right = np.array(pts)
    left = right[::-1][1:-1] * np.array([-1, 1])
    return np.vstack([right, left]) * s


def draw_meeple(canvas: TableCanvas, piece: dict[str, Any], ctx: DrawContext) -> dict[str, Any]:
    """A meeple: standing (from above: its head and shoulders, tall, casting a long
    shadow) or lying (the full silhouette, flat)."""
    c = [float(v) for v in piece["centre_mm"]]
    ang = float(piece.get("angle_deg", 0.0))
    size = float(piece.get("size_mm", 16.0))
    h = float(piece.get("height_mm", 16.0))
    col = lin(piece.get("colour") or [40, 40, 200])
    pose = str(piece.get("pose", "standing"))
    if pose == "lying":
        outline = transform(meeple_outline(size), c, ang)
        h_top = 9.0
    else:
        # seen from above a standing meeple is a thick rounded bar (its shoulders)
        # with the head's top in the middle
        outline = transform(np.array([[x * size / 2, y * size * 0.16] for x, y in
                                      [(-1, -1), (1, -1), (1.05, 0), (1, 1), (-1, 1), (-1.05, 0)]]), c, ang)
        h_top = h
    canvas.prism(outline, 0.0, h_top, tuple(v * 0.55 for v in col))  # type: ignore[arg-type]
    foot = outline
    outline = canvas.lift(outline, h_top)
    c = [float(v) for v in canvas.lift(np.array([c]), h_top)[0]]
    cov = canvas.coverage([outline])
    canvas.blend(cov, col, h_top)
    # rounded wooden edges: darker rim, lighter top
    canvas.polyline(np.vstack([outline, outline[:1]]), max(0.5, size * 0.06), tuple(v * 0.6 for v in col),  # type: ignore[arg-type]
                    height_mm=None, opacity=0.7)
    if pose != "lying":
        canvas.circle(c, size * 0.2, tuple(min(1.0, v * 1.25) for v in col), height_mm=None)  # type: ignore[arg-type]
    truth = dict(piece)
    truth["polygon_mm"] = foot.tolist()
    return truth


def draw_cube(canvas: TableCanvas, piece: dict[str, Any], ctx: DrawContext) -> dict[str, Any]:
    c = [float(v) for v in piece["centre_mm"]]
    s = float(piece.get("size_mm", 8.0))
    ang = float(piece.get("angle_deg", 0.0))
    col = lin(piece.get("colour") or [40, 160, 40])
    base = float(piece.get("base_height_mm", 0.0))
    foot = rotated_rect(c, (s, s), ang, s * 0.08)
    canvas.prism(foot, base, base + s, tuple(v * 0.6 for v in col))  # type: ignore[arg-type]
    top = canvas.lift(foot, base + s)
    canvas.fill_polygon(top, col, height_mm=base + s)
    inner = canvas.lift(rotated_rect(c, (s * 0.8, s * 0.8), ang, s * 0.05), base + s)
    canvas.fill_polygon(inner, tuple(min(1.0, v * 1.15) for v in col), height_mm=None, opacity=0.6)  # type: ignore[arg-type]
    canvas.polyline(np.vstack([top, top[:1]]), max(0.3, s * 0.06), tuple(v * 0.55 for v in col),  # type: ignore[arg-type]
                    height_mm=None, opacity=0.8)
    truth = dict(piece)
    truth["corners_mm"] = rotated_rect(c, (s, s), ang).tolist()
    return truth


def draw_token(canvas: TableCanvas, piece: dict[str, Any], ctx: DrawContext) -> dict[str, Any]:
    c = [float(v) for v in piece["centre_mm"]]
    r = float(piece.get("radius_mm", 10.0))
    col = lin(piece.get("colour") or [30, 170, 230])
    th = float(piece.get("thickness_mm", 2.0))
    canvas.prism(circle_pts(c, r, 64), 0.0, th, tuple(v * 0.6 for v in col))  # type: ignore[arg-type]
    c0 = canvas.lift(np.array([c]), th)[0]
    r *= float(np.linalg.norm(canvas.lift(np.array([[0.0, 0.0], [1.0, 0.0]]), th)[1]
                              - canvas.lift(np.array([[0.0, 0.0]]), th)[0]))
    c = [float(c0[0]), float(c0[1])]
    canvas.circle(c, r, col, height_mm=th)
    canvas.circle(c, r - 0.6, tuple(v * 0.7 for v in col), height_mm=None, width_mm=1.0)  # type: ignore[arg-type]
    label = piece.get("label")
    if label is not None:
        px = 12
        img = np.zeros((int(2 * r * px), int(2 * r * px), 4), dtype=np.uint8)
        txt = str(label)[:3]
        scale = r * px / 22.0
        (tw, tht), _ = cv2.getTextSize(txt, cv2.FONT_HERSHEY_DUPLEX, scale, max(1, int(scale * 2)))
        org = (int(r * px - tw / 2), int(r * px + tht / 2))
        cv2.putText(img, txt, org, cv2.FONT_HERSHEY_DUPLEX, scale, (25, 25, 25, 255), max(1, int(scale * 2)),
                    cv2.LINE_AA)
        canvas.paste(img, rotated_rect(c, (2 * r, 2 * r), float(piece.get("angle_deg", 0.0))))
    truth = dict(piece)
    return truth


register_piece("card", draw_card)
register_piece("meeple", draw_meeple)
register_piece("cube", draw_cube)
register_piece("token", draw_token)


def random_props(rng: random.Random, area: Sequence[float], n_cards: int = 3, n_meeples: int = 3,
                 n_cubes: int = 4, n_tokens: int = 3) -> list[dict[str, Any]]:
    """A scatter of props inside area (x0, y0, x1, y1), for variety and for tests."""
    x0, y0, x1, y1 = (float(v) for v in area)
    out: list[dict[str, Any]] = []
    for i in range(n_cards):
        out.append({"kind": "card", "centre_mm": [rng.uniform(x0 + 40, x1 - 40), rng.uniform(y0 + 50, y1 - 50)],
                    "size_mm": [63.0, 88.0], "angle_deg": rng.uniform(-15, 15),
                    "colour": hsv_colour(rng.uniform(0, 360), rng.uniform(0.4, 0.9), rng.uniform(0.4, 0.9)),
                    "title": rng.choice(["Dragon", "Knight", "Market", "Temple", "Giant", "Archer"]),
                    "lines": ["+1 gold", "when built", "age 2"], "art_seed": rng.randrange(1 << 30),
                    "face_down": rng.random() < 0.2, "cost": rng.choice([None, 1, 2, 3]), "id": f"card{i}"})
    for _ in range(n_meeples):
        out.append({"kind": "meeple", "centre_mm": [rng.uniform(x0 + 10, x1 - 10), rng.uniform(y0 + 10, y1 - 10)],
                    "angle_deg": rng.uniform(0, 360), "colour": rng.choice([[40, 40, 200], [200, 80, 30],
                                                                            [40, 160, 40], [30, 200, 230]]),
                    "size_mm": rng.uniform(14, 20), "height_mm": rng.uniform(14, 22),
                    "pose": rng.choice(["standing", "lying"])})
    for _ in range(n_cubes):
        out.append({"kind": "cube", "centre_mm": [rng.uniform(x0 + 10, x1 - 10), rng.uniform(y0 + 10, y1 - 10)],
                    "size_mm": rng.uniform(7, 10), "angle_deg": rng.uniform(0, 90),
                    "colour": rng.choice([[40, 40, 200], [200, 80, 30], [40, 160, 40], [30, 200, 230], [60, 60, 60]])})
    for _ in range(n_tokens):
        out.append({"kind": "token", "centre_mm": [rng.uniform(x0 + 12, x1 - 12), rng.uniform(y0 + 12, y1 - 12)],
                    "radius_mm": rng.uniform(8, 13), "colour": rng.choice([[30, 170, 230], [180, 180, 180], [60, 60, 200]]),
                    "label": rng.choice(["1", "2", "3", "5", None])})
    return out


