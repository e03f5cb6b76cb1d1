"""Markers found again near where they were: the device looks at the same table every
few seconds and the camera hardly ever moves, so each marker is searched for in a small
window around its last place instead of over the whole frame (a few ms instead of a few
hundred at 2304x1296). Anything unexpected (a marker not in its window, seen twice, cut
by the frame edge) is reported as not found, and the caller searches the whole frame."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from calibration.geometry import (FloatArray, TableFit, TableNotFound, detect_window,
                                  fit_from_markers, lens_at_frame_size)
from calibration.profile import TableProfile

MARGIN = 0.5                  # window = marker's bounding box grown by this many marker sides
FULL_SEARCH_SIDE = 2400       # detect_markers' default max_side


def marker_window(corners: FloatArray, frame_shape: tuple[int, ...],
                  margin: float = MARGIN) -> tuple[int, int, int, int] | None:
    """(x0, y0, x1, y1) of the search window around a marker's corners, clipped to the
    frame; None when the marker is (partly) outside the frame, where it cannot be read."""
    h, w = frame_shape[:2]
    side = float(np.mean(np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)))
    lo = corners.min(axis=0)
    hi = corners.max(axis=0)
    if not np.all(np.isfinite(corners)) or side < 4 or lo[0] < 0 or lo[1] < 0 \
            or hi[0] > w - 1 or hi[1] > h - 1:
        return None
    grow = margin * side + 8
    x0, y0 = (int(max(0, np.floor(v - grow))) for v in lo)
    x1 = int(min(w, np.ceil(hi[0] + grow) + 1))
    y1 = int(min(h, np.ceil(hi[1] + grow) + 1))
    return x0, y0, x1, y1


def detect_markers_near(image: NDArray[np.uint8], previous: dict[int, FloatArray],
                        dictionary: str = "DICT_4X4_50", margin: float = MARGIN,
                        max_side: int = FULL_SEARCH_SIDE) -> dict[int, FloatArray]:
    """Marker id -> 4 corners (image px), searching each previously seen marker only in
    its window. Detection runs at the scale the whole-frame search would use
    (detect_markers' max_side) and corners are refined at full resolution the same way,
    so a marker found here has the corners the full search gives it."""
    scale = min(1.0, max_side / max(image.shape[:2]))
    found: dict[int, FloatArray] = {}
    for mid, corners in previous.items():
        box = marker_window(np.asarray(corners, dtype=np.float64).reshape(4, 2), image.shape, margin)
        if box is None:
            continue
        x0, y0, x1, y1 = box
        near = detect_window(image, box, dictionary, scale)
        if mid in near:
            found[mid] = near[mid] + np.array([x0, y0], dtype=np.float64)
    return found


def predicted_corners(fit: TableFit, profile: TableProfile) -> dict[int, FloatArray]:
    """Where each of the profile's markers is in the image if the table has not moved."""
    markers = list(profile.markers)
    mm = np.array([c for m in markers for c in m.corners_mm()], dtype=np.float64).reshape(-1, 2)
    px = fit.to_image(mm).reshape(len(markers), 4, 2)
    return {m.id: px[k] for k, m in enumerate(markers)}


def track_table(image: NDArray[np.uint8], profile: TableProfile, previous: TableFit,
                max_side: int = FULL_SEARCH_SIDE, margin: float = MARGIN,
                refine_edges: bool = True) -> TableFit | None:
    """The table fit from the markers found near the previous fit's markers, or None
    when the previous fit cannot vouch for this frame: it was not made from markers,
    or a marker it saw is not in its window now (camera moved, hand over a marker).
    A marker the previous fit did not see is looked for where it should be, and used
    when found there (a hand has left it)."""
    if previous.source != "markers" or not profile.markers:
        return None
    profile = lens_at_frame_size(profile, image)
    found = detect_markers_near(image, predicted_corners(previous, profile), profile.dictionary,
                                margin, max_side)
    if not found or any(i not in found for i in previous.markers_seen):
        return None
    try:
        return fit_from_markers(found, profile, image if refine_edges else None)
    except TableNotFound:      # degenerate corners: let the whole-frame search decide
        return None
