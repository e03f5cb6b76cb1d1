"""render_scene: a JSON-able scene description -> a camera frame and its ground truth.

The pipeline, in the order light travels: table surface, markers and pieces are drawn
flat on a top-down canvas (albedo + height map), the room light shades it (gradient,
shadows, glare), the camera sees it through one remap (pose + lens distortion), and the
sensor degrades it (cast, vignetting, blur, noise, tone curve, JPEG). The schema is in
docs/synthetic-table.md.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from calibration.profile import ProfileError, TableProfile, default_profile, profile_from_dict
from vision.synth.camera import CameraModel, render_plane
from vision.synth.canvas import TableCanvas
from vision.synth.colour import lin
from vision.synth.degrade import finish
from vision.synth.lighting import apply_lighting
from vision.synth.markers import draw_markers, marker_bounds
from vision.synth.pieces import DrawContext, SceneError, get_piece
from vision.synth.surfaces import draw_surface

F64 = NDArray[np.float64]

MAX_CANVAS_PX = 24_000_000      # ~290 MB of float32 BGR: the memory cap of one canvas
OVERSAMPLE = 1.5                # canvas px per finest camera px


@dataclass
class Rendered:
    """A rendered frame: uint8 BGR image, JSON-ready truth and camera, and the exact
    table -> image projection (lens distortion included)."""

    image: NDArray[np.uint8]
    truth: dict[str, Any]
    camera: dict[str, Any]
    model: CameraModel = field(repr=False)
    profile: TableProfile = field(repr=False)

    def table_to_image(self, pts_mm: ArrayLike) -> F64:
        """Table points (Nx2 mm on the table plane, or Nx3 with height) -> image pixels."""
        return self.model.project(pts_mm)


def scene_profile(scene: dict[str, Any]) -> TableProfile:
    """The scene's table profile: a shipped profile name or an inline profile dict."""
    p = scene.get("profile", scene.get("game", "default"))
    try:
        if isinstance(p, dict):
            return profile_from_dict(p, "scene profile")
        if isinstance(p, str):
            return default_profile(p)
    except ProfileError as e:
        raise SceneError(str(e)) from None
    raise SceneError(f"scene 'profile' must be a profile name or a dict, got {type(p).__name__}")


def camera_from_scene(scene: dict[str, Any], profile: TableProfile) -> CameraModel:
    res = scene.get("resolution", [1920, 1080])
    if not (isinstance(res, (list, tuple)) and len(res) == 2 and all(int(v) > 0 for v in res)):
        raise SceneError(f"scene 'resolution' must be [width, height], got {res!r}")
    cam = dict(scene.get("camera") or {})
    lens = dict(scene.get("lens") or {})
    x0, y0, x1, y1 = marker_bounds(profile)
    target = cam.get("target_mm", [(x0 + x1) / 2, (y0 + y1) / 2])
    hfov = float(lens.get("hfov_deg", 66.0))
    if "height_mm" not in cam:
        # straight down, just high enough to see every marker with a 5% margin
        span = max((x1 - x0) / (int(res[0])), (y1 - y0) / (int(res[1]))) * int(res[0])
        cam["height_mm"] = 1.1 * span / 2 / math.tan(math.radians(hfov) / 2)
    dist = lens.get("dist", [0.0, 0.0, 0.0, 0.0, 0.0])
    return CameraModel(resolution=(int(res[0]), int(res[1])), hfov_deg=hfov,
                       dist=tuple(float(v) for v in dist),
                       height_mm=float(cam["height_mm"]), tilt_deg=float(cam.get("tilt_deg", 0.0)),
                       tilt_dir_deg=float(cam.get("tilt_dir_deg", 90.0)),
                       yaw_deg=float(cam.get("yaw_deg", 0.0)),
                       target_mm=(float(target[0]), float(target[1])))


def make_canvas(scene: dict[str, Any], camera: CameraModel, profile: TableProfile) -> TableCanvas:
    """A canvas covering what the camera sees of the table (plus the floor near it), at
    OVERSAMPLE x the camera's finest sampling, capped at MAX_CANVAS_PX."""
    box, finest = camera.footprint_mm()
    surf = scene.get("surface") or {}
    t = surf.get("table_mm")
    # beyond the table top the camera sees the floor, a flat colour that render_plane
    # supplies for rays off the canvas: the canvas need only cover the table
    mb = marker_bounds(profile, 20.0)
    lim = [float(v) for v in t] if t else list(marker_bounds(profile, 300.0))
    lim = [min(lim[0], mb[0]) - 20, min(lim[1], mb[1]) - 20, max(lim[2], mb[2]) + 20, max(lim[3], mb[3]) + 20]
    for occ in scene.get("occluders") or []:
        # arms come in from beyond the table: the canvas must hold them too
        if isinstance(occ, dict) and "wrist_mm" in occ:
            wx, wy = (float(v) for v in occ["wrist_mm"])
            a = math.radians(float(occ.get("reach_deg", 0.0)))
            back = float(occ.get("arm_mm", 500.0)) + 60.0
            for ex, ey in ((wx + 220 * math.cos(a), wy + 220 * math.sin(a)),
                           (wx - back * math.cos(a), wy - back * math.sin(a))):
                lim = [min(lim[0], ex - 80), min(lim[1], ey - 80), max(lim[2], ex + 80), max(lim[3], ey + 80)]
    x0, y0 = max(box[0], lim[0]), max(box[1], lim[1])
    x1, y1 = min(box[2], lim[2]), min(box[3], lim[3])
    if x1 <= x0 or y1 <= y0:
        raise SceneError("the camera does not see the table; point 'camera' target_mm at the play area")
    ppm = float(scene.get("px_per_mm") or OVERSAMPLE * finest)
    cap = math.sqrt(float(scene.get("max_canvas_px", MAX_CANVAS_PX)) / ((x1 - x0) * (y1 - y0)))
    # and cv2.remap takes sources under 32767 px a side
    cap = min(cap, 32000.0 / max(x1 - x0, y1 - y0))
    ppm = max(0.5, min(ppm, cap))
    return TableCanvas((x0, y0), (x1 - x0, y1 - y0), ppm, background=None)


