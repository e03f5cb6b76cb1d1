"""Colour normalisation from the markers' white and black (seeded small renders)."""

from __future__ import annotations

import numpy as np
import pytest
from calib_render import look_at, table_image, view_plane

from calibration.colour import (measure_reference, normalise, normalise_rectified,
                                reference_from_percentiles)
from calibration.geometry import locate_table, rectify
from calibration.profile import default_profile

PATCHES = [((100.0, 100.0, 150.0, 150.0), (40, 40, 200)), ((200.0, 100.0, 250.0, 150.0), (60, 180, 60)),
           ((300.0, 300.0, 350.0, 350.0), (200, 120, 30)), ((120.0, 320.0, 170.0, 370.0), (90, 200, 220))]


def _light(im: np.ndarray, gains: tuple[float, float, float], gradient: float = 0.0) -> np.ndarray:
    """Scale linear light per channel, with a left-to-right lamp gradient."""
    lin = (im.astype(np.float64) / 255.0) ** 2.2
    w = im.shape[1]
    g = np.asarray(gains)[None, None, :] * (1.0 + gradient * np.linspace(-1, 1, w))[None, :, None]
    return np.asarray(np.clip(255.0 * (lin * g) ** (1 / 2.2), 0, 255).round().astype(np.uint8))


@pytest.fixture(scope="module")
def scene() -> tuple[np.ndarray, object, object]:
    prof = default_profile("tiles")
    plane, org = table_image(prof, 3.0, patches=PATCHES)
    k = np.array([[800.0, 0, 480], [0, 800.0, 300], [0, 0, 1]])
    rv, tv = look_at((230.0, 230.0), 800.0, tilt_deg=8.0, yaw_deg=5.0)
    img = view_plane(plane, 3.0, org, k, np.zeros(5), rv, tv, (960, 600))
    img = _light(img, (0.6, 0.6, 0.6))   # paper below the sensor's ceiling
    return img, prof, locate_table(img, prof)


def _patch_colours(img: np.ndarray, fit: object, prof: object) -> np.ndarray:
    ref = measure_reference(img, fit, prof)  # type: ignore[arg-type]
    top = rectify(img, fit, (30.0, 30.0), (400.0, 400.0), 2.0)  # type: ignore[arg-type]
    out = normalise_rectified(top, ref, (30.0, 30.0), 2.0)
    vals = []
    for (x0, y0, x1, y1), _ in PATCHES:
        crop = out[int((y0 - 30 + 10) * 2):int((y1 - 30 - 10) * 2), int((x0 - 30 + 10) * 2):int((x1 - 30 - 10) * 2)]
        vals.append(crop.reshape(-1, 3).mean(axis=0))
    return np.array(vals)


@pytest.mark.parametrize("gains,gradient", [((0.55, 0.8, 1.45), 0.0), ((1.45, 1.05, 0.6), 0.0),
                                            ((0.5, 0.5, 0.5), 0.0), ((1.0, 1.0, 1.0), 0.45),
                                            ((1.3, 1.0, 0.7), -0.4)])
def test_cast_and_gradient_map_back_to_neutral(scene, gains, gradient) -> None:
    """Warm/cold casts, one stop darker and a lamp gradient all normalise to the neutral colours."""
    img, prof, fit = scene
    neutral = _patch_colours(img, fit, prof)
    cast = _patch_colours(_light(img, gains, gradient), fit, prof)
    assert np.abs(cast - neutral).max() < 6.0, (cast - neutral)


def test_without_normalisation_the_cast_is_large(scene) -> None:
    """Guard: the cast used above really moves the raw colours (so the test can fail)."""
    img, _, _ = scene
    raw = img.reshape(-1, 3).astype(float).mean(axis=0)
    cast = _light(img, (0.55, 0.8, 1.45)).reshape(-1, 3).astype(float).mean(axis=0)
    assert np.abs(cast - raw).max() > 20


def test_full_frame_normalise_puts_paper_at_the_white_level(scene) -> None:
    """normalise() on the camera frame maps the marker quiet zone to ~235 in every channel."""
    img, prof, fit = scene
    out = normalise(_light(img, (0.6, 0.9, 1.4)), fit, prof)
    ref = measure_reference(out, fit, prof)
    assert ref.source == "markers" and len(ref.samples) == 4
    for s in ref.samples:
        assert np.allclose(s.white, 235.0, atol=6.0), s
        assert np.all(np.array(s.black) < 40.0), s


def test_percentile_fallback_without_markers() -> None:
    """With no marker the brightest 1% stands in for paper white."""
    rng = np.random.default_rng(3)
    img = rng.integers(0, 200, size=(60, 80, 3), dtype=np.uint8)
    ref = reference_from_percentiles(img)
    assert ref.source == "percentile"
    w = ref.white_at(np.zeros((1, 2)))[0]
    assert np.all(np.abs(w - 198) < 3)


def test_markers_sampled_on_crops_are_the_whole_frame_samples() -> None:
    """sample_markers (each marker on a crop round its rings) gives sample_markers_whole's
    samples, also when the fit puts markers partly or wholly off the frame."""
    from calibration.colour import sample_markers, sample_markers_whole
    from calibration.geometry import TableFit, locate_table
    from firmware.bench.clip_count import profile_for
    from vision.synth import random_scene, render_scene
    r = render_scene(random_scene("railways", 7, resolution=(1280, 720)))
    prof = profile_for(r.camera)
    fit = locate_table(r.image, prof)
    seen = 0
    for dx, dy in ((0.0, 0.0), (31.3, -12.7), (-75.0, 0.0), (0.0, 140.0), (-600.0, 700.0), (0.4, 0.6)):
        shift = np.array([[1.0, 0.0, dx], [0.0, 1.0, dy], [0.0, 0.0, 1.0]])
        moved = TableFit(shift @ fit.image_to_table, fit.markers_seen, fit.rms_mm, fit.source, fit.lens)
        want, got = sample_markers_whole(r.image, moved, prof), sample_markers(r.image, moved, prof)
        assert repr(got) == repr(want)
        seen += len(want)
    assert seen > 0                 # some shifts leave markers to sample
