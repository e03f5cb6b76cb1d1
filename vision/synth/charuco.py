"""ChArUco lens-calibration scenes: the board of calibration.charuco (5x5 markers, so it
can never pass for a 4x4 table corner marker) printed on a sheet lying flat on a table,
seen from strongly varied poses (tilts up to ~45 deg, the board anywhere in the frame,
where barrel distortion is strongest) through a given lens.

Truth: "board" (the CharucoSpec dict), "board_origin_mm" and "board_angle_deg" (where
the board's top-left lies on the table), "charuco" {"ids", "corners_mm", "corners_px",
"in_frame"} for every inner chessboard corner in OpenCV's id order, and the true
intrinsics in truth["camera"] (K, dist, resolution).
"""

from __future__ import annotations

import math
import random
from typing import Any

import numpy as np

from calibration.charuco import DEFAULT_BOARD, CharucoSpec, board_image, corner_positions_mm
from vision.synth.camera import CameraModel
from vision.synth.canvas import TableCanvas, rotated_rect, transform
from vision.synth.colour import lin
from vision.synth.degrade import random_degrade
from vision.synth.lens import random_lens
from vision.synth.lighting import random_light
from vision.synth.pieces import DrawContext, register_piece
from vision.synth.surfaces import random_surface


def draw_charuco(canvas: TableCanvas, piece: dict[str, Any], ctx: DrawContext) -> dict[str, Any]:
    """The printed board on its paper sheet (a white margin around the squares)."""
    spec = CharucoSpec.from_dict(piece.get("board") or {})
    origin = [float(v) for v in piece.get("origin_mm", [0.0, 0.0])]
    angle = float(piece.get("angle_deg", 0.0))
    bw, bh = spec.size_mm
    margin = float(piece.get("margin_mm", 12.0))
    centre_local = np.array([[bw / 2, bh / 2]])
    centre = transform(centre_local, origin, angle)[0]
    paper = lin(piece.get("paper", [232, 236, 238]))
    canvas.fill_polygon(rotated_rect(centre, (bw + 2 * margin, bh + 2 * margin), angle, 1.0), paper, 0.1)
    ppm = max(8.0, canvas.px_per_mm * 2.0)
    img = board_image(spec, ppm)
    ink = np.array([24, 24, 26], dtype=np.float32)
    pap = np.array(piece.get("paper", [232, 236, 238]), dtype=np.float32)
    t = (img.astype(np.float32) / 255.0)[..., None]
    bgr = np.clip(ink + t * (pap - ink), 0, 255).astype(np.uint8)
    quad = transform(np.array([[0, 0], [bw, 0], [bw, bh], [0, bh]], dtype=np.float64), origin, angle)
    canvas.paste(bgr, quad, height_mm=0.1)
    corners = transform(corner_positions_mm(spec), origin, angle)
    return {"kind": "charuco", "board": spec.to_dict(), "origin_mm": origin, "angle_deg": angle,
            "corners_mm": corners.tolist()}


register_piece("charuco", draw_charuco)


def _profile_dict(bw: float, bh: float) -> dict[str, Any]:
    """An inline table profile around the board (its corner markers are hidden by default)."""
    m = 40.0
    pos = [(-m, -m), (bw + m, -m), (bw + m, bh + m), (-m, bh + m)]
    return {"table": {"name": "charuco", "area_origin_mm": [0.0, 0.0], "area_size_mm": [bw, bh]},
            "markers": [{"id": i, "size_mm": 30.0, "centre_mm": [p[0], p[1]]} for i, p in enumerate(pos)]}


