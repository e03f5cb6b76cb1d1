"""The railway reader's memory savings give the very answers of the whole-table versions:
band-by-band top view and evidence, strips sampled from windows, cropped footprints,
ink taken band by band, table-driven thinning."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.geometry import TableFit
from vision.railways import skeleton as sk
from vision.railways.chains import LazyMap, strip
from vision.railways.config import CLIP_COLOURS, RailwaysConfig
from vision.railways.crossings import Footprints, outside, touches
from vision.railways.frame import TopView, _BandMaps, mixing_evidence
from vision.railways.trace import ink

Arr = np.ndarray[Any, Any]


def _fit() -> TableFit:
    h = np.array([[1.1, 0.05, 40.0], [-0.03, 1.05, 25.0], [2e-5, 1e-5, 1.0]])
    return TableFit(image_to_table=np.linalg.inv(h), markers_seen=(0, 1, 2, 3), rms_mm=0.0, source="fixed")


def test_band_maps_do_not_depend_on_the_band() -> None:
    """Remap maps made for a band of rows equal those rows of the whole output's maps."""
    maps = _BandMaps(_fit(), (32.0, 32.0), (301, 257), 2.0)
    full_x, full_y = maps.band(0, 257)
    assert full_x.dtype == np.float32 and full_x.shape == (257, 301)
    for y0, y1 in ((0, 64), (64, 128), (250, 257), (17, 18)):
        bx, by = maps.band(y0, y1)
        assert np.array_equal(bx, full_x[y0:y1]) and np.array_equal(by, full_y[y0:y1])


def test_band_maps_are_exact_on_the_coarse_grid() -> None:
    """At every 16th output pixel inside the grid the map is the homography itself (no lens)."""
    fit = _fit()
    maps = _BandMaps(fit, (32.0, 32.0), (161, 97), 2.0)
    mx, my = maps.band(0, 97)
    for y, x in ((16, 16), (32, 48), (80, 144)):
        mm = np.array([(x + 0.5) / 2.0 + 32.0, (y + 0.5) / 2.0 + 32.0, 1.0])
        p = fit.table_to_image @ mm
        assert abs(mx[y, x] - p[0] / p[2]) < 1e-3 and abs(my[y, x] - p[1] / p[2]) < 1e-3


def test_mixing_evidence_is_the_same_in_any_band_size() -> None:
    """Evidence and blind maps do not depend on how many rows are worked on at once."""
    rng = np.random.default_rng(3)
    img = rng.integers(0, 256, (96, 80, 3), dtype=np.uint8)
    bg = cv2.GaussianBlur(img, (0, 0), 6)
    ev_a, bl_a = mixing_evidence(img, bg, CLIP_COLOURS, band_rows=7)
    ev_b, bl_b = mixing_evidence(img, bg, CLIP_COLOURS, band_rows=1000)
    for name in CLIP_COLOURS:
        assert ev_a[name].dtype == np.uint8 and bl_a[name].dtype == np.uint8
        assert np.array_equal(ev_a[name], ev_b[name]) and np.array_equal(bl_a[name], bl_b[name])
    assert any(ev_a[name].any() for name in CLIP_COLOURS)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.floats(-40.0, 120.0), st.floats(-40.0, 120.0),
       st.floats(0.0, 6.3), st.floats(5.0, 90.0))
def test_window_strip_equals_whole_map_strip(seed: int, x: float, y: float, ang: float, length: float) -> None:
    """A strip sampled from a LazyMap's window is bit-identical to one sampled from the
    whole float map, also where the chain runs off the map."""
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 256, (150, 170), dtype=np.uint8)
    view = TopView(np.zeros((1, 1, 3), np.uint8), np.zeros((1, 1, 3), np.uint8), (10.0, 12.0), 2.0)
    d = np.array([np.cos(ang), np.sin(ang)])
    path = np.array([[x, y], [x + d[0] * length / 2 + 3.0, y + d[1] * length / 2], [x + d[0] * length, y + d[1] * length]])
    whole, _, _ = strip(values.astype(np.float32) / 255.0, view, path, 6.0)
    window, _, _ = strip(LazyMap.over255(values), view, path, 6.0)
    assert window.dtype == np.float32
    assert np.array_equal(whole, window)


