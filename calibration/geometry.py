"""From pixels to table millimetres: corner markers (or a fixed homography, or four
hand-given corners) give the image-to-table homography every reader works in."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any, Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.profile import Lens, TableProfile

FloatArray = NDArray[np.float64]


class TableNotFound(RuntimeError):
    """No marker seen and no fixed homography: the table frame cannot be known."""


@dataclass(frozen=True)
class TableFit:
    """The image-to-table mapping of one frame, with how well it fits."""

    image_to_table: FloatArray          # 3x3, undistorted image pixels -> table mm
    markers_seen: tuple[int, ...]
    rms_mm: float                        # residual of the marker corners, table mm
    source: str                          # "markers", "fixed" or "corners"
    lens: Lens | None = None

    @cached_property
    def table_to_image(self) -> FloatArray:
        """The inverse mapping, worked out once per fit (a reader asks for it a dozen
        times a frame) and read-only, since every caller shares it."""
        inv = np.linalg.inv(self.image_to_table)
        inv.flags.writeable = False
        return inv

    def to_table(self, pts_px: NDArray[np.floating[Any]] | Sequence[Sequence[float]]) -> FloatArray:
        """Distorted image pixels -> table mm."""
        p = undistort_points(np.asarray(pts_px, dtype=np.float64).reshape(-1, 2), self.lens)
        return _apply_h(self.image_to_table, p)

    def to_image(self, pts_mm: NDArray[np.floating[Any]] | Sequence[Sequence[float]]) -> FloatArray:
        """Table mm -> distorted image pixels."""
        p = _apply_h(self.table_to_image, np.asarray(pts_mm, dtype=np.float64).reshape(-1, 2))
        return distort_points(p, self.lens)


def _apply_h(h: FloatArray, pts: FloatArray) -> FloatArray:
    if len(pts) == 0:
        return pts.reshape(0, 2)
    q = cv2.perspectiveTransform(pts.reshape(-1, 1, 2).astype(np.float64), h)
    return np.asarray(q.reshape(-1, 2), dtype=np.float64)


def _k_d(lens: Lens) -> tuple[FloatArray, FloatArray]:
    return (np.array(lens.camera_matrix, dtype=np.float64),
            np.array(lens.dist_coeffs, dtype=np.float64))


def _distort_normalised(x: FloatArray, y: FloatArray, d: FloatArray) -> tuple[FloatArray, FloatArray]:
    """OpenCV's distortion model (4, 5, 8, 12 coefficients) on normalised coordinates."""
    c = np.zeros(12)
    c[:min(12, len(d))] = d[:12]
    k1, k2, p1, p2, k3, k4, k5, k6, s1, s2, s3, s4 = c
    r2 = x * x + y * y
    radial = (1 + r2 * (k1 + r2 * (k2 + r2 * k3))) / (1 + r2 * (k4 + r2 * (k5 + r2 * k6)))
    xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x) + s1 * r2 + s2 * r2 * r2
    yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y + s3 * r2 + s4 * r2 * r2
    return xd, yd


def undistort_points(pts: FloatArray, lens: Lens | None) -> FloatArray:
    """Distorted pixels -> ideal (undistorted) pixels in the same camera matrix.

    Newton's method on the distortion model: OpenCV's undistortPoints is a fixed-point
    iteration that stops converging towards the corners of strong wide-angle lenses."""
    if lens is None or len(pts) == 0:
        return pts
    k, d = _k_d(lens)
    if len(d) > 12 or not np.any(d):
        if not np.any(d):
            return pts
        u = cv2.undistortPointsIter(pts.reshape(-1, 1, 2), k, d, np.eye(3), k,
                                    (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-6))
        return np.asarray(u.reshape(-1, 2), dtype=np.float64)
    fx, fy, cx, cy, skew = k[0, 0], k[1, 1], k[0, 2], k[1, 2], k[0, 1]
    yd = (pts[:, 1] - cy) / fy
    xd = (pts[:, 0] - cx - skew * yd) / fx
    x, y = xd.copy(), yd.copy()
    eps = 1e-7
    for _ in range(30):
        fxv, fyv = _distort_normalised(x, y, d)
        ex, ey = fxv - xd, fyv - yd
        if float(np.max(np.abs(ex) + np.abs(ey))) < 1e-12:
            break
        ax, ay = _distort_normalised(x + eps, y, d)
        bx, by = _distort_normalised(x, y + eps, d)
        j11, j21 = (ax - fxv) / eps, (ay - fyv) / eps
        j12, j22 = (bx - fxv) / eps, (by - fyv) / eps
        det = j11 * j22 - j12 * j21
        det = np.where(np.abs(det) < 1e-12, 1e-12, det)
        dx = (j22 * ex - j12 * ey) / det
        dy = (-j21 * ex + j11 * ey) / det
        # damp steps so a point never jumps across the model's fold
        lim = 0.25 * (1.0 + np.hypot(x, y))
        n = np.hypot(dx, dy)
        sc = np.where(n > lim, lim / np.maximum(n, 1e-300), 1.0)
        x = x - dx * sc
        y = y - dy * sc
    return np.stack([x * fx + skew * y + cx, y * fy + cy], axis=1)


