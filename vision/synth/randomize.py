"""Everything environmental about a synthetic frame, randomised in ONE place so every
game's generator shares it: camera pose, lens, light, table surface, degradations.

Tests pin any part by passing it: random_environment(rng, res, prof, light={"kelvin":
2700, "stops": -1}) keeps those keys and randomises the rest.
"""

from __future__ import annotations

import random
from typing import Any, Sequence

import numpy as np
from numpy.typing import NDArray

from calibration.profile import TableProfile
from vision.synth.camera import CameraModel
from vision.synth.degrade import random_degrade
from vision.synth.lens import random_lens
from vision.synth.lighting import random_light
from vision.synth.markers import marker_bounds
from vision.synth.surfaces import random_surface


def _merge(base: dict[str, Any], override: dict[str, Any] | None) -> dict[str, Any]:
    out = dict(base)
    for k, v in (override or {}).items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = v
    return out


def _range(value: Any, default: tuple[float, float]) -> tuple[float, float]:
    if value is None:
        return default
    lo, hi = value
    return float(lo), float(hi)


def must_see(profile: TableProfile) -> NDArray[Any]:
    """Table points that must be inside every frame: the play area and each marker
    with its quiet zone."""
    pts = []
    x0, y0 = profile.area_origin_mm
    w, h = profile.area_size_mm
    pts += [(x0, y0), (x0 + w, y0), (x0 + w, y0 + h), (x0, y0 + h)]
    for m in profile.markers:
        q = m.size_mm / 2 + max(m.size_mm / 6.0, 4.0)
        cx, cy = m.centre_mm
        pts += [(cx - q, cy - q), (cx + q, cy - q), (cx + q, cy + q), (cx - q, cy + q)]
    return np.array(pts, dtype=np.float64)


def sees_all(camera: CameraModel, pts_mm: NDArray[Any], margin_frac: float = 0.02) -> bool:
    """Whether every point projects inside the frame, margin_frac of the width from the edge."""
    if not bool(camera.in_front_and_valid(pts_mm).all()):
        return False
    px = camera.project(pts_mm)
    w, h = camera.resolution
    m = margin_frac * w
    return bool(np.all((px[:, 0] >= m) & (px[:, 0] <= w - 1 - m) & (px[:, 1] >= m) & (px[:, 1] <= h - 1 - m)))


def random_camera(rng: random.Random, resolution: Sequence[int], profile: TableProfile,
                  lens: dict[str, Any], height: tuple[float, float] = (600.0, 1200.0),
                  tilt: tuple[float, float] = (0.0, 15.0), yaw: tuple[float, float] = (0.0, 360.0),
                  tries: int = 80) -> dict[str, Any]:
    """A camera pose in the given ranges that sees the play area and all markers; if no
    sampled pose does, the highest-allowed camera is raised until it does."""
    res = (int(resolution[0]), int(resolution[1]))
    pts = must_see(profile)
    bx0, by0, bx1, by1 = marker_bounds(profile)
    cx, cy = (bx0 + bx1) / 2, (by0 + by1) / 2
    span = max(bx1 - bx0, by1 - by0)
    dist = tuple(float(v) for v in lens.get("dist", [0.0] * 5))
    best: dict[str, Any] | None = None
    for i in range(tries):
        hh, tt, td, yy = rng.uniform(*height), rng.uniform(*tilt), rng.uniform(0, 360), rng.uniform(*yaw)
        tx, ty = cx + rng.uniform(-0.06, 0.06) * span, cy + rng.uniform(-0.06, 0.06) * span
        pose: dict[str, Any] = {"height_mm": hh, "tilt_deg": tt, "tilt_dir_deg": td, "yaw_deg": yy,
                                "target_mm": [tx, ty]}
        cam = CameraModel(res, float(lens["hfov_deg"]), dist, hh, tt, td, yy, (tx, ty))
        if sees_all(cam, pts):
            return pose
        if best is None:
            best = pose
    assert best is not None
    pose = dict(best)
    pose["target_mm"] = [cx, cy]
    hgt = float(height[1])
    for _ in range(60):
        cam = CameraModel(res, float(lens["hfov_deg"]), dist, hgt, float(pose["tilt_deg"]),
                          float(pose["tilt_dir_deg"]), float(pose["yaw_deg"]), (cx, cy))
        if sees_all(cam, pts):
            break
        hgt *= 1.06
    pose["height_mm"] = hgt
    return pose


