"""Table calibration checks: which markers are missing, blurred or printed at the wrong
scale, how well the frame fits, and whether the camera moved since the last fit.

These are the usual reasons a club gives up on camera referees (grids a few mm off,
a nudged camera), so each is measured and reported as one plain line."""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.geometry import (TableFit, _lens_at_frame_size, detect_markers, fit_from_markers,
                                  locate_table)
from calibration.profile import TableProfile

FloatArray = NDArray[np.float64]
SCALE_TOLERANCE = 0.02    # a print scaled by more than 2% ("fit to page") is flagged
BLUR_MODULES = 0.45       # edge rise (10-90%) wider than this many marker modules = blurred
RESIDUAL_WARN_MM = 1.0
MIN_BLUR_PX = 2.0          # an edge is never sharper than ~1.5 px after resampling


@dataclass(frozen=True)
class MarkerCheck:
    marker_id: int
    side_px: float              # mean side length in the image
    edge_rise_px: float         # 10-90% width of the marker's outer edge
    blurred: bool
    scale: float | None         # measured size / profile size (None: not measurable)


@dataclass
class TableReport:
    fit: TableFit
    markers: list[MarkerCheck]
    missing: list[int]
    warnings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.warnings


def _bilinear(gray: NDArray[np.float32], pts: FloatArray) -> FloatArray:
    mx = pts[:, 0].astype(np.float32).reshape(-1, 1)
    my = pts[:, 1].astype(np.float32).reshape(-1, 1)
    return np.asarray(cv2.remap(gray, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE),
                      dtype=np.float64).ravel()


def _edges(gray: NDArray[np.float32], corners: FloatArray) -> tuple[list[float], list[FloatArray]]:
    """Profiles across the marker's four outer edges (white quiet zone -> black border):
    their 10-90% rise widths, and per side the sub-pixel 50% crossing points, which
    blur does not move (unlike corner detectors, which pull a blurred corner inwards)."""
    centre = corners.mean(axis=0)
    side = float(np.mean(np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)))
    module = side / 6.0
    rises: list[float] = []
    sides: list[FloatArray] = []
    ts = np.arange(-0.9 * module, 0.6 * module, 0.1)
    for i in range(4):
        a, b = corners[i], corners[(i + 1) % 4]
        along = (b - a) / max(float(np.linalg.norm(b - a)), 1e-9)
        normal = np.array([-along[1], along[0]])
        if np.dot(normal, centre - a) < 0:
            normal = -normal                     # pointing into the marker
        pts: list[FloatArray] = []
        for f in np.linspace(0.2, 0.8, 9):
            base = a + f * (b - a)
            prof = _bilinear(gray, base[None, :] + ts[:, None] * normal[None, :])
            q = max(1, len(prof) // 5)
            hi, lo = float(prof[:q].mean()), float(prof[-q:].mean())
            if hi - lo < 20:
                continue
            p = (prof - lo) / (hi - lo)
            below90, below50, below10 = (np.nonzero(p < v)[0] for v in (0.9, 0.5, 0.1))
            if len(below90) == 0 or len(below10) == 0 or len(below50) == 0:
                continue
            rises.append(float(ts[below10[0]] - ts[below90[0]]))
            k = int(below50[0])
            if k == 0:
                continue
            t50 = ts[k - 1] + (p[k - 1] - 0.5) / max(p[k - 1] - p[k], 1e-9) * (ts[k] - ts[k - 1])
            pts.append(base + t50 * normal)
        sides.append(np.array(pts, dtype=np.float64).reshape(-1, 2))
    return rises, sides


def edge_rise_px(gray: NDArray[np.float32], corners: FloatArray) -> float:
    """Median 10-90% rise width of the marker's outer edge; a sharp print is ~1-2 px."""
    rises, _ = _edges(gray, corners)
    return float(np.median(rises)) if rises else float("inf")


def _opposite_distance(a: FloatArray, b: FloatArray) -> float | None:
    """Mean distance of the points of b from the line fitted to a (both in mm)."""
    if len(a) < 3 or len(b) < 3:
        return None
    c = a.mean(axis=0)
    _, _, vt = np.linalg.svd(a - c)
    normal = vt[1]
    return float(abs(np.mean((b - c) @ normal)))


def marker_scales(found: dict[int, FloatArray], profile: TableProfile,
                  gray: NDArray[np.float32] | None = None, lens: object = None) -> dict[int, float]:
    """Each marker's printed size relative to the profile, measured through a homography
    fitted to the marker centres only (needs 4 markers: with fewer the scale and the
    distance cannot be told apart). With the image, the size is the distance between
    opposite edges (50% crossings); else between the detected corners."""
    from calibration.geometry import undistort_points

    known = [(i, c) for i, c in sorted(found.items()) if profile.marker(i) is not None]
    if len(known) < 4:
        return {}
    ideal = {i: undistort_points(c, lens) for i, c in known}  # type: ignore[arg-type]
    src = np.array([ideal[i].mean(axis=0) for i, _ in known], dtype=np.float64)
    dst = np.array([profile.marker(i).centre_mm for i, _ in known], dtype=np.float64)  # type: ignore[union-attr]
    h, _ = cv2.findHomography(src, dst, 0)
    if h is None:
        return {}

    def to_mm(p: FloatArray) -> FloatArray:
        q = undistort_points(p, lens)  # type: ignore[arg-type]
        return np.asarray(cv2.perspectiveTransform(q.reshape(-1, 1, 2), h).reshape(-1, 2), dtype=np.float64)

    out = {}
    for i, c in known:
        size = profile.marker(i).size_mm  # type: ignore[union-attr]
        measured: float | None = None
        if gray is not None:
            _, sides = _edges(gray, c)
            if len(sides) == 4:
                d = [_opposite_distance(to_mm(sides[k]), to_mm(sides[k + 2])) for k in (0, 1)]
                good = [v for v in d if v is not None]
                if good:
                    measured = float(np.mean(good))
        if measured is None:
            mm = to_mm(c)
            measured = float(np.mean(np.linalg.norm(mm - np.roll(mm, -1, axis=0), axis=1)))
        out[i] = measured / size
    return out


def check_table(image: NDArray[np.uint8], profile: TableProfile) -> TableReport:
    """Fit the table and say, one line each, what is wrong with the markers and the fit."""
    found = detect_markers(image, profile.dictionary, expected=[m.id for m in profile.markers])
    fit = locate_table(image, profile)
    gray = (image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)).astype(np.float32)
    scales = marker_scales(found, profile, gray, profile.lens)
    checks: list[MarkerCheck] = []
    warnings: list[str] = []
    missing = [m.id for m in profile.markers if m.id not in found]
    for mid in missing:
        m = profile.marker(mid)
        assert m is not None
        warnings.append(f"marker {mid} not found; uncover it or check it lies at "
                        f"{m.centre_mm[0]:g},{m.centre_mm[1]:g} mm")
    for mid, c in sorted(found.items()):
        m = profile.marker(mid)
        if m is None:
            continue
        side = float(np.mean(np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1)))
        rise = edge_rise_px(gray, c)
        blurred = rise > max(MIN_BLUR_PX, BLUR_MODULES * side / 6.0)
        sc = scales.get(mid)
        checks.append(MarkerCheck(mid, side, rise, blurred, sc))
        if blurred:
            warnings.append(f"marker {mid} is blurred (edge {rise:.1f} px wide); "
                            "focus the camera or hold it still")
        # small markers are measured less precisely: allow 0.6 px on a side as well
        if sc is not None and abs(sc - 1.0) > max(SCALE_TOLERANCE, 0.6 / side):
            warnings.append(f"marker {mid} measures {sc * m.size_mm:.1f} mm, not {m.size_mm:g} mm; "
                            "print the sheet at 100% (no 'fit to page') and check the 100 mm ruler")
    if fit.source == "markers" and fit.rms_mm > RESIDUAL_WARN_MM:
        warnings.append(f"table fit error {fit.rms_mm:.2f} mm; check the markers lie flat "
                        "at their profile positions")
    if fit.source == "markers" and len(fit.markers_seen) < 2:
        warnings.append("only one marker seen: the frame rests on one small square; "
                        "uncover the others")
    return TableReport(fit, checks, missing, warnings)