def distort_points(pts: FloatArray, lens: Lens | None) -> FloatArray:
    """Ideal pixels -> distorted pixels (the inverse of undistort_points)."""
    if lens is None or len(pts) == 0:
        return pts
    k, d = _k_d(lens)
    rays = cv2.undistortPoints(pts.reshape(-1, 1, 2), k, np.zeros(5)).reshape(-1, 2)
    obj = np.hstack([rays, np.ones((len(rays), 1))])
    img, _ = cv2.projectPoints(obj, np.zeros(3), np.zeros(3), k, d)
    return np.asarray(img.reshape(-1, 2), dtype=np.float64)


def aruco_dictionary(name: str) -> cv2.aruco.Dictionary:
    if not hasattr(cv2.aruco, name):
        raise ValueError(f"unknown ArUco dictionary '{name}'; use DICT_4X4_50")
    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))


MIN_PERIMETER_RATE = 0.02    # of the searched image's longer side
"""The smallest marker searched for: 48 px round at the 2400 px a frame is searched at,
so the smallest marker found is 14 px a side (a 4x4 marker is 6 cells across its border:
2.3 px a cell; a 40 mm marker that small would need a camera seeing 7 m across). Why not
smaller: every square above it is a candidate whose bits the detector reads, and a
cutting mat holds thousands (at 0.01, a Challenge table on a blue mat took 48-84 s a
search while 99 other frames took under 1.7 s; at 0.02 it takes 0.2 s, and the same
markers are found where they were on 110 frames of three games, a few phantom ids fewer)."""


MARKER_THREADS = 1
"""OpenCV threads for a marker search. Each thread thresholds the frame at its own
window sizes and keeps its own contours: on a cluttered 4608 frame (a railway table) a
search peaked at 275 MB with two threads and 190 MB with one, for the same markers and
the same CPU time (a Pi's four threads would take more still of a Zero 2 W's 512 MB)."""


@lru_cache(maxsize=4)
def _detector(dictionary: str) -> cv2.aruco.ArucoDetector:
    """One detector per dictionary for the process (the device loop detects every look)."""
    return _make_detector(dictionary)


@lru_cache(maxsize=4)
def _window_detector(dictionary: str) -> cv2.aruco.ArucoDetector:
    """The same detector for windows of a frame, its minimum perimeter set per window."""
    return _make_detector(dictionary)


def _make_detector(dictionary: str) -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    params.cornerRefinementWinSize = 4
    params.cornerRefinementMaxIterations = 50
    params.cornerRefinementMinAccuracy = 0.01
    # Markers can be small in a 4608-px frame of a 1 m table: allow small perimeters.
    params.minMarkerPerimeterRate = MIN_PERIMETER_RATE
    params.adaptiveThreshWinSizeMax = 53
    # read each bit from the middle 40% of its cell: blur and JPEG smear the cell edges
    # (measured on blurred synthetic frames: finds markers the default 0.13 misses)
    params.perspectiveRemoveIgnoredMarginPerCell = 0.3
    return cv2.aruco.ArucoDetector(aruco_dictionary(dictionary), params)


def _detect_at(gray: NDArray[np.uint8], dictionary: str, scale: float,
               min_perimeter_px: float | None = None) -> dict[int, FloatArray]:
    """Markers in `gray` searched at `scale`; `min_perimeter_px` (in searched pixels)
    replaces the minimum perimeter relative to this image's size."""
    small = gray
    if scale != 1.0:
        small = np.asarray(cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA),
                           dtype=np.uint8)
    detector = _detector(dictionary)
    if min_perimeter_px is not None:
        detector = _window_detector(dictionary)
        params = detector.getDetectorParameters()
        params.minMarkerPerimeterRate = min_perimeter_px / max(small.shape[:2])
        detector.setDetectorParameters(params)
    threads = cv2.getNumThreads()
    cv2.setNumThreads(MARKER_THREADS)
    try:
        corners, ids, _ = detector.detectMarkers(small)
    finally:
        cv2.setNumThreads(threads)
    found: dict[int, FloatArray] = {}
    twice: set[int] = set()
    if ids is None:
        return found
    for c, i in zip(corners, ids.ravel()):
        pts = (c.reshape(4, 2).astype(np.float64) + 0.5) / scale - 0.5
        if scale != 1.0:
            win = max(3, int(round(3 / scale)))
            ref = cv2.cornerSubPix(gray, pts.astype(np.float32).reshape(-1, 1, 2), (win, win), (-1, -1),
                                   (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 50, 0.01))
            pts = ref.reshape(4, 2).astype(np.float64)
        if int(i) in found or int(i) in twice:  # the same id twice: keep neither, it is ambiguous
            found.pop(int(i), None)
            twice.add(int(i))
            continue
        found[int(i)] = pts
    return found