def as_random(rng: random.Random | np.random.Generator | int) -> random.Random:
    """Accept a random.Random, a numpy Generator (drawn from once) or a seed."""
    if isinstance(rng, random.Random):
        return rng
    if isinstance(rng, np.random.Generator):
        return random.Random(int(rng.integers(0, 2 ** 62)))
    return random.Random(int(rng))


def random_environment(rng_in: random.Random | np.random.Generator | int, resolution: Sequence[int],
                       profile: TableProfile, **options: Any) -> dict[str, Any]:
    """A full random environment (scene keys resolution, camera, lens, light, surface,
    degrade). options: height=(lo, hi) mm, tilt=(lo, hi) deg, yaw=(lo, hi) deg,
    lens_kind="standard"|"wide"|"mid"|"any", and camera=/lens=/light=/surface=/degrade=
    dicts whose keys override the random ones."""
    rng = as_random(rng_in)
    res = (int(resolution[0]), int(resolution[1]))
    bounds = marker_bounds(profile)
    lens = options.get("lens")
    if not (isinstance(lens, dict) and "hfov_deg" in lens):
        lens = _merge(random_lens(rng, res, str(options.get("lens_kind", "any"))), lens)
    light = _merge(random_light(rng, bounds), options.get("light"))
    surface = _merge(random_surface(rng, bounds), options.get("surface"))
    degrade = _merge(random_degrade(rng), options.get("degrade"))
    cam_over = options.get("camera") or {}
    if {"height_mm", "tilt_deg", "yaw_deg"} <= set(cam_over):
        camera = dict(cam_over)
        camera.setdefault("tilt_dir_deg", 90.0)
        camera.setdefault("target_mm", [(bounds[0] + bounds[2]) / 2, (bounds[1] + bounds[3]) / 2])
    else:
        camera = _merge(random_camera(rng, res, profile, lens,
                                      _range(options.get("height"), (600.0, 1200.0)),
                                      _range(options.get("tilt"), (0.0, 15.0)),
                                      _range(options.get("yaw"), (0.0, 360.0))), cam_over)
    return {"resolution": [res[0], res[1]], "profile": profile.name, "camera": camera, "lens": lens,
            "light": light, "surface": surface, "degrade": degrade}


def easy_environment(resolution: Sequence[int], profile: TableProfile) -> dict[str, Any]:
    """A clean, neutral environment (straight down, no distortion, even light, no noise)
    for tests that check geometry rather than robustness."""
    bx0, by0, bx1, by1 = marker_bounds(profile)
    res = (int(resolution[0]), int(resolution[1]))
    lens = {"hfov_deg": 66.0, "dist": [0.0] * 5}
    pts = must_see(profile)
    hgt = 400.0
    for _ in range(80):
        cam = CameraModel(res, 66.0, (0.0,) * 5, hgt, 0.0, 90.0, 0.0, ((bx0 + bx1) / 2, (by0 + by1) / 2))
        if sees_all(cam, pts):
            break
        hgt *= 1.05
    return {"resolution": [res[0], res[1]], "profile": profile.name,
            "camera": {"height_mm": hgt, "tilt_deg": 0.0, "tilt_dir_deg": 90.0, "yaw_deg": 0.0,
                       "target_mm": [(bx0 + bx1) / 2, (by0 + by1) / 2]},
            "lens": lens,
            "light": {"kelvin": 5500, "stops": 0.0, "awb": 1.0, "ambient": 1.0, "vignette": 0.0},
            "surface": {"kind": "mat", "tone": "dark", "colour": [60, 62, 64], "seed": 1},
            "degrade": {"noise": 0.0, "jpeg_quality": None}}


