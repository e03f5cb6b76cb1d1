"""Lens calibration from small synthetic ChArUco views; undistort/distort consistency;
the cached single-remap rectification."""

from __future__ import annotations

import numpy as np
import pytest
from calib_render import look_at, view_plane

import cv2
from calibration.charuco import DEFAULT_BOARD, board_image, detect_charuco, make_board
from calibration.geometry import TableFit, distort_points, rectify, undistort_points
from calibration.lens import (LensCalibrationError, calibrate_from_images, coverage, ideal_map,
                              lens_for_size, undistort_image)
from calibration.profile import Lens

W, H = 640, 400
F = (W / 2) / np.tan(np.deg2rad(55))          # 110 degrees across: a wide lens
K = np.array([[F, 0, W / 2 - 3], [0, F, H / 2 + 4], [0, 0, 1.0]])
D = np.array([-0.25, 0.06, 0.0005, -0.0003, 0.0])
TRUE = Lens((W, H), tuple(tuple(float(v) for v in r) for r in K), tuple(float(v) for v in D))


def _views(n: int, seed: int) -> list[np.ndarray]:
    ppm = 3.0
    board = cv2.copyMakeBorder(cv2.cvtColor(board_image(DEFAULT_BOARD, ppm), cv2.COLOR_GRAY2BGR),
                               30, 30, 30, 30, cv2.BORDER_CONSTANT, value=(255, 255, 255))
    rng = np.random.default_rng(seed)
    bx, by = DEFAULT_BOARD.size_mm
    out = []
    while len(out) < n:
        rv, tv = look_at((bx / 2, by / 2), rng.uniform(120, 170), tilt_deg=rng.uniform(10, 45),
                         yaw_deg=rng.uniform(-25, 25), tilt_axis_deg=rng.uniform(0, 360))
        shift = np.array([rng.uniform(-0.3, 0.3) * W, rng.uniform(-0.25, 0.25) * H, 0.0])
        out.append(view_plane(board, ppm, (-10.0, -10.0), K, D, rv, tv + shift * tv[2] / F, (W, H)))
    return out


@pytest.fixture(scope="module")
def views() -> list[np.ndarray]:
    return _views(10, 7)


def test_board_corners_are_found_exactly_on_a_flat_render() -> None:
    """Detected ChArUco corners sit on the true corners (no half-pixel bias)."""
    ppm = 4.0
    b = cv2.copyMakeBorder(board_image(DEFAULT_BOARD, ppm), 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255)
    b = cv2.GaussianBlur(b, (5, 5), 1.0)
    c, ids = detect_charuco(b)
    assert len(ids) == (DEFAULT_BOARD.squares_x - 1) * (DEFAULT_BOARD.squares_y - 1)
    true = make_board(DEFAULT_BOARD).getChessboardCorners()[ids][:, :2] * ppm - 0.5 + 40
    assert np.abs(c - true).max() < 0.05


def test_calibration_recovers_the_wide_lens(views: list[np.ndarray]) -> None:
    """K and distortion from 10 small views: f within 1%, rays of 63 pixels within 1.5 px of the truth."""
    res = calibrate_from_images(views)
    assert res.rms_px < 0.5
    k = np.array(res.lens.camera_matrix)
    assert abs(k[0, 0] - F) / F < 0.01 and abs(k[1, 1] - F) / F < 0.01
    assert abs(k[0, 2] - K[0, 2]) < 4 and abs(k[1, 2] - K[1, 2]) < 4
    # rays of a grid of distorted pixels, both lenses (within the area the views covered)
    g = np.stack(np.meshgrid(np.linspace(0.1 * W, 0.9 * W, 9), np.linspace(0.1 * H, 0.9 * H, 7)), -1).reshape(-1, 2)
    ra = (np.hstack([undistort_points(g, TRUE), np.ones((len(g), 1))]) @ np.linalg.inv(K).T)[:, :2]
    rb = (np.hstack([undistort_points(g, res.lens), np.ones((len(g), 1))]) @ np.linalg.inv(k).T)[:, :2]
    assert np.abs(ra - rb).max() * F < 1.5, np.abs(ra - rb).max() * F
    assert 0.3 < res.coverage <= 1.0


def test_too_few_views_is_a_clear_error() -> None:
    """Three blank stills give the one-line 'show the board' error."""
    blank = [np.full((H, W, 3), 128, np.uint8)] * 3
    with pytest.raises(LensCalibrationError) as e:
        calibrate_from_images(blank)
    assert str(e.value) == ("only 0 usable board views; show the ChArUco board in at least 4 "
                            "(better 15) different places and angles")


@pytest.mark.parametrize("dist", [D, np.array([-0.3, 0.08, 0.001, 0.0, 0.0]),
                                  np.array([-0.1, 0.02, 0.0, 0.0, 0.0, 0.2, 0.01, 0.0])])
