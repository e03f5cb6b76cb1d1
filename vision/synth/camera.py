"""The synthetic camera: a pinhole on a pose above the table, with OpenCV lens distortion.

World frame = the table frame (mm, x right, y down) with z pointing INTO the table, so
the table is z = 0 and a point h mm above it has z = -h. Camera frame is OpenCV's (x
right, y down, z forward). With tilt 0 and yaw 0 the image is aligned with the table.

`render_plane` is the only resampling of a frame: for every camera pixel it removes the
lens distortion (Newton on OpenCV's model), intersects the ray with a plane parallel to
the table and samples the canvas there (cv2.remap). The ray map is computed on a coarse
grid and interpolated bicubically (it is smooth), which keeps 12 MP frames fast.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

from vision.synth.canvas import TableCanvas

F32 = NDArray[Any]   # float32 by convention (the cv2 stubs lose dtypes)
F64 = NDArray[Any]   # float64 by convention

MAP_STEP = 4          # camera pixels between exactly computed ray-map samples


def distort_normalized(x: F64, y: F64, dist: Sequence[float] | F64) -> tuple[F64, F64]:
    """OpenCV's 5-coefficient model on normalized (z = 1) coordinates."""
    k1, k2, p1, p2, k3 = (list(dist) + [0.0] * 5)[:5]
    r2 = x * x + y * y
    radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
    xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    return xd, yd


def radial_limit(dist: Sequence[float] | F64, r_cap: float = 4.0) -> float:
    """Largest undistorted radius (tan of the ray angle) up to which the radial model is
    still monotonic; beyond it OpenCV's model folds back and nothing is imaged."""
    k1, k2, _, _, k3 = (list(dist) + [0.0] * 5)[:5]
    r = np.linspace(0, r_cap, 4001)
    rd = r * (1 + k1 * r ** 2 + k2 * r ** 4 + k3 * r ** 6)
    d = np.diff(rd)
    bad = np.nonzero(d <= 0)[0]
    return float(r[bad[0]]) if len(bad) else r_cap


def undistort_normalized(xd: F64, yd: F64, dist: Sequence[float] | F64, iters: int = 6) -> tuple[F64, F64]:
    """Invert distort_normalized by Newton's method (numerical Jacobian): robust for the
    strong barrel of 120-degree lenses, where OpenCV's fixed-point iteration drifts."""
    if not any(abs(float(v)) > 0 for v in dist):
        return xd.copy(), yd.copy()
    d5 = [float(v) for v in (list(dist) + [0.0] * 5)[:5]]
    limit = radial_limit(d5)
    # start from the exact radial-only inverse (bisection on the monotonic branch), then
    # let Newton add the small tangential part
    rd = np.sqrt(xd * xd + yd * yd)
    lo = np.zeros_like(rd)
    hi = np.full_like(rd, limit)
    k1, k2, k3 = d5[0], d5[1], d5[4]
    for _ in range(14):         # bracket the root on the monotonic branch...
        mid = 0.5 * (lo + hi)
        m2 = mid * mid
        below = mid * (1 + m2 * (k1 + m2 * (k2 + m2 * k3))) < rd
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    ru = 0.5 * (lo + hi)
    for _ in range(4):          # ...then polish it with Newton (quadratic convergence)
        r2 = ru * ru
        f = ru * (1 + r2 * (k1 + r2 * (k2 + r2 * k3))) - rd
        df = 1 + r2 * (3 * k1 + r2 * (5 * k2 + r2 * 7 * k3))
        ru = np.clip(ru - f / np.maximum(df, 1e-6), lo, hi)
    g = np.where(rd > 1e-12, ru / np.maximum(rd, 1e-12), 1.0)
    x, y = xd * g, yd * g
    if d5[2] == 0.0 and d5[3] == 0.0:
        return x, y
    eps = 1e-6
    for _ in range(iters):
        fx, fy = distort_normalized(x, y, dist)
        ex, ey = fx - xd, fy - yd
        ax, ay = distort_normalized(x + eps, y, dist)
        bx, by = distort_normalized(x, y + eps, dist)
        j11, j21 = (ax - fx) / eps, (ay - fy) / eps
        j12, j22 = (bx - fx) / eps, (by - fy) / eps
        det = j11 * j22 - j12 * j21
        det = np.where(np.abs(det) < 1e-12, 1e-12, det)
        dx = (j22 * ex - j12 * ey) / det
        dy = (-j21 * ex + j11 * ey) / det
        x = x - dx
        y = y - dy
        r = np.sqrt(x * x + y * y)
        over = r > limit * 0.999
        if np.any(over):
            s = np.where(over, limit * 0.999 / np.maximum(r, 1e-12), 1.0)
            x, y = x * s, y * s
        # 1e-9 in normalized units is ~1e-6 px; the numerical Jacobian cannot do better
        if float(np.max(np.abs(dx)) + np.max(np.abs(dy))) < 1e-9:
            break
    return x, y


