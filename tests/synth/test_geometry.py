"""The synthetic camera and canvas are geometrically exact: projection and ray casting
invert each other through strong lenses, the lens keeps its promised field of view and
stays one-to-one, and drawn shapes have the area and centre they were given."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.synth.camera import CameraModel, radial_limit
from vision.synth.canvas import TableCanvas, rotated_rect
from vision.synth.lens import make_lens

RES = (1280, 720)


@settings(max_examples=25, deadline=None)
@given(hfov=st.floats(60, 120), strength=st.floats(0, 1), height=st.floats(300, 1400),
       tilt=st.floats(0, 45), tdir=st.floats(0, 360), yaw=st.floats(0, 360))
def test_project_inverts_pixel_rays(hfov: float, strength: float, height: float, tilt: float,
                                    tdir: float, yaw: float) -> None:
    """Any pixel cast onto the table and projected back lands on itself (< 1e-6 px)."""
    lens = make_lens(hfov, strength, RES, (2e-4, -3e-4))
    cam = CameraModel(RES, hfov, tuple(lens["dist"]), height, tilt, tdir, yaw, (200.0, 150.0))
    rng = np.random.default_rng(0)
    px = np.stack([rng.uniform(0, RES[0] - 1, 200), rng.uniform(0, RES[1] - 1, 200)], axis=1)
    pts, ok = cam.pixels_to_plane(px)
    assert ok.mean() > 0.3
    back = cam.project(pts[ok])
    assert np.abs(back - px[ok]).max() < 1e-6


@settings(max_examples=20, deadline=None)
@given(hfov=st.floats(60, 120), strength=st.floats(0, 1))
def test_lens_keeps_its_field_and_is_one_to_one(hfov: float, strength: float) -> None:
    """make_lens: the frame's edge sees hfov/2 off axis and the model is monotonic out
    to the frame's corner, so every pixel has exactly one ray."""
    lens = make_lens(hfov, strength, RES)
    cam = CameraModel(RES, hfov, tuple(lens["dist"]))
    k = cam.K
    # the ray through the right edge of the frame (x = W - 0.5) at the centre row
    ray = cam.R @ cam.pixel_rays(np.array([[RES[0] - 0.5, k[1, 2]]]))[0]
    off_axis = math.degrees(math.atan2(math.hypot(ray[0], ray[1]), ray[2]))
    assert abs(off_axis - hfov / 2) < 0.2
    # the frame's corner is inside the monotonic part of the model
    corner = cam.R @ cam.pixel_rays(np.array([[-0.5, -0.5]]))[0]
    r_corner = math.hypot(corner[0], corner[1]) / corner[2]
    assert radial_limit(lens["dist"]) > r_corner
    # and it does project back onto itself
    px = cam.project(np.array([[0.0, 0.0]]))   # any table point: just exercise projectPoints
    assert np.isfinite(px).all()


def test_canvas_square_area_and_centre() -> None:
    """A turned square drawn on the canvas covers its true area (within 1 %) and its
    coverage-weighted centre is its centre (within 0.05 mm)."""
    cv = TableCanvas((0.0, 0.0), (100.0, 100.0), 4.0, background=(0.0, 0.0, 0.0))
    cov = cv.fill_polygon(rotated_rect((47.3, 52.9), (30.0, 30.0), 17.0), (1.0, 1.0, 1.0))
    a = cv.image[..., 0]
    area_mm2 = float(a.sum()) / cv.px_per_mm ** 2
    assert abs(area_mm2 - 900.0) / 900.0 < 0.01
    ys, xs = np.mgrid[0:cv.height, 0:cv.width]
    cx = float((a * xs).sum() / a.sum())
    cy = float((a * ys).sum() / a.sum())
    centre = cv.to_mm(np.array([[cx, cy]]))[0]
    assert np.abs(centre - np.array([47.3, 52.9])).max() < 0.05
    assert not cov.empty


def test_canvas_paste_lands_on_its_quad() -> None:
    """A pasted image's bright quarter lands in the quad's matching quarter."""
    cv = TableCanvas((0.0, 0.0), (100.0, 100.0), 3.0, background=(0.0, 0.0, 0.0))
    img = np.zeros((40, 40), dtype=np.uint8)
    img[:20, 20:] = 255                                   # top-right quarter white
    cv.paste(img, [[20, 20], [80, 20], [80, 80], [20, 80]])
    tr = cv.image[int(30 * 3):int(45 * 3), int(55 * 3):int(75 * 3), 0].mean()
    bl = cv.image[int(55 * 3):int(75 * 3), int(25 * 3):int(45 * 3), 0].mean()
    assert tr > 0.9 and bl < 0.02


def test_project_matches_opencv() -> None:
    """CameraModel.project agrees with cv2.projectPoints on the truth's K, dist, rvec, tvec."""
    import cv2

    lens = make_lens(102.0, 0.8, RES, (3e-4, -2e-4))
    cam = CameraModel(RES, 102.0, tuple(lens["dist"]), 700.0, 12.0, 40.0, 33.0, (230.0, 230.0))
    d = cam.to_dict()
    pts = np.array([[0.0, 0.0, 0.0], [460.0, 0.0, 0.0], [230.0, 230.0, -50.0], [100.0, 400.0, 0.0]])
    ours = cam.project(np.c_[pts[:, :2], -pts[:, 2]])
    cv, _ = cv2.projectPoints(pts.reshape(-1, 1, 3), np.array(d["rvec"]), np.array(d["tvec"]),
                              np.array(d["K"]), np.array(d["dist"]))
    assert np.abs(ours - cv.reshape(-1, 2)).max() < 1e-6
