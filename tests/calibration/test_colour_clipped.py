"""The light's white surface when some marker whites sit at the sensor's ceiling (a
warm lamp on a locked white balance clips red first)."""

from __future__ import annotations

import numpy as np

from calibration.colour import MarkerSample, reference_from_samples, srgb_decode, srgb_encode

CENTRES = [(0.0, 0.0), (460.0, 0.0), (460.0, 460.0), (0.0, 460.0)]
# linear light per channel (B, G, R): a warm lamp, brighter towards marker 2
CAST = np.array([0.30, 1.0, 2.2])
FALL = np.array([0.55, 0.80, 1.00, 0.70])
INK = 0.04


def _samples(scale: float) -> tuple[list[MarkerSample], np.ndarray]:
    """Marker samples (8-bit, clipped at 255) and the true whites (linear, unclipped)."""
    out = []
    true = []
    for i, (c, f) in enumerate(zip(CENTRES, FALL)):
        lin = scale * f * CAST / CAST.max()
        w = 255.0 * srgb_encode(np.minimum(lin, 1.0))
        b = 255.0 * srgb_encode(INK * lin)
        out.append(MarkerSample(i, c, tuple(float(v) for v in np.round(w)), tuple(float(v) for v in np.round(b))))
        true.append(lin)
    return out, np.array(true)


def _true_white(scale: float, pts: np.ndarray) -> np.ndarray:
    """The lamp's white (linear) anywhere: FALL interpolated bilinearly in log."""
    u, v = pts[:, 0] / 460.0, pts[:, 1] / 460.0
    lf = np.log(FALL)
    log_f = lf[0] * (1 - u) * (1 - v) + lf[1] * u * (1 - v) + lf[2] * u * v + lf[3] * (1 - u) * v
    return np.asarray(scale * np.exp(log_f)[:, None] * (CAST / CAST.max())[None, :])


def test_clipped_red_is_taken_from_the_other_channels() -> None:
    """Red clipped at two markers: across the whole table the fitted linear white follows
    the lamp's fall-off in every channel (within 4%) up to the sensor's ceiling; a red
    surface fitted through the clipped values would sag between the markers."""
    samples, _ = _samples(1.25)
    assert sum(max(s.white) >= 250 for s in samples) == 2
    ref = reference_from_samples(samples)
    assert ref.clipped
    g = np.linspace(0.0, 460.0, 7)
    pts = np.stack(np.meshgrid(g, g), -1).reshape(-1, 2)
    want = np.minimum(_true_white(1.25, pts), 1.0)
    got = ref.white_lin_at(pts)
    assert np.all(np.abs(got / want - 1.0) < 0.04), np.abs(got / want - 1.0).max(axis=0)


def test_red_clipped_everywhere_reads_at_the_ceiling() -> None:
    """Red clipped at every marker: red's white is the ceiling (light prints read there
    too), while green and blue still follow the lamp's fall-off."""
    samples, true = _samples(1.9)
    assert all(s.white[2] >= 250 for s in samples) and all(s.white[1] < 250 for s in samples)
    ref = reference_from_samples(samples)
    got = ref.white_lin_at(np.array(CENTRES))
    assert np.allclose(got[:, 2], 1.0, atol=0.02)
    assert np.all(np.abs(got[:, :2] / true[:, :2] - 1.0) < 0.04), got / true


def test_nothing_below_the_ceiling_keeps_the_clipped_white() -> None:
    """Every channel of every marker clipped: the white is the ceiling (a lower bound),
    not an extrapolation."""
    samples = [MarkerSample(i, c, (255.0, 255.0, 255.0), (35.0, 35.0, 35.0)) for i, c in enumerate(CENTRES)]
    ref = reference_from_samples(samples)
    assert np.allclose(ref.white_at(np.array(CENTRES)), 255.0)
    assert np.allclose(ref.white_lin_at(np.array(CENTRES)), srgb_decode(1.0))


def test_unclipped_markers_fit_each_channel_on_its_own() -> None:
    """Without clipping each channel keeps its own surface (a window and a lamp may light
    the table in two colours): the fit passes through every marker's white."""
    samples, true = _samples(0.6)
    assert not reference_from_samples(samples).clipped
    got = reference_from_samples(samples).white_lin_at(np.array(CENTRES))
    assert np.all(np.abs(got / true - 1.0) < 0.02)