@dataclass
class CameraModel:
    """Camera pose above the table and its lens.

    height_mm: lens centre above the table; target_mm: the table point on the optical
    axis; tilt_deg: angle between the optical axis and straight down; tilt_dir_deg: the
    table-frame azimuth (0 = +x, 90 = +y) the camera looks TOWARD when tilted; yaw_deg:
    turn of the image about the optical axis (0 = image x as close to table x as possible).
    hfov_deg is the true horizontal field of view of the frame (distortion included).
    """

    resolution: tuple[int, int] = (2304, 1296)
    hfov_deg: float = 66.0
    dist: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0)
    height_mm: float = 800.0
    tilt_deg: float = 0.0
    tilt_dir_deg: float = 90.0
    yaw_deg: float = 0.0
    target_mm: tuple[float, float] = (0.0, 0.0)
    _cache: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    # ----- intrinsics --------------------------------------------------------------
    @property
    def K(self) -> F64:
        if "K" not in self._cache:
            self._cache["K"] = self._intrinsics()
        return np.array(self._cache["K"], dtype=np.float64)

    def _intrinsics(self) -> F64:
        w, h = self.resolution
        half = math.tan(math.radians(self.hfov_deg) / 2)
        d = tuple(self.dist) + (0.0,) * 5
        lim = radial_limit(d)
        ru = min(half, lim * 0.999)
        xd, _ = distort_normalized(np.array([ru]), np.array([0.0]), (d[0], d[1], 0.0, 0.0, d[4]))
        f = (w / 2.0) / float(xd[0])
        return np.array([[f, 0, (w - 1) / 2.0], [0, f, (h - 1) / 2.0], [0, 0, 1]], dtype=np.float64)

    @property
    def dist_array(self) -> F64:
        return np.array((tuple(self.dist) + (0.0,) * 5)[:5], dtype=np.float64)

    # ----- extrinsics --------------------------------------------------------------
    @property
    def centre(self) -> F64:
        t = math.radians(self.tilt_deg)
        a = math.radians(self.tilt_dir_deg)
        off = self.height_mm * math.tan(t)
        return np.array([self.target_mm[0] - off * math.cos(a),
                         self.target_mm[1] - off * math.sin(a), -self.height_mm], dtype=np.float64)

    @property
    def R(self) -> F64:
        """World -> camera rotation (rows: camera x, y, z axes in world coordinates)."""
        c = self.centre
        f = np.array([self.target_mm[0], self.target_mm[1], 0.0]) - c
        f /= np.linalg.norm(f)
        yaw = math.radians(self.yaw_deg)
        r0 = np.array([math.cos(yaw), math.sin(yaw), 0.0])
        r = r0 - np.dot(r0, f) * f
        if np.linalg.norm(r) < 1e-9:
            r = np.array([-math.sin(yaw), math.cos(yaw), 0.0])
            r = r - np.dot(r, f) * f
        r /= np.linalg.norm(r)
        d = np.cross(f, r)
        return np.asarray(np.stack([r, d, f]), dtype=np.float64)

    @property
    def rvec_tvec(self) -> tuple[F64, F64]:
        rot = self.R
        rvec, _ = cv2.Rodrigues(rot)
        tvec = -rot @ self.centre
        return rvec.reshape(3).astype(np.float64), tvec.astype(np.float64)

    # ----- projection --------------------------------------------------------------
    def project(self, points_mm: ArrayLike) -> F64:
        """Table points (Nx2 on the table, or Nx3 with height above the table in mm) ->
        distorted image pixels (OpenCV convention: integer = pixel centre)."""
        p = np.asarray(points_mm, dtype=np.float64)
        p = p.reshape(-1, p.shape[-1]) if p.ndim > 1 else p.reshape(1, -1)
        if len(p) == 0:
            return np.zeros((0, 2))
        obj = np.zeros((len(p), 3))
        obj[:, :2] = p[:, :2]
        if p.shape[1] >= 3:
            obj[:, 2] = -p[:, 2]
        # OpenCV's model written out (cv2.projectPoints would go through Rodrigues, which
        # rounds rotations under 1e-5 rad to none)
        cam = (self.R @ (obj - self.centre).T).T
        z = cam[:, 2]
        xd, yd = distort_normalized(cam[:, 0] / z, cam[:, 1] / z, self.dist_array)
        k = self.K
        return np.asarray(np.stack([k[0, 0] * xd + k[0, 2], k[1, 1] * yd + k[1, 2]], axis=1), dtype=np.float64)

    def in_front_and_valid(self, points_mm: ArrayLike) -> NDArray[np.bool_]:
        """Which points are in front of the camera and inside the lens model's valid cone."""
        p = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
        obj = np.hstack([p, np.zeros((len(p), 1))])
        cam = (self.R @ (obj - self.centre).T).T
        z = cam[:, 2]
        ok = z > 1e-6
        r = np.sqrt(cam[:, 0] ** 2 + cam[:, 1] ** 2) / np.where(ok, z, 1.0)
        return np.asarray(ok & (r < radial_limit(self.dist_array) * 0.999))

    def pixel_rays(self, px: F64) -> F64:
        """Distorted pixels (Nx2) -> unit-z rays in world coordinates (Nx3)."""
        k = self.K
        xd = (px[:, 0] - k[0, 2]) / k[0, 0]
        yd = (px[:, 1] - k[1, 2]) / k[1, 1]
        x, y = undistort_normalized(xd, yd, self.dist_array)
        cam = np.stack([x, y, np.ones_like(x)], axis=1)
        return np.asarray(cam @ self.R, dtype=np.float64)   # R^T applied to each row

    def pixels_to_plane(self, px: F64, plane_height_mm: float = 0.0) -> tuple[F64, NDArray[np.bool_]]:
        """Distorted pixels -> the table points (mm) their rays hit on the plane h mm up."""
        rays = self.pixel_rays(px)
        c = self.centre
        zt = -plane_height_mm
        denom = rays[:, 2]
        ok = denom > 1e-9
        t = (zt - c[2]) / np.where(ok, denom, 1.0)
        ok &= t > 0
        pts = c[None, :2] + rays[:, :2] * t[:, None]
        return pts, ok

    @property
    def map_step(self) -> int:
        """Ray-map grid spacing: 4 px, 8 px from 4K frames up (bilinear error stays
        below 0.01 canvas px on the table)."""
        return MAP_STEP if self.resolution[0] < 3000 else 2 * MAP_STEP

    def coarse_plane_grid(self, plane_height_mm: float = 0.0,
                          step: int | None = None) -> tuple[F64, NDArray[np.bool_], int]:
        """Table mm of camera pixels on a coarse grid: sample i sits at pixel
        (i + 0.5) * step - 0.5 - step, which is where cv2.resize by `step` puts source
        pixel i, so the full map is one resize and a crop (see plane_maps); the grid
        reaches beyond every edge of the frame for the bicubic kernel."""
        step = self.map_step if step is None else step
        key = f"grid{plane_height_mm}:{step}"
        if key in self._cache:
            return self._cache[key]  # type: ignore[no-any-return]
        w, h = self.resolution
        nx = int(math.ceil(w / step)) + 4
        ny = int(math.ceil(h / step)) + 4
        xs = (np.arange(nx) + 0.5) * step - 0.5 - step
        ys = (np.arange(ny) + 0.5) * step - 0.5 - step
        gx, gy = np.meshgrid(xs.astype(np.float64), ys.astype(np.float64))
        pts, ok = self.pixels_to_plane(np.stack([gx.ravel(), gy.ravel()], axis=1), plane_height_mm)
        out = (pts.reshape(ny, nx, 2), ok.reshape(ny, nx), step)
        self._cache[key] = out
        return out

    def footprint_mm(self, plane_height_mm: float = 0.0) -> tuple[F64, float]:
        """Bounding box (x0, y0, x1, y1) of what the frame sees of the table, and the
        finest sampling (camera px per mm) anywhere on it."""
        grid, ok, step = self.coarse_plane_grid(plane_height_mm)
        inner = ok[1:-1, 1:-1]
        pts = grid[1:-1, 1:-1][inner]
        if len(pts) == 0:
            return np.array([0.0, 0.0, 1.0, 1.0]), 1.0
        box = np.array([pts[:, 0].min(), pts[:, 1].min(), pts[:, 0].max(), pts[:, 1].max()])
        dx = np.linalg.norm(np.diff(grid, axis=1), axis=2)[:-1, :]
        dy = np.linalg.norm(np.diff(grid, axis=0), axis=2)[:, :-1]
        both = ok[:-1, :-1] & ok[:-1, 1:] & ok[1:, :-1]
        mm_per_px = np.minimum(dx, dy)[both]
        finest = float(step / max(float(mm_per_px.min()), 1e-6)) if len(mm_per_px) else 1.0
        return box, finest

    def plane_maps(self, canvas: TableCanvas, plane_height_mm: float = 0.0) -> tuple[F32, F32]:
        """cv2.remap maps (canvas px for every camera pixel) for a plane h mm up."""
        grid, ok, step = self.coarse_plane_grid(plane_height_mm)
        cpx = (grid - np.asarray(canvas.origin_mm)) * canvas.px_per_mm - 0.5
        cpx[~ok] = -1e6
        cx = cpx[..., 0].astype(np.float32)
        cy = cpx[..., 1].astype(np.float32)
        w, h = self.resolution
        ny, nx = cx.shape
        # bilinear: cv2.resize's bicubic is off by up to 0.4 px even on a linear ramp
        interp = cv2.INTER_LINEAR
        big = (nx * step, ny * step)
        mx = cv2.resize(cx, big, interpolation=interp)[step:step + h, step:step + w]
        my = cv2.resize(cy, big, interpolation=interp)[step:step + h, step:step + w]
        # pixels next to rays that miss the plane: push them off the canvas
        if not bool(ok.all()):
            bad = cv2.resize((~ok).astype(np.float32), big, interpolation=cv2.INTER_LINEAR)[step:step + h,
                                                                                           step:step + w] > 0
            mx[bad] = -1e6
            my[bad] = -1e6
        return np.ascontiguousarray(mx), np.ascontiguousarray(my)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready description: what a reader's calibration would ideally recover."""
        rvec, tvec = self.rvec_tvec
        return {
            "resolution": [int(self.resolution[0]), int(self.resolution[1])],
            "K": self.K.tolist(),
            "dist": self.dist_array.tolist(),
            "hfov_deg": float(self.hfov_deg),
            "pose": {"height_mm": float(self.height_mm), "tilt_deg": float(self.tilt_deg),
                     "tilt_dir_deg": float(self.tilt_dir_deg), "yaw_deg": float(self.yaw_deg),
                     "target_mm": [float(self.target_mm[0]), float(self.target_mm[1])]},
            "centre_mm": self.centre.tolist(),
            "rvec": rvec.tolist(), "tvec": tvec.tolist(),
        }


def render_plane(canvas: TableCanvas, camera: CameraModel, background: Sequence[float] = (0.08, 0.08, 0.08),
                 plane_height_mm: float = 0.0) -> F32:
    """The camera's view of the canvas (linear float BGR), one remap; rays that miss the
    canvas see `background` (the floor beyond the table)."""
    mx, my = camera.plane_maps(canvas, plane_height_mm)
    bg = tuple(float(v) for v in background[:3])
    out = cv2.remap(canvas.image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                    borderValue=(bg[0], bg[1], bg[2], 0.0))
    return np.asarray(out, dtype=np.float32)
