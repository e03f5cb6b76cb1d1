"""Tiny seeded renders for the calibration tests: a top-down table with true-size
markers, and a plane seen through a pinhole camera with distortion (one remap)."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.geometry import undistort_points
from calibration.profile import Lens, TableProfile


def table_image(profile: TableProfile, px_per_mm: float, margin_mm: float = 40.0,
                surface: tuple[int, int, int] = (150, 160, 170),
                patches: list[tuple[tuple[float, float, float, float], tuple[int, int, int]]] | None = None,
                ) -> tuple[NDArray[np.uint8], tuple[float, float]]:
    """Top-down BGR image of the table; returns (image, origin_mm of its top-left pixel edge)."""
    xs = [m.centre_mm[0] for m in profile.markers]
    ys = [m.centre_mm[1] for m in profile.markers]
    x0, y0 = min(xs) - margin_mm, min(ys) - margin_mm
    w = int(round((max(xs) - min(xs) + 2 * margin_mm) * px_per_mm))
    h = int(round((max(ys) - min(ys) + 2 * margin_mm) * px_per_mm))
    img = np.zeros((h, w, 3), np.uint8)
    img[:] = surface
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)

    def px(x: float, y: float) -> tuple[int, int]:
        return int(round((x - x0) * px_per_mm)), int(round((y - y0) * px_per_mm))

    for rect, colour in patches or []:
        cv2.rectangle(img, px(rect[0], rect[1]), px(rect[2], rect[3]), colour, -1)
    for m in profile.markers:
        cx, cy = m.centre_mm
        q = m.size_mm * 0.75
        cv2.rectangle(img, px(cx - q, cy - q), px(cx + q, cy + q), (255, 255, 255), -1)
        side = int(round(m.size_mm * px_per_mm))
        mk = cv2.aruco.generateImageMarker(d, m.id, 6 * 40)
        mk = cv2.resize(mk, (side, side), interpolation=cv2.INTER_AREA)
        a = px(cx - m.size_mm / 2, cy - m.size_mm / 2)
        img[a[1]:a[1] + side, a[0]:a[0] + side] = mk[:, :, None]
    return img, (x0, y0)


def view_plane(plane: NDArray[np.uint8], plane_px_per_mm: float, plane_origin_mm: tuple[float, float],
               k: NDArray[np.float64], dist: NDArray[np.float64], rvec: NDArray[np.float64],
               tvec: NDArray[np.float64], size: tuple[int, int], fill: int = 90,
               supersample: int = 2) -> NDArray[np.uint8]:
    """Camera image of a flat picture lying at z=0 (x right, y down in mm) seen from the
    pose (rvec, tvec: world -> camera), through K and distortion; supersampled and
    area-averaged so edges are not aliased (corner detectors see real-camera edges)."""
    w, h = size
    ss = supersample
    lens = Lens((w, h), tuple(tuple(float(v) for v in r) for r in k), tuple(float(v) for v in dist))
    # rays on a coarse grid (the distortion is smooth), interpolated to the fine grid
    step = 4
    gx, gy = np.meshgrid(np.arange(0, w + step, step, dtype=np.float64), np.arange(0, h + step, step, dtype=np.float64))
    ideal = undistort_points(np.stack([gx.ravel(), gy.ravel()], 1), lens)
    rays = (np.hstack([ideal, np.ones((len(ideal), 1))]) @ np.linalg.inv(k).T)[:, :2]
    rays = rays.reshape(gx.shape[0], gx.shape[1], 2).astype(np.float32)
    fx, fy = np.meshgrid((np.arange(w * ss) + 0.5) / ss - 0.5, (np.arange(h * ss) + 0.5) / ss - 0.5)
    rx = cv2.remap(rays[:, :, 0], (fx / step).astype(np.float32), (fy / step).astype(np.float32), cv2.INTER_CUBIC)
    ry = cv2.remap(rays[:, :, 1], (fx / step).astype(np.float32), (fy / step).astype(np.float32), cv2.INTER_CUBIC)
    r, _ = cv2.Rodrigues(rvec)
    d_w = np.stack([rx.ravel(), ry.ravel(), np.ones(rx.size)], 1) @ r      # R^T d, as rows
    c_w = -(r.T @ np.asarray(tvec, np.float64).reshape(3))
    t = -c_w[2] / d_w[:, 2]
    p = c_w[None, :] + t[:, None] * d_w
    u = ((p[:, 0] - plane_origin_mm[0]) * plane_px_per_mm - 0.5).astype(np.float32).reshape(h * ss, w * ss)
    v = ((p[:, 1] - plane_origin_mm[1]) * plane_px_per_mm - 0.5).astype(np.float32).reshape(h * ss, w * ss)
    u[(t <= 0).reshape(h * ss, w * ss)] = -1e6
    # area-filter the plane down to about the camera's sampling first, so edges are not
    # aliased (the plane is drawn much finer than the camera sees it)
    cam_px_per_mm = float(k[0, 0]) / max(float(np.asarray(tvec).reshape(3)[2]), 1.0) * ss
    sigma = 0.5 * plane_px_per_mm / max(cam_px_per_mm, 1e-6)
    if sigma > 0.5:
        plane = cv2.GaussianBlur(plane, (0, 0), sigma)
    big = cv2.remap(plane, u, v, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                    borderValue=(fill, fill, fill))
    return np.asarray(cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA))


def look_at(centre_mm: tuple[float, float], height_mm: float, tilt_deg: float = 0.0,
            yaw_deg: float = 0.0, tilt_axis_deg: float = 0.0) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(rvec, tvec) of a camera height_mm above the table (world z points down into the
    table, so the untilted camera has R = I) whose optical axis meets centre_mm."""
    rz = cv2.Rodrigues(np.array([0.0, 0.0, np.deg2rad(yaw_deg)]))[0]
    a = np.deg2rad(tilt_axis_deg)
    axis = np.array([np.cos(a), np.sin(a), 0.0]) * np.deg2rad(tilt_deg)
    rt = cv2.Rodrigues(axis)[0]
    r = rt @ rz
    optical = r.T @ np.array([0.0, 0.0, 1.0])
    c = np.array([centre_mm[0], centre_mm[1], 0.0]) - optical * (height_mm / optical[2])
    tvec = -r @ c
    return cv2.Rodrigues(r)[0].ravel(), tvec
