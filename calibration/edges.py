"""Marker corners from their edges: each outer edge's 50% crossing (in linear light),
sampled along the side, undistorted, fitted with a line; adjacent lines meet at the
corner. Blur, defocus and JPEG move a corner detector's answer inwards by a fraction of
the blur; they barely move an edge's mid-level crossing, and twenty-odd samples per
side average the noise away."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.profile import Lens

FloatArray = NDArray[np.float64]
SAMPLES_PER_SIDE = 21
GAMMA = 2.2                # camera frames are gamma encoded; edges are symmetric in linear light
_LIN = ((np.arange(256) / 255.0) ** GAMMA).astype(np.float32)


def linear_grey(image: NDArray[np.uint8]) -> NDArray[np.float32]:
    """Grey in linear light (0..1), where a blurred edge is symmetric about its middle."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return np.asarray(_LIN[gray], dtype=np.float32)


def _sample(lin: NDArray[np.float32], pts: FloatArray, origin: tuple[int, int] = (0, 0)) -> FloatArray:
    """Bilinear samples at frame points from `lin`, a window whose top-left pixel is the
    frame's `origin`. The whole-pixel shift is taken after rounding to float32, where it
    is exact, so a window samples bit for bit what the whole frame would."""
    mx = pts[..., 0].astype(np.float32) - np.float32(origin[0])
    my = pts[..., 1].astype(np.float32) - np.float32(origin[1])
    return np.asarray(cv2.remap(lin, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE),
                      dtype=np.float64)


