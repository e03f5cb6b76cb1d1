"""What the camera does to light is visible and pinned: colour temperature casts,
exposure in stops, noise that grows with its setting, JPEG that changes pixels."""

from __future__ import annotations

import numpy as np

from calibration.profile import default_profile
from vision.synth import render_scene
from vision.synth.degrade import colour_gain, finish
from vision.synth.randomize import easy_environment

PROF = default_profile("town77")


def _paper(r) -> np.ndarray:  # type: ignore[no-untyped-def]
    """Mean BGR of marker 0's quiet zone (white paper) in a frame."""
    c = np.array(r.truth["markers"][0]["corners_px"])
    x0, y0 = c.min(axis=0)
    x1, _ = c.max(axis=0)
    w = x1 - x0
    pad = int(round(w * 0.1))
    return r.image[int(y0) - 2 * pad: int(y0) - pad, int(x0): int(x1)].reshape(-1, 3).mean(axis=0)


def test_warm_light_casts_orange_and_stops_brighten() -> None:
    """2700 K with no white balance makes white paper orange (R > G > B); 6500 K makes
    it bluish (B > R); one stop more is brighter than one stop less."""
    env = easy_environment((480, 480), PROF)
    warm = render_scene(dict(env, light={"kelvin": 2700, "awb": 0.0, "ambient": 1.0, "stops": -0.5}))
    cool = render_scene(dict(env, light={"kelvin": 6500, "awb": 0.0, "ambient": 1.0, "stops": -0.5}))
    b, g, r = _paper(warm)
    assert r > g > b + 20
    b2, _, r2 = _paper(cool)
    assert b2 > r2
    dark = render_scene(dict(env, light={"kelvin": 5500, "ambient": 1.0, "stops": -1.0}))
    bright = render_scene(dict(env, light={"kelvin": 5500, "ambient": 1.0, "stops": 1.0}))
    assert dark.image.mean() + 30 < bright.image.mean()


def test_full_white_balance_removes_the_cast() -> None:
    """With awb 1 the gain is neutral whatever the light's temperature."""
    for k in (2700.0, 4000.0, 6500.0):
        g = colour_gain({"kelvin": k, "awb": 1.0, "stops": 0.0})
        assert np.allclose(g, 1.0, atol=1e-6)


def test_noise_grows_with_its_setting_and_jpeg_changes_pixels() -> None:
    """A flat grey frame: pixel spread grows with 'noise'; JPEG quality 40 alters it;
    the same seed gives the same noise."""
    img = np.full((200, 300, 3), 0.2, dtype=np.float32)
    spreads = [float(finish(img, {}, {"noise": n}, 1).reshape(-1, 3).astype(float).std(axis=0).mean())
               for n in (0.0, 2.0, 8.0)]
    assert spreads[0] < 0.5 < spreads[1] < spreads[2]
    a = finish(img, {}, {"noise": 4.0}, 7)
    assert np.array_equal(a, finish(img, {}, {"noise": 4.0}, 7))
    j = finish(img, {}, {"noise": 4.0, "jpeg_quality": 40}, 7)
    assert not np.array_equal(a, j)