def test_undistort_and_distort_are_inverse_to_the_corners(dist: np.ndarray) -> None:
    """undistort_points then distort_points returns every pixel, corners of a wide lens included."""
    lens = Lens((W, H), TRUE.camera_matrix, tuple(float(v) for v in dist))
    rng = np.random.default_rng(0)
    pts = np.vstack([np.stack([rng.uniform(0, W, 500), rng.uniform(0, H, 500)], 1),
                     [[0, 0], [W - 1, 0], [W - 1, H - 1], [0, H - 1]]])
    back = distort_points(undistort_points(pts, lens), lens)
    assert np.abs(back - pts).max() < 1e-6


def test_cached_ideal_map_matches_the_exact_model() -> None:
    """The coarse ideal->distorted map interpolates the distortion to within 0.1 px."""
    im = ideal_map(TRUE)
    rng = np.random.default_rng(1)
    pts = np.stack([rng.uniform(0, W, 800), rng.uniform(0, H, 800)], 1)
    g = np.hstack([undistort_points(pts, TRUE), np.ones((800, 1))]) @ im.grid_from_ideal().T
    mx = g[:, 0:1].astype(np.float32)
    my = g[:, 1:2].astype(np.float32)
    back = np.hstack([cv2.remap(im.map[:, :, c], mx, my, cv2.INTER_LINEAR) for c in range(2)])
    assert np.abs(back - pts).max() < 0.1


def test_rectify_with_a_lens_is_one_remap_of_the_right_place() -> None:
    """rectify() through a wide lens puts a known table point at its output pixel."""
    h_img_to_table = np.array([[0.5, 0.0, -20.0], [0.0, 0.5, -10.0], [0.0, 0.0, 1.0]])
    fit = TableFit(h_img_to_table, (0,), 0.0, "markers", TRUE)
    img = np.zeros((H, W, 3), np.uint8)
    spot_mm = np.array([[60.0, 40.0]])
    px = fit.to_image(spot_mm)[0]
    cv2.circle(img, (int(round(px[0] * 16)), int(round(px[1] * 16))), 3 * 16, (255, 255, 255), -1, cv2.LINE_AA, 4)
    top = rectify(img, fit, (0.0, 0.0), (120.0, 80.0), 2.0)
    m = cv2.moments(cv2.cvtColor(top, cv2.COLOR_BGR2GRAY))
    cx, cy = m["m10"] / m["m00"], m["m01"] / m["m00"]
    assert abs(cx - (60.0 * 2 - 0.5)) < 0.3 and abs(cy - (40.0 * 2 - 0.5)) < 0.3


def test_undistort_image_straightens_a_line_and_scales_with_resolution() -> None:
    """undistort_image maps a distorted pixel to its ideal position; lens_for_size keeps rays."""
    img = np.zeros((H, W), np.uint8)
    p = np.array([[200.0, 120.0]])
    img[118:123, 198:203] = 255
    out = undistort_image(img, TRUE)
    ideal = undistort_points(p, TRUE)[0]
    m = cv2.moments(out)
    x, y = m["m10"] / m["m00"], m["m01"] / m["m00"]
    assert abs(x - ideal[0]) <= 1.5 and abs(y - ideal[1]) <= 1.5
    half = lens_for_size(TRUE, (W // 2, H // 2))
    q = undistort_points((p + 0.5) / 2 - 0.5, half)[0]
    assert np.allclose((q + 0.5) * 2 - 0.5, ideal, atol=1e-6)


def test_coverage_counts_grid_cells() -> None:
    """A single corner in each quarter of an 8x6 grid covers 4/48 of the image."""
    from calibration.lens import View

    v = View(np.array([[10.0, 10.0], [W - 10.0, 10.0], [10.0, H - 10.0], [W - 10.0, H - 10.0]]),
             np.arange(4, dtype=np.int32))
    assert coverage([v], (W, H)) == pytest.approx(4 / 48)


def test_a_fits_inverse_is_worked_out_once_and_shared_read_only() -> None:
    """table_to_image is the inverse homography, the same read-only array on every call."""
    h = np.array([[0.5, 0.02, -10.0], [-0.01, 0.5, 4.0], [1e-5, 2e-5, 1.0]])
    fit = TableFit(h, (0, 1, 2, 3), 0.1, "markers")
    inv = fit.table_to_image
    assert inv is fit.table_to_image
    assert np.allclose(inv @ h, np.eye(3))
    with pytest.raises(ValueError):
        inv[0, 0] = 1.0
    pts = np.array([[10.0, 20.0], [300.0, 40.0]])
    assert np.allclose(fit.to_table(fit.to_image(pts)), pts)