def _with_px(obj: Any, camera: CameraModel) -> Any:
    """Add image coordinates next to every centre_mm / corners_mm / polygon_mm in truth."""
    if isinstance(obj, dict):
        out = {k: _with_px(v, camera) for k, v in obj.items()}
        for key in ("centre_mm", "corners_mm", "polygon_mm"):
            if key in obj and key.replace("_mm", "_px") not in obj:
                pts = np.asarray(obj[key], dtype=np.float64)
                if pts.size >= 2 and pts.size % 2 == 0:
                    px = camera.project(pts.reshape(-1, 2))
                    out[key.replace("_mm", "_px")] = (px[0].tolist() if pts.ndim == 1 else px.tolist())
        return out
    if isinstance(obj, list):
        return [_with_px(v, camera) for v in obj]
    return obj


def render_scene(scene: dict[str, Any]) -> Rendered:
    """Render a scene dict (see docs/synthetic-table.md) to a frame and its truth."""
    if not isinstance(scene, dict):
        raise SceneError("a scene must be a dict (the JSON object of a scene file)")
    seed = int(scene.get("seed", 0))
    profile = scene_profile(scene)
    camera = camera_from_scene(scene, profile)
    canvas = make_canvas(scene, camera, profile)
    if scene.get("parallax", True):
        c = camera.centre
        canvas.eye = (float(c[0]), float(c[1]), float(-c[2]))
    surf = dict(scene.get("surface") or {"kind": "mat", "tone": "light", "seed": seed})
    try:
        draw_surface(canvas, surf)
    except (KeyError, TypeError, ValueError) as e:
        raise SceneError(f"scene 'surface': {str(e).splitlines()[0] if str(e) else e}") from None
    markers = draw_markers(canvas, profile, scene.get("markers"), seed=int(surf.get("seed", seed)))
    piece_truth: list[dict[str, Any]] = []
    for group, key in (("pieces", "pieces"), ("occluders", "occluders")):
        for i, piece in enumerate(scene.get(key) or []):
            if not isinstance(piece, dict) or "kind" not in piece:
                raise SceneError(f"scene '{key}' #{i + 1} needs a 'kind'")
            fn = get_piece(str(piece["kind"]))
            # a piece with a "key" keeps its random quirks whatever the frame's seed
            # (the same tile, card or stack looks the same in every frame of a game)
            piece_key = piece.get("key")
            rseed = f"key:{piece_key}" if piece_key is not None else f"{seed}:{group}:{i}"
            ctx = DrawContext(rng=random.Random(rseed),
                              nprng=np.random.default_rng(list(rseed.encode("utf-8"))),
                              scene=scene, profile=profile, index=i)
            try:
                t = fn(canvas, piece, ctx)
            except KeyError as e:
                raise SceneError(f"scene '{key}' #{i + 1} ({piece['kind']}) lacks {e}; add it "
                                 "(see docs/synthetic-table.md)") from None
            except (TypeError, ValueError, IndexError) as e:
                msg = str(e).splitlines()[0] if str(e) else e.__class__.__name__
                raise SceneError(f"scene '{key}' #{i + 1} ({piece['kind']}): {msg}") from None
            if t is not None:
                t = dict(t)
                t.setdefault("kind", piece["kind"])
                t["group"] = group
                t["index"] = i
                piece_truth.append(t)
    light = dict(scene.get("light") or {})
    area0 = profile.area_origin_mm
    area1 = (area0[0] + profile.area_size_mm[0], area0[1] + profile.area_size_mm[1])
    apply_lighting(canvas, light, (area0[0], area0[1], area1[0], area1[1]))
    floor = lin((surf.get("floor") or [40, 45, 50]))
    bg = tuple(v * float(light.get("floor_light", 0.6)) for v in floor)
    radiance = render_plane(canvas, camera, bg)
    canvas_info = {"origin_mm": list(canvas.origin_mm), "size_mm": list(canvas.size_mm),
                   "px_per_mm": canvas.px_per_mm}
    del canvas              # free the canvas (up to ~0.5 GB) before the sensor pass
    image = finish(radiance, light, dict(scene.get("degrade") or {}), seed)
    del radiance
    cam_dict = camera.to_dict()
    area_corners = [[area0[0], area0[1]], [area1[0], area0[1]], [area1[0], area1[1]], [area0[0], area1[1]]]
    truth: dict[str, Any] = {
        "game": scene.get("game"), "seed": seed, "profile": profile.name,
        "resolution": cam_dict["resolution"],
        "markers": markers,
        "play_area": {"origin_mm": list(area0), "size_mm": list(profile.area_size_mm),
                      "corners_mm": area_corners},
        "pieces": [t for t in piece_truth if t["group"] == "pieces"],
        "occluders": [t for t in piece_truth if t["group"] == "occluders"],
        "canvas": canvas_info,
        "camera": cam_dict,
    }
    for k, v in (scene.get("meta") or {}).items():
        truth.setdefault(k, v)
    truth = _with_px(truth, camera)
    return Rendered(image=image, truth=truth, camera=cam_dict, model=camera, profile=profile)