def detect_markers(image: NDArray[np.uint8], dictionary: str = "DICT_4X4_50",
                   max_side: int = 2400, expected: Sequence[int] | None = None) -> dict[int, FloatArray]:
    """Marker id -> its 4 outer corners in image pixels (TL, TR, BR, BL of the marker).

    Large frames are searched at a reduced size, then corners are refined at full
    resolution, which keeps detection fast on a Pi without losing sub-pixel accuracy.
    When some `expected` marker is missing, the frame is searched again at half that
    size: a blurred or defocused marker's bits read better when the blur is smaller
    than a pixel.
    """
    gray = np.asarray(image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), dtype=np.uint8)
    scale = min(1.0, max_side / max(gray.shape))
    found = _detect_at(gray, dictionary, scale)
    if expected is not None and not set(expected) <= set(found):
        for i, pts in _detect_at(gray, dictionary, scale * 0.5).items():
            found.setdefault(i, pts)
    return found


def detect_window(image: NDArray[np.uint8], box: tuple[int, int, int, int], dictionary: str,
                  scale: float) -> dict[int, FloatArray]:
    """Markers inside image[y0:y1, x0:x1] (corners relative to the window), searched at
    `scale` and refined at full resolution exactly as detect_markers does the frame.

    The smallest marker accepted is the one the whole-frame search accepts (a rate of
    the window's size would let through every speck of noise in a small window, which
    makes the search several times slower)."""
    x0, y0, x1, y1 = box
    crop = np.ascontiguousarray(image[y0:y1, x0:x1])
    if crop.size == 0:
        return {}
    gray = np.asarray(crop if crop.ndim == 2 else cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), dtype=np.uint8)
    return _detect_at(gray, dictionary, scale, MIN_PERIMETER_RATE * max(image.shape[:2]) * scale)


def fit_from_markers(found: dict[int, FloatArray], profile: TableProfile,
                     image: NDArray[np.uint8] | None = None) -> TableFit:
    """Least-squares homography over every corner of every known marker that was seen.

    With the image, each marker's corners are re-measured from its edge lines
    (calibration.edges), which blur and JPEG do not pull inwards."""
    src: list[FloatArray] = []
    dst: list[tuple[float, float]] = []
    used: list[int] = []
    for mid, corners in sorted(found.items()):
        m = profile.marker(mid)
        if m is None:
            continue
        used.append(mid)
        refined = None
        if image is not None:
            from calibration.edges import refine_marker   # late: edges uses this module

            refined = refine_marker(image, corners, profile.lens)
        src.append(refined if refined is not None else undistort_points(corners, profile.lens))
        dst.extend(m.corners_mm())
    if not used:
        raise TableNotFound("no table marker found")
    s = np.vstack(src)
    d = np.array(dst, dtype=np.float64)
    h_pose = _homography_from_pose(s, d, profile.lens) if len(used) < 4 else None
    if h_pose is not None:
        h = h_pose
    else:
        found_h, _ = cv2.findHomography(s, d, 0)
        if found_h is None:
            raise TableNotFound("table markers are degenerate (all corners in a line?)")
        h = np.asarray(found_h, dtype=np.float64)
    resid = _apply_h(h, s) - d
    rms = float(np.sqrt(np.mean(np.sum(resid ** 2, axis=1))))
    return TableFit(h, tuple(used), rms, "markers", profile.lens)