def _full_chain(fps: Footprints, path: Arr, width: float) -> Arr:
    m = np.zeros(fps.shape, np.uint8)
    px = np.round(path - fps.origin).astype(np.int32).reshape(-1, 1, 2)
    cv2.polylines(m, [px], False, (1,), max(1, int(round(width))))
    return m


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.floats(-20.0, 240.0), st.floats(-20.0, 240.0)), min_size=2, max_size=4),
       st.lists(st.tuples(st.floats(-20.0, 240.0), st.floats(-20.0, 240.0)), min_size=2, max_size=4),
       st.floats(1.0, 14.0))
def test_cropped_footprints_touch_as_whole_grid_ones(a: list[tuple[float, float]], b: list[tuple[float, float]],
                                                     width: float) -> None:
    """Footprints kept as bounding-box crops touch, and leave the area, exactly when the
    whole-grid masks do."""
    fps = Footprints((0.0, 0.0), (200.0, 200.0))
    pa, pb = np.asarray(a), np.asarray(b)
    fa, fb = fps.chain(pa, width), fps.chain(pb, width)
    ma, mb = _full_chain(fps, pa, width), _full_chain(fps, pb, width)
    assert touches(fa, fb) == bool(np.any(ma & mb))
    inside = np.zeros(fps.shape, np.uint8)
    inside[20:20 + 160, 20:20 + 160] = 1
    assert outside(fa, fps, (20.0, 20.0), (160.0, 160.0)) == bool(np.any(ma & (1 - inside)))
    poly = fps.polygon(np.array([[50.0, 50.0], [150.0, 60.0], [140.0, 150.0]]))
    mp = np.zeros(fps.shape, np.uint8)
    cv2.fillPoly(mp, [np.array([[50, 50], [150, 60], [140, 150]], np.int32).reshape(-1, 1, 2)], (1,))
    assert touches(fa, poly) == bool(np.any(ma & mp))


def test_ink_band_by_band_equals_the_whole_table_at_once() -> None:
    """trace.ink (where the chain band is found) worked a few rows at a time gives the
    Lab distance of the whole view taken at once and averaged to 1 mm cells, also where
    the view's size is not a whole number of cells."""
    rng = np.random.default_rng(5)
    img = rng.integers(0, 256, (241, 322, 3), dtype=np.uint8)
    bg = cv2.GaussianBlur(img, (0, 0), 5)
    a = cv2.cvtColor(img[:240], cv2.COLOR_BGR2Lab).astype(np.float32)
    b = cv2.cvtColor(bg[:240], cv2.COLOR_BGR2Lab).astype(np.float32)
    want = cv2.resize(np.sqrt(((a - b) ** 2).sum(axis=2)), (161, 120), interpolation=cv2.INTER_AREA)
    for rows in (7, 64, 10_000):
        got = ink(img, bg, 2.0, band_rows=rows)
        assert got.dtype == np.float32 and got.shape == (120, 161)
        assert np.allclose(got, want, atol=1e-3)