def random_scene(seed: int, **options: Any) -> dict[str, Any]:
    """A random board view. options: lens= (a lens dict {"hfov_deg", "dist"}; default a
    random lens), lens_kind=, resolution=(W, H), board= (CharucoSpec dict), tilt=(lo, hi)
    deg (default 0-45), fill=(lo, hi) (fraction of the frame width the board spans,
    default 0.3-0.9), whole=True (keep every board corner in the frame), table_markers=
    False, light=/surface=/degrade= overrides."""
    rng = random.Random(f"charuco:{seed}")
    res = tuple(int(v) for v in options.get("resolution", (1920, 1080)))
    w, h = res[0], res[1]
    spec = CharucoSpec.from_dict(options.get("board") or DEFAULT_BOARD.to_dict())
    bw, bh = spec.size_mm
    lens = options.get("lens")
    if not (isinstance(lens, dict) and "hfov_deg" in lens):
        lens = random_lens(rng, (w, h), str(options.get("lens_kind", "any")))
    dist = tuple(float(v) for v in lens.get("dist", [0.0] * 5))
    hfov = float(lens["hfov_deg"])
    tilt_lo, tilt_hi = (float(v) for v in options.get("tilt", (0.0, 45.0)))
    fill_lo, fill_hi = (float(v) for v in options.get("fill", (0.3, 0.9)))
    whole = bool(options.get("whole", True))
    outline = np.array([[0, 0], [bw, 0], [bw, bh], [0, bh]], dtype=np.float64)
    pose: dict[str, Any] | None = None
    for _ in range(600):
        fill = rng.uniform(fill_lo, fill_hi)
        # height so the board's long side spans about `fill` of the frame width
        height = max(bw, bh) / fill / (2 * math.tan(math.radians(hfov) / 2))
        tilt = rng.uniform(tilt_lo, tilt_hi)
        span = 2 * height * math.tan(math.radians(hfov) / 2)
        target = (bw / 2 + rng.uniform(-0.35, 0.35) * span, bh / 2 + rng.uniform(-0.35, 0.35) * span * h / w)
        tdir, yaw = rng.uniform(0, 360), rng.uniform(0, 360)
        cand: dict[str, Any] = {"height_mm": height, "tilt_deg": tilt, "tilt_dir_deg": tdir,
                                "yaw_deg": yaw, "target_mm": [target[0], target[1]]}
        cam = CameraModel((w, h), hfov, dist, height, tilt, tdir, yaw, target)
        if not bool(cam.in_front_and_valid(outline).all()):
            continue
        px = cam.project(outline)
        inside = (px[:, 0] >= 8) & (px[:, 0] <= w - 9) & (px[:, 1] >= 8) & (px[:, 1] <= h - 9)
        if (whole and not bool(inside.all())) or (not whole and int(inside.sum()) < 2):
            continue
        pose = cand
        break
    if pose is None:
        raise ValueError(f"no pose keeps the {bw:.0f}x{bh:.0f} mm board in view through a "
                         f"{hfov:.0f} deg lens; widen 'tilt' or 'fill'")
    bounds = (-60.0, -60.0, bw + 60.0, bh + 60.0)
    light = random_light(rng, bounds)
    light["stops"] = rng.uniform(-0.5, 0.5)
    light["glare"] = light["glare"][:1]
    light.update(options.get("light") or {})
    surface = random_surface(rng, bounds)
    # a small table (a desk, a board on the floor): keeps the canvas, and the render, small
    m = [rng.uniform(60, 250) for _ in range(4)]
    surface["table_mm"] = [-m[0], -m[1], bw + m[2], bh + m[3]]
    surface.update(options.get("surface") or {})
    degrade = random_degrade(rng)
    degrade["noise"] = min(float(degrade["noise"]), 3.0)
    degrade["blur"] = {"defocus_px": rng.uniform(0.0, 0.8)}
    degrade.update(options.get("degrade") or {})
    scene: dict[str, Any] = {
        "game": "charuco", "seed": int(seed), "profile": _profile_dict(bw, bh),
        "resolution": [w, h], "camera": pose, "lens": {"hfov_deg": hfov, "dist": list(dist)},
        "light": light, "surface": surface, "degrade": degrade,
        "markers": {} if options.get("table_markers") else {"hidden": [0, 1, 2, 3]},
        "pieces": [{"kind": "charuco", "board": spec.to_dict(), "origin_mm": [0.0, 0.0], "angle_deg": 0.0}],
        "occluders": [],
        "meta": {"board": spec.to_dict(), "board_origin_mm": [0.0, 0.0], "board_angle_deg": 0.0},
    }
    cam = CameraModel((w, h), hfov, dist, pose["height_mm"], pose["tilt_deg"], pose["tilt_dir_deg"],
                      pose["yaw_deg"], (pose["target_mm"][0], pose["target_mm"][1]))
    cmm = corner_positions_mm(spec)
    cpx = cam.project(cmm)
    ok = cam.in_front_and_valid(cmm) & (cpx[:, 0] >= 0) & (cpx[:, 0] <= w - 1) & (cpx[:, 1] >= 0) & (cpx[:, 1] <= h - 1)
    scene["meta"]["charuco"] = {"ids": list(range(len(cmm))), "corners_mm": cmm.tolist(),
                                "corners_px": cpx.tolist(), "in_frame": [bool(v) for v in ok]}
    return scene