def _homography_from_pose(ideal_px: FloatArray, table_mm: FloatArray, lens: Lens | None) -> FloatArray | None:
    """With a calibrated lens the table is a plane seen by a known camera: 6 unknowns
    (its pose) instead of a homography's 8, so one to three markers pin it far better
    (a homography from 3 markers has to guess the perspective at the 4th corner)."""
    if lens is None:
        return None
    k = np.array(lens.camera_matrix, dtype=np.float64)
    obj = np.hstack([table_mm, np.zeros((len(table_mm), 1))]).astype(np.float64)
    img = ideal_px.astype(np.float64).reshape(-1, 1, 2)
    none = np.zeros(4)
    ok, rvec, tvec = cv2.solvePnP(obj, img, k, none, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        return None
    ok, rvec, tvec = cv2.solvePnP(obj, img, k, none, rvec, tvec, useExtrinsicGuess=True,
                                  flags=cv2.SOLVEPNP_ITERATIVE)
    if not ok:
        return None
    r, _ = cv2.Rodrigues(rvec)
    table_to_image = k @ np.column_stack([r[:, 0], r[:, 1], np.asarray(tvec).reshape(3)])
    if abs(float(np.linalg.det(table_to_image))) < 1e-12:
        return None
    h = np.linalg.inv(table_to_image)
    return np.asarray(h / h[2, 2], dtype=np.float64)


def fit_from_corners(corners_px: Sequence[Sequence[float]], area_mm: tuple[float, float],
                     lens: Lens | None = None) -> TableFit:
    """A known rectangle's image corners (TL, TR, BR, BL) -> a table frame at its top-left."""
    src = undistort_points(np.asarray(corners_px, dtype=np.float64).reshape(4, 2), lens)
    w, h = area_mm
    dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)
    hm = cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32)).astype(np.float64)
    return TableFit(hm, (), 0.0, "corners", lens)


def lens_at_frame_size(profile: TableProfile, image: NDArray[np.uint8]) -> TableProfile:
    """The profile's lens rescaled to this frame (same sensor mode at another size)."""
    lens = profile.lens
    if lens is None:
        return profile
    h, w = image.shape[:2]
    lw, lh = lens.image_size
    if (lw, lh) == (w, h):
        return profile
    if abs(lw / lh - w / h) > 0.01 * (w / h):
        raise TableNotFound(f"the lens was calibrated at {lw}x{lh} but this frame is {w}x{h} "
                            "(another aspect ratio); calibrate the lens at this resolution")
    from calibration.lens import lens_for_size   # late: lens builds on this module

    return profile.with_lens(lens_for_size(lens, (w, h)))


_lens_at_frame_size = lens_at_frame_size      # the name calibration.table imports


def locate_table(image: NDArray[np.uint8], profile: TableProfile) -> TableFit:
    """Markers when any is seen, else the profile's fixed homography, else TableNotFound."""
    profile = lens_at_frame_size(profile, image)
    found = (detect_markers(image, profile.dictionary, expected=[m.id for m in profile.markers])
             if profile.markers else {})
    known = [i for i in found if profile.marker(i) is not None]
    if known:
        return fit_from_markers(found, profile, image)
    if profile.homography is not None:
        return TableFit(np.array(profile.homography, dtype=np.float64), (), 0.0, "fixed", profile.lens)
    ids = ", ".join(str(m.id) for m in profile.markers)
    raise TableNotFound(f"no table marker (ids {ids}) found; uncover the corner markers, "
                        "or give --corners and --area, or store a fixed homography with "
                        "'tableref calibrate table'")


def rectify(image: NDArray[np.uint8], fit: TableFit, origin_mm: tuple[float, float],
            size_mm: tuple[float, float], px_per_mm: float,
            interpolation: int = cv2.INTER_LINEAR) -> NDArray[np.uint8]:
    """A top-down view of a table rectangle at px_per_mm; lens distortion is removed in
    the same single remap, so each frame is resampled once (the lens part comes from a
    map cached per lens, so the per-frame cost is one small map warp plus that remap)."""
    w = max(1, int(round(size_mm[0] * px_per_mm)))
    h = max(1, int(round(size_mm[1] * px_per_mm)))
    # output pixel (i, j) has its centre at origin + (i + 0.5, j + 0.5) / px_per_mm
    s = 1.0 / px_per_mm
    out_to_table = np.array([[s, 0, origin_mm[0] + 0.5 * s],
                             [0, s, origin_mm[1] + 0.5 * s],
                             [0, 0, 1]], dtype=np.float64)
    m = fit.table_to_image @ out_to_table   # output pixel -> undistorted image pixel
    if fit.lens is None:
        return np.asarray(cv2.warpPerspective(image, m, (w, h), flags=interpolation | cv2.WARP_INVERSE_MAP,
                                              borderMode=cv2.BORDER_REPLICATE))
    from calibration.lens import source_map   # late: lens builds on this module

    src = source_map(fit.lens, m, (w, h))
    return np.asarray(cv2.remap(image, src[..., 0], src[..., 1], interpolation,
                                borderMode=cv2.BORDER_REPLICATE))