def _naive_thinning(mask: Arr) -> Arr:
    """Zhang-Suen written out pixel by pixel, the textbook way."""
    img = np.pad((mask > 0).astype(np.uint8), 1)
    while True:
        changed = False
        for step in (0, 1):
            rem = []
            for y in range(1, img.shape[0] - 1):
                for x in range(1, img.shape[1] - 1):
                    if not img[y, x]:
                        continue
                    p = [img[y - 1, x], img[y - 1, x + 1], img[y, x + 1], img[y + 1, x + 1],
                         img[y + 1, x], img[y + 1, x - 1], img[y, x - 1], img[y - 1, x - 1]]
                    b = sum(int(v) for v in p)
                    a = sum(1 for i in range(8) if p[i] == 0 and p[(i + 1) % 8] == 1)
                    if step == 0:
                        ok = p[0] * p[2] * p[4] == 0 and p[2] * p[4] * p[6] == 0
                    else:
                        ok = p[0] * p[2] * p[6] == 0 and p[0] * p[4] * p[6] == 0
                    if 2 <= b <= 6 and a == 1 and ok:
                        rem.append((y, x))
            for y, x in rem:
                img[y, x] = 0
            changed = changed or bool(rem)
        if not changed:
            return img[1:-1, 1:-1]


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000))
def test_table_thinning_is_zhang_suen(seed: int) -> None:
    """The lookup-table thinning removes exactly the pixels the textbook rule removes."""
    rng = np.random.default_rng(seed)
    m = np.zeros((30, 34), np.uint8)
    for _ in range(3):
        p = rng.integers(0, 30, 4)
        cv2.line(m, (int(p[0]), int(p[1])), (int(p[2]) + 4, int(p[3])), (1,), int(rng.integers(2, 6)))
    assert np.array_equal(sk.thinning(m), _naive_thinning(m))


def _reference() -> Any:
    from calibration.colour import ColourReference
    # a white surface that varies across the view (linear coefficients), as markers give
    return ColourReference((), ((5.2, 0.1, -0.05), (5.3, -0.08, 0.02), (5.25, 0.03, 0.04)), (0.08, 0.1, 0.09),
                           500.0, "markers", False, ((-0.3, 0.1, -0.05), (-0.2, -0.08, 0.02), (-0.25, 0.03, 0.04)),
                           (0.02, 0.03, 0.025))


def test_in_place_normalisation_is_normalise_rectified() -> None:
    """Channel-by-channel, band-by-band correction gives normalise_rectified's bytes."""
    from calibration.colour import normalise_rectified
    from vision.railways.frame import normalise_in_place
    rng = np.random.default_rng(9)
    view = rng.integers(0, 256, (150, 203, 3), dtype=np.uint8)
    want = normalise_rectified(view, _reference(), (32.0, 30.0), 2.0)
    got = view.copy()
    normalise_in_place(got, _reference(), (32.0, 30.0), 2.0, band_rows=32)
    assert np.array_equal(got, want) and not np.array_equal(got, view)


def test_top_view_keeps_uint8_images_and_a_band_made_small_lab() -> None:
    """The view is uint8; its 1 px/mm Lab equals INTER_AREA of the whole view's Lab."""
    from calibration.profile import default_profile
    from vision.railways.frame import top_view
    rng = np.random.default_rng(2)
    frame = cv2.resize(rng.integers(0, 256, (60, 80, 3), dtype=np.uint8), (640, 480), interpolation=cv2.INTER_LINEAR)
    prof = default_profile("railways")
    h = np.array([[0.5, 0.0, 20.0], [0.0, 0.4, 15.0], [0.0, 0.0, 1.0]])
    fit = TableFit(image_to_table=np.linalg.inv(h), markers_seen=(), rms_mm=0.0, source="fixed")
    view = top_view(frame, fit, prof, RailwaysConfig(), band_rows=64)
    assert view.image.dtype == np.uint8 and view.small_lab is not None and view.small_lab.dtype == np.uint8
    lab = cv2.cvtColor(view.image, cv2.COLOR_BGR2Lab)
    want = cv2.resize(lab, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    assert np.array_equal(view.small_lab, want)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from([(-1, -1), (-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1)]),
                min_size=1, max_size=20), st.sampled_from([6.0, 14.0, 7.5]), st.booleans())
def test_short_edge_test_agrees_with_measuring(steps: list[tuple[int, int]], limit: float, inclusive: bool) -> None:
    """Skipping the measurement of long skeleton edges never changes a spur decision."""
    e = [(50, 50)]
    for dy, dx in steps:
        e.append((e[-1][0] + dy, e[-1][1] + dx))
    length = sk._length(e)
    assert sk._shorter(e, limit, inclusive) == (length <= limit if inclusive else length < limit)
