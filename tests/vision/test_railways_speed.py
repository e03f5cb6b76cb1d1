"""The railway reader's speed rewrites (session 12) give the very answers of the code they
replace: each test runs the older form, kept here as the reference, on seeded data."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from vision.railways.chains import LazyMap, _fan, sample
from vision.railways.frame import TopView

Arr = np.ndarray[Any, Any]


def _fan_reference(wire: LazyMap, view: TopView, e: Arr, d0: Arr, degs: Arr, steps: Arr,
                   half_mm: float) -> tuple[Arr, Arr]:
    """chains._fan as it was: the interleaved grid, sampled SAMPLE_ROWS rows per window."""
    a = np.radians(degs)
    d = np.stack([d0[0] * np.cos(a) - d0[1] * np.sin(a), d0[0] * np.sin(a) + d0[1] * np.cos(a)], axis=1)
    rays = e[None, None, :] + d[:, None, :] * steps[None, :, :]
    nrm = np.stack([-d[:, 1], d[:, 0]], axis=1)
    offs = np.arange(-half_mm, half_mm + 1e-9, 0.5)
    grid = rays[:, :, None, :] + offs[None, None, :, None] * nrm[:, None, None, :]
    px = (grid - np.asarray(view.origin_mm)) * view.px_per_mm - 0.5
    r, n, k = px.shape[:3]
    mx = px[..., 0].reshape(r * n, k).astype(np.float32)
    my = px[..., 1].reshape(r * n, k).astype(np.float32)
    top = sample(wire, mx, my).max(axis=1).reshape(r, n)
    return rays, np.asarray(cv2.blur(np.ascontiguousarray(top), (5, 1)), dtype=np.float32)


def test_fan_from_one_window_is_the_fan_sampled_window_by_window() -> None:
    """_fan (one window of the map per fan, per-coordinate grid) gives the rays and the
    profiles of the older form bit for bit: fans inside, across the edge of and wholly off
    the map, short (one sample window) and long."""
    rng = np.random.default_rng(12)
    wire = rng.integers(0, 256, (300, 350), dtype=np.uint8)
    view = TopView(np.zeros((0, 0, 3), np.uint8), np.zeros((0, 0, 3), np.uint8), (-13.25, 7.5), 2.0)
    off_map = 0
    for _ in range(120):
        e = rng.uniform(-60.0, 220.0, 2)
        d0 = rng.normal(size=2)
        d0 /= np.linalg.norm(d0)
        degs = np.arange(-35.0, 35.0 + 1e-9, 5.0)
        steps = (np.arange(0, int(rng.integers(2, 110))) * 0.5)[:, None]
        half = float(rng.choice([2.5, 4.5]))
        rays, prof = _fan(LazyMap.over255(wire), view, e, d0, degs, steps, half)
        rays0, prof0 = _fan_reference(LazyMap.over255(wire), view, e, d0, degs, steps, half)
        off_map += int(not prof.any())
        assert np.array_equal(rays, rays0)
        assert np.array_equal(prof, prof0)
    assert off_map > 0                  # some fans lay wholly off the map


def _logits_unfolded(ev: Arr, det: Any) -> Arr:
    """clip_counter.bend_logits as it was: every window unfolded against the whole w1."""
    from vision.railways.clip_counter import _all_windows
    h = np.maximum(_all_windows(ev) @ det.w1 + det.b1, 0.0)
    return np.asarray(h @ det.w2 + np.float32(det.b2), dtype=np.float32)


def test_folded_bend_logits_are_the_unfolded_ones() -> None:
    """bend_logits with each window folded across the strip (the shipped detectors' first
    layer is mirror-symmetric) gives the unfolded product's log-odds up to float rounding,
    for both detectors; a detector whose weights are not symmetric takes the unfolded
    form, to the bit."""
    from vision.railways.clip_counter import BendDetector, bend_logits, load_detector, load_river_detector
    rng = np.random.default_rng(5)
    for det in (load_detector(), load_river_detector()):
        for n in (3, 7, 40, 600):
            ev = rng.random((n, 31)).astype(np.float32)
            got, want = bend_logits(ev, det), _logits_unfolded(ev, det)
            assert got.shape == want.shape == (n,)
            assert np.allclose(got, want, rtol=0.0, atol=1e-4)
    det = load_detector()
    lop = BendDetector(det.w1 + rng.normal(0, 0.01, det.w1.shape).astype(np.float32), det.b1, det.w2, det.b2)
    ev = rng.random((80, 31)).astype(np.float32)
    assert np.array_equal(bend_logits(ev, lop), _logits_unfolded(ev, lop))


def _ink_reference(image: Arr, bg: Arr, px_per_mm: float, band_rows: int = 128) -> Arr:
    """trace.ink as it was: float32 Lab of both, their difference's norm by einsum."""
    f = int(round(px_per_mm))
    h, w = image.shape[:2]
    out = np.zeros((h // f, w // f), np.float32)
    step = band_rows - band_rows % f
    for y0 in range(0, h - h % f, step):
        y1 = min(h - h % f, y0 + step)
        a = cv2.cvtColor(image[y0:y1, :w - w % f], cv2.COLOR_BGR2Lab).astype(np.float32)
        b = cv2.cvtColor(bg[y0:y1, :w - w % f], cv2.COLOR_BGR2Lab).astype(np.float32)
        a -= b
        d = np.sqrt(np.einsum("ijk,ijk->ij", a, a))
        out[y0 // f:y1 // f] = cv2.resize(d, ((w - w % f) // f, (y1 - y0) // f), interpolation=cv2.INTER_AREA)
    return out


def test_ink_from_byte_differences_is_the_float_one() -> None:
    """trace.ink (squared absdiff of the 8-bit Lab, summed by cv2.transform) equals the
    float einsum form bit for bit, on odd sizes and at 1, 2 and 3 px/mm."""
    from vision.railways.trace import ink
    rng = np.random.default_rng(7)
    for (h, w), ppm in (((301, 257), 2.0), ((130, 90), 1.0), ((200, 155), 3.0)):
        image = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
        bg = cv2.GaussianBlur(rng.integers(0, 256, (h, w, 3), dtype=np.uint8), (9, 9), 0)
        assert np.array_equal(ink(image, bg, ppm, band_rows=64), _ink_reference(image, bg, ppm, band_rows=64))
