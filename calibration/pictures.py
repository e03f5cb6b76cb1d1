"""Pictures a person checks by eye: the play area outline on the camera frame, and the
rectified table with a millimetre grid (a grid off by a few mm is visible at once)."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.geometry import TableFit, rectify
from calibration.profile import TableProfile

FloatArray = NDArray[np.float64]


def _edge_points(x: float, y: float, w: float, h: float, n: int = 40) -> FloatArray:
    t = np.linspace(0.0, 1.0, n)
    return np.vstack([np.stack([x + t * w, np.full(n, y)], 1), np.stack([np.full(n, x + w), y + t * h], 1),
                      np.stack([x + w - t * w, np.full(n, y + h)], 1), np.stack([np.full(n, x), y + h - t * h], 1)])


def outline_picture(image: NDArray[np.uint8], fit: TableFit, profile: TableProfile) -> NDArray[np.uint8]:
    """The camera frame with the play area (curved by the lens, as the camera sees it)
    and each marker's expected outline drawn on it."""
    out = np.asarray(image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR), dtype=np.uint8)
    thick = max(2, int(round(max(out.shape[:2]) / 600)))
    (x, y), (w, h) = profile.area_origin_mm, profile.area_size_mm
    pts = fit.to_image(_edge_points(x, y, w, h))
    cv2.polylines(out, [np.round(pts).astype(np.int32).reshape(-1, 1, 2)], True, (0, 200, 0), thick, cv2.LINE_AA)
    for m in profile.markers:
        c = fit.to_image(np.array(m.corners_mm()))
        colour = (0, 200, 0) if m.id in fit.markers_seen else (0, 0, 255)
        cv2.polylines(out, [np.round(c).astype(np.int32).reshape(-1, 1, 2)], True, colour, thick, cv2.LINE_AA)
        cv2.putText(out, str(m.id), tuple(int(v) for v in c[0]), cv2.FONT_HERSHEY_SIMPLEX,
                    thick * 0.6, colour, thick, cv2.LINE_AA)
    return out


def grid_picture(image: NDArray[np.uint8], fit: TableFit, profile: TableProfile,
                 px_per_mm: float = 2.0, grid_mm: float = 10.0, margin_mm: float = 10.0
                 ) -> NDArray[np.uint8]:
    """The rectified play area with thin lines every grid_mm, thick every 5 grid_mm,
    and the area outline: the lines must fall on the table's own straight edges."""
    (x, y), (w, h) = profile.area_origin_mm, profile.area_size_mm
    origin = (x - margin_mm, y - margin_mm)
    size = (w + 2 * margin_mm, h + 2 * margin_mm)
    top = rectify(image, fit, origin, size, px_per_mm)
    if top.ndim == 2:
        top = np.asarray(cv2.cvtColor(top, cv2.COLOR_GRAY2BGR), dtype=np.uint8)

    def px(v: float, o: float) -> int:
        return int(round((v - o) * px_per_mm - 0.5))

    k = 0
    gx = x
    while gx <= x + w + 1e-6:
        thick = 2 if k % 5 == 0 else 1
        cv2.line(top, (px(gx, origin[0]), px(y, origin[1])), (px(gx, origin[0]), px(y + h, origin[1])),
                 (255, 0, 255) if thick == 2 else (200, 120, 200), thick)
        gx += grid_mm
        k += 1
    k = 0
    gy = y
    while gy <= y + h + 1e-6:
        thick = 2 if k % 5 == 0 else 1
        cv2.line(top, (px(x, origin[0]), px(gy, origin[1])), (px(x + w, origin[0]), px(gy, origin[1])),
                 (255, 0, 255) if thick == 2 else (200, 120, 200), thick)
        gy += grid_mm
        k += 1
    cv2.rectangle(top, (px(x, origin[0]), px(y, origin[1])), (px(x + w, origin[0]), px(y + h, origin[1])),
                  (0, 200, 0), 2)
    return np.asarray(top, dtype=np.uint8)