def table_shift_mm(previous: TableFit, new: TableFit, points_mm: FloatArray) -> float:
    """How far (mm, max over the points) a table point appears to move between two fits:
    seen where `previous` put it in the image, read back through `new`."""
    px = previous.to_image(points_mm)
    back = new.to_table(px)
    return float(np.max(np.linalg.norm(back - points_mm, axis=1)))


def camera_moved(previous: TableFit, new: TableFit, tolerance_mm: float = 1.5,
                 area: tuple[tuple[float, float], tuple[float, float]] | None = None) -> bool:
    """True when the table as seen now differs from the previous fit by more than
    tolerance_mm anywhere on the play area (its corners and centre): the device loop
    then re-fits, and asks for a new fixed frame when markers are covered."""
    if area is None:
        pts = np.array([[0, 0], [400, 0], [400, 400], [0, 400], [200, 200]], dtype=np.float64)
    else:
        (x, y), (w, h) = area
        pts = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h], [x + w / 2, y + h / 2]],
                       dtype=np.float64)
    return table_shift_mm(previous, new, pts) > tolerance_mm


def refit_if_moved(image: NDArray[np.uint8], profile: TableProfile, previous: TableFit | None,
                   tolerance_mm: float = 1.5) -> tuple[TableFit, bool]:
    """Re-find the markers in this frame; returns (fit to use, moved?). With no marker
    seen the previous fit is kept (hands often cover the corners mid-move)."""
    found = (detect_markers(image, profile.dictionary, expected=[m.id for m in profile.markers])
             if profile.markers else {})
    if not any(profile.marker(i) is not None for i in found):
        if previous is not None:
            return previous, False
        return locate_table(image, profile), False
    new = fit_from_markers(found, _lens_at_frame_size(profile, image), image)
    if previous is None:
        return new, False
    area = (profile.area_origin_mm, profile.area_size_mm)
    return new, camera_moved(previous, new, tolerance_mm, area)
