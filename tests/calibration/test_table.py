"""Table checks: homography from 1, 2 or 4 markers, fixed and corners fallbacks, missing,
blurred and mis-scaled markers, and the camera-moved test."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from calib_render import look_at, table_image, view_plane

import cv2
from calibration.geometry import TableNotFound, fit_from_corners, locate_table
from calibration.profile import default_profile
from calibration.table import camera_moved, check_table, refit_if_moved, table_shift_mm

K = np.array([[620.0, 0, 480], [0, 620.0, 300], [0, 0, 1]])
PROF = default_profile("tiles")


def _render(profile=PROF, centre=(230.0, 230.0), yaw=4.0, cover: tuple[int, ...] = ()) -> np.ndarray:
    plane, org = table_image(profile, 4.0)
    for m in profile.markers:          # a covered marker: painted over with the surface
        if m.id in cover:
            x0, y0 = (np.array(m.centre_mm) - m.size_mm - np.array(org)) * 4.0
            x1, y1 = (np.array(m.centre_mm) + m.size_mm - np.array(org)) * 4.0
            cv2.rectangle(plane, (int(x0), int(y0)), (int(x1), int(y1)), (150, 160, 170), -1)
    rv, tv = look_at(centre, 750.0, tilt_deg=10.0, yaw_deg=yaw, tilt_axis_deg=20.0)
    return view_plane(plane, 4.0, org, K, np.zeros(5), rv, tv, (960, 600))


def _truth(centre=(230.0, 230.0), yaw=4.0) -> tuple[np.ndarray, np.ndarray]:
    """True image positions of a grid of table points (for the fit's accuracy)."""
    rv, tv = look_at(centre, 750.0, tilt_deg=10.0, yaw_deg=yaw, tilt_axis_deg=20.0)
    g = np.stack(np.meshgrid(np.linspace(30, 430, 9), np.linspace(30, 430, 9)), -1).reshape(-1, 2)
    px, _ = cv2.projectPoints(np.hstack([g, np.zeros((len(g), 1))]), rv, tv, K, np.zeros(5))
    return g, px.reshape(-1, 2)


@pytest.mark.parametrize("cover,near_mm,tol_mm", [((), 1000.0, 0.6), ((2, 3), 1000.0, 3.0),
                                                  ((1, 2, 3), 130.0, 3.0)])
def test_homography_from_4_2_and_1_markers(cover: tuple[int, ...], near_mm: float, tol_mm: float) -> None:
    """Least squares over every seen corner: 4 markers sub-mm everywhere, 2 within 3 mm,
    1 marker within 3 mm near it (one 40 mm square cannot pin a tilted 400 mm table)."""
    fit = locate_table(_render(cover=cover), PROF)
    assert sorted(fit.markers_seen) == sorted({0, 1, 2, 3} - set(cover))
    g, px = _truth()
    near = np.linalg.norm(g, axis=1) < near_mm
    err = np.linalg.norm(fit.to_table(px[near]) - g[near], axis=1)
    assert np.median(err) < tol_mm, np.median(err)


def test_fixed_homography_fallback_and_no_marker_error() -> None:
    """With every marker covered the stored homography is used; without one, a one-line error."""
    img = _render()
    fit = locate_table(img, PROF)
    fixed = PROF.with_homography(fit.image_to_table)
    blank = _render(cover=(0, 1, 2, 3))
    f2 = locate_table(blank, fixed)
    assert f2.source == "fixed" and np.allclose(f2.image_to_table, fit.image_to_table)
    with pytest.raises(TableNotFound) as e:
        locate_table(blank, PROF)
    assert str(e.value) == ("no table marker (ids 0, 1, 2, 3) found; uncover the corner markers, or give "
                            "--corners and --area, or store a fixed homography with 'tableref calibrate table'")


def test_corners_fallback_maps_the_rectangle() -> None:
    """Four hand-given corners of a 400 mm square give a frame with that square at its origin."""
    g, px = _truth()
    corners = [px[0], px[8], px[80], px[72]]          # (30,30), (430,30), (430,430), (30,430)
    fit = fit_from_corners(corners, (400.0, 400.0))
    back = fit.to_table(px)
    assert np.abs(back - (g - 30.0)).max() < 1e-3


def test_report_flags_missing_blurred_and_misprinted_markers() -> None:
    """A covered marker, a defocused frame and a 94% print each produce their warning."""
    ok = check_table(_render(), PROF)
    assert ok.warnings == [], ok.warnings
    assert all(abs(m.scale - 1.0) < 0.02 for m in ok.markers)   # type: ignore[operator]
    missing = check_table(_render(cover=(2,)), PROF)
    assert missing.missing == [2]
    assert missing.warnings[0] == "marker 2 not found; uncover it or check it lies at 460,460 mm"
    blurred = check_table(cv2.GaussianBlur(_render(), (0, 0), 2.0), PROF)
    assert any(w.startswith("marker ") and "is blurred" in w for w in blurred.warnings), blurred.warnings
    small = replace(PROF, markers=tuple(replace(m, size_mm=m.size_mm * 0.94) for m in PROF.markers))
    plane, org = table_image(small, 4.0)
    rv, tv = look_at((230.0, 230.0), 750.0, tilt_deg=10.0, yaw_deg=4.0, tilt_axis_deg=20.0)
    rep = check_table(view_plane(plane, 4.0, org, K, np.zeros(5), rv, tv, (960, 600)), PROF)
    scale_msgs = [w for w in rep.warnings if "print the sheet at 100%" in w]
    assert len(scale_msgs) == 4, rep.warnings
    assert all(0.92 < m.scale < 0.96 for m in rep.markers)  # type: ignore[operator]


def test_camera_moved_detects_a_nudge_and_not_noise() -> None:
    """Refitting the same frame is not a move; a camera shifted by 3 mm is."""
    a = locate_table(_render(), PROF)
    area = (PROF.area_origin_mm, PROF.area_size_mm)
    assert not camera_moved(a, locate_table(_render(), PROF), 1.5, area)
    b = locate_table(_render(centre=(233.0, 230.0)), PROF)
    pts = np.array([[30.0, 30.0], [430.0, 430.0]])
    assert 2.0 < table_shift_mm(a, b, pts) < 4.5
    assert camera_moved(a, b, 1.5, area)
    fit, moved = refit_if_moved(_render(centre=(233.0, 230.0)), PROF, a)
    assert moved and fit.markers_seen == (0, 1, 2, 3)
    kept, moved = refit_if_moved(_render(cover=(0, 1, 2, 3)), PROF, a)
    assert kept is a and not moved