def edge_points(lin: NDArray[np.float32], corners: FloatArray,
                origin: tuple[int, int] = (0, 0)) -> list[FloatArray]:
    """Per side (TL-TR, TR-BR, BR-BL, BL-TL), the image points where the outer edge
    crosses halfway between the quiet zone's white and the border's black (`lin` may be
    a window of the frame with its top-left pixel at `origin`)."""
    centre = corners.mean(axis=0)
    side = float(np.mean(np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)))
    module = side / 6.0
    half = max(2.0, 0.8 * module)
    ts = np.linspace(-half, half, max(16, int(2 * half / 0.15)))     # + = outwards
    fs = np.linspace(0.12, 0.88, SAMPLES_PER_SIDE)
    bases = np.empty((4, len(fs), 2))
    normals = np.empty((4, 2))
    for i in range(4):
        a, b = corners[i], corners[(i + 1) % 4]
        d = b - a
        n = np.array([d[1], -d[0]]) / max(float(np.linalg.norm(d)), 1e-9)
        normals[i] = -n if np.dot(n, a - centre) < 0 else n
        bases[i] = a[None, :] + fs[:, None] * d[None, :]
    # all four sides' profiles in one pass: rows are (side, sample), columns steps along ts
    grid = bases[:, :, None, :] + ts[None, None, :, None] * normals[:, None, None, :]
    prof = _sample(lin, grid.reshape(4 * len(fs), len(ts), 2), origin)
    q = max(2, len(ts) // 5)
    lo = prof[:, :q].mean(axis=1, keepdims=True)              # inside: black border
    hi = prof[:, -q:].mean(axis=1, keepdims=True)             # outside: white quiet zone
    contrast = (hi - lo).ravel()
    p = (prof - lo) / np.maximum(hi - lo, 1e-6)
    rising = (p[:, :-1] < 0.5) & (p[:, 1:] >= 0.5)
    # per sample, the rising crossing nearest the corner line (first one on a tie)
    j = np.argmin(np.where(rising, np.abs(ts[:-1])[None, :], np.inf), axis=1)
    ok = (rising.any(axis=1) & (contrast >= 0.05)).reshape(4, len(fs))
    rows = np.arange(len(p))
    pj, pj1 = p[rows, j], p[rows, j + 1]
    t = (ts[j] + (0.5 - pj) / np.maximum(pj1 - pj, 1e-9) * (ts[j + 1] - ts[j])).reshape(4, len(fs))
    return [np.asarray(bases[i][ok[i]] + t[i][ok[i], None] * normals[i][None, :],
                       dtype=np.float64).reshape(-1, 2) for i in range(4)]


def _fit_line(pts: FloatArray) -> tuple[FloatArray, FloatArray] | None:
    """Total least squares line (point, unit normal) with one pass of outlier rejection."""
    if len(pts) < 4:
        return None
    for _ in range(2):
        c = pts.mean(axis=0)
        _, _, vt = np.linalg.svd(pts - c)
        normal = vt[1]
        r = np.abs((pts - c) @ normal)
        keep = r <= max(3.0 * float(np.median(r)), 0.05)
        if keep.all() or keep.sum() < 4:
            break
        pts = pts[keep]
    return c, normal


def _intersect(l1: tuple[FloatArray, FloatArray], l2: tuple[FloatArray, FloatArray]) -> FloatArray | None:
    (c1, n1), (c2, n2) = l1, l2
    m = np.array([n1, n2])
    if abs(float(np.linalg.det(m))) < 1e-6:
        return None
    return np.asarray(np.linalg.solve(m, np.array([n1 @ c1, n2 @ c2])), dtype=np.float64)


def refine_corners(lin: NDArray[np.float32], corners: FloatArray, lens: Lens | None) -> FloatArray | None:
    """The marker's 4 outer corners in IDEAL (undistorted) pixels from its edge lines,
    or None when an edge could not be measured (the caller keeps the detector's corners)."""
    return _corners_from_sides(edge_points(lin, corners), corners, lens)


def sample_window(corners: FloatArray, frame_shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    """(x0, y0, x1, y1): every pixel edge_points reads for this marker, clipped to the
    frame (clipping keeps the frame's own replicated border)."""
    h, w = frame_shape[:2]
    side = float(np.mean(np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)))
    grow = max(2.0, 0.8 * side / 6.0) + 3.0      # edge_points' profile half-length + interpolation
    lo = corners.min(axis=0) - grow
    hi = corners.max(axis=0) + grow
    x0 = int(min(max(0, np.floor(lo[0])), w - 1))
    y0 = int(min(max(0, np.floor(lo[1])), h - 1))
    x1 = int(max(min(w, np.ceil(hi[0]) + 1), x0 + 1))
    y1 = int(max(min(h, np.ceil(hi[1]) + 1), y0 + 1))
    return x0, y0, x1, y1


def refine_marker(image: NDArray[np.uint8], corners: FloatArray, lens: Lens | None) -> FloatArray | None:
    """refine_corners on the marker's own window: linear light for a few thousand pixels
    instead of the whole frame (11 ms at 2304x1296 on the dev machine, per fit)."""
    if not np.all(np.isfinite(corners)):
        return None
    x0, y0, x1, y1 = sample_window(corners, image.shape)
    lin = linear_grey(np.ascontiguousarray(image[y0:y1, x0:x1]))
    return _corners_from_sides(edge_points(lin, corners, (x0, y0)), corners, lens)


def _corners_from_sides(sides: list[FloatArray], corners: FloatArray, lens: Lens | None) -> FloatArray | None:
    from calibration.geometry import undistort_points   # late: geometry calls this module

    if any(len(s) < 4 for s in sides):
        return None
    # one undistortion for every edge point and the corners (a Newton solve per call)
    ideal_all = undistort_points(np.vstack([*sides, corners]), lens)
    ends = np.cumsum([len(s) for s in sides])
    lines = []
    for s in np.split(ideal_all[:ends[-1]], ends[:-1]):
        line = _fit_line(s)
        if line is None:
            return None
        lines.append(line)
    out = []
    for i in range(4):
        p = _intersect(lines[(i - 1) % 4], lines[i])
        if p is None:
            return None
        out.append(p)
    refined = np.array(out)
    # a refinement that moved a corner by more than a module is a failure, not a fix
    ideal = ideal_all[ends[-1]:]
    side = float(np.mean(np.linalg.norm(ideal - np.roll(ideal, -1, axis=0), axis=1)))
    if float(np.max(np.linalg.norm(refined - ideal, axis=1))) > side / 6.0:
        return None
    return refined
