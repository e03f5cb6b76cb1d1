"""The marker search skips squares too small to be read as markers (a cutting mat's), and
still finds the smallest marker whose bits can be read."""

from __future__ import annotations

import cv2
import numpy as np

from calibration import geometry


def _mat(width: int = 2400, height: int = 1350, pitch: int = 12, line: int = 2) -> np.ndarray:
    """A cutting mat's ruled squares: light lines on a blue-grey ground, 10 px squares."""
    img = np.full((height, width), 90, np.uint8)
    for x in range(0, width, pitch):
        img[:, x:x + line] = 200
    for y in range(0, height, pitch):
        img[y:y + line, :] = 200
    return img


def _with_marker(img: np.ndarray, side: int, at: tuple[int, int] = (300, 400)) -> np.ndarray:
    out = img.copy()
    mark = cv2.aruco.generateImageMarker(geometry.aruco_dictionary("DICT_4X4_50"), 0, side)
    y, x = at
    q = side // 2
    out[y - q:y + side + q, x - q:x + side + q] = 255       # the sheet's white margin
    out[y:y + side, x:x + side] = mark
    return out


def test_a_cutting_mats_squares_are_no_marker_candidates() -> None:
    """10 px squares by the thousand: none is a candidate at the shipped minimum size, where
    half that size made each one a candidate whose bits were read (minutes a search)."""
    mat = _mat()
    _, _, rejected = geometry._detector("DICT_4X4_50").detectMarkers(mat)
    assert len(rejected) < 20
    loose = geometry._make_detector("DICT_4X4_50")
    params = loose.getDetectorParameters()
    params.minMarkerPerimeterRate = geometry.MIN_PERIMETER_RATE / 2
    loose.setDetectorParameters(params)
    _, _, rejected = loose.detectMarkers(mat)
    assert len(rejected) > 1000


def test_the_smallest_marker_searched_for_is_found_on_the_mat() -> None:
    """A 14 px marker (6 cells of 2.3 px) on the mat is found where it lies; 12 px is not."""
    for side, want in ((14, [0]), (18, [0]), (12, [])):
        img = _with_marker(_mat(), side)
        found = geometry.detect_markers(cv2.cvtColor(img, cv2.COLOR_GRAY2BGR))
        assert list(found) == want, side
        if want:
            assert np.allclose(found[0][0], (400 - 0.5, 300 - 0.5), atol=1.5)
