"""The railway reader's speed and memory rewrites give the very answers of the code they
replace: grouped percentiles, banded densities, lazily made maps, marker crops."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.railways.trace import rows_nanpercentile

Arr = np.ndarray[Any, Any]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 40), st.integers(1, 120), st.floats(0.0, 1.0),
       st.sampled_from([50.0, 0.0, 100.0, 12.5, 90.0]), st.sampled_from([np.float32, np.float64]),
       st.booleans())
def test_grouped_percentile_is_nanpercentile(seed: int, rows: int, cols: int, nan_share: float, q: float,
                                              dtype: Any, first_row_nan: bool) -> None:
    """rows_nanpercentile equals np.nanpercentile(axis=1) bit for bit and in dtype, with
    NaNs anywhere, all-NaN rows, and an all-NaN first row (which sets nanpercentile's dtype)."""
    rng = np.random.default_rng(seed)
    v = (rng.random((rows, cols)) * 40.0).astype(dtype)
    v[rng.random((rows, cols)) < nan_share] = np.nan
    v[rng.random(rows) < 0.2] = np.nan
    if first_row_nan:
        v[0] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = np.nanpercentile(v, q, axis=1)
    v_in = v.copy()
    got = rows_nanpercentile(v, q)
    assert got.dtype == want.dtype
    assert np.array_equal(got, want, equal_nan=True)
    assert np.array_equal(v, v_in, equal_nan=True)          # the input is left as it was


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(3, 40), st.integers(3, 40))
def test_upsized_window_is_the_window_of_the_upsized_map(seed: int, sh: int, sw: int) -> None:
    """A window made from the half-size background is that window of the full-size one,
    at the map's edges too; a size not exactly twice the small map's is refused."""
    from vision.railways.frame import upsized, upsized_window
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 256, (sh, sw, 3), dtype=np.uint8)
    full = upsized(small, (2 * sw, 2 * sh))
    make = upsized_window(small, (2 * sw, 2 * sh))
    assert make is not None and upsized_window(small, (2 * sw + 1, 2 * sh)) is None
    for _ in range(10):
        y0, x0 = int(rng.integers(0, 2 * sh)), int(rng.integers(0, 2 * sw))
        y1, x1 = int(rng.integers(y0 + 1, 2 * sh + 1)), int(rng.integers(x0 + 1, 2 * sw + 1))
        assert np.array_equal(make(slice(y0, y1), slice(x0, x1)), full[y0:y1, x0:x1])


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(9, 70), st.integers(9, 70), st.sampled_from([1, 2, 3]),
       st.sampled_from([3, 5, 15]), st.sampled_from([2, 7, 128]))
def test_banded_box_area_is_the_whole_box_filter(seed: int, h: int, w: int, f: int, k: int, rows: int) -> None:
    """box_area made a few rows at a time equals the whole map's box filter and INTER_AREA."""
    import cv2
    from vision.railways.frame import box_area
    rng = np.random.default_rng(seed)
    m = (rng.random((h * f + int(rng.integers(0, f)), w * f)) ** 3 * 255).astype(np.uint8)
    want = cv2.resize(cv2.boxFilter(m, cv2.CV_32F, (k, k))[:h * f, :w * f], (w, h), interpolation=cv2.INTER_AREA)
    got = box_area(m, k, f, (w, h), band_rows=rows)
    assert got.dtype == np.float32 and np.array_equal(got, want)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 30), st.integers(1, 30), st.integers(8, 90), st.integers(8, 90))
def test_blind_window_is_the_window_of_blind_full(seed: int, sh: int, sw: int, dh: int, dw: int) -> None:
    """A blind window made from the 1/8 map is that window of blind_full's, as float32."""
    from vision.railways.frame import blind_full, blind_window
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 2, (sh, sw), dtype=np.uint8)
    size = (sw * 8 + dw % 8, sh * 8 + dh % 8)
    full = blind_full(small, size).astype(np.float32)
    make = blind_window(small, size)
    for _ in range(10):
        y0, x0 = int(rng.integers(0, size[1])), int(rng.integers(0, size[0]))
        y1, x1 = int(rng.integers(y0, size[1] + 1)), int(rng.integers(x0, size[0] + 1))
        got = make(slice(y0, y1), slice(x0, x1))
        assert got.dtype == np.float32 and np.array_equal(got, full[y0:y1, x0:x1])


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 12), st.integers(2, 12), st.sampled_from([8, 16, 7]))
def test_evidence_from_background_rows_is_from_the_whole_background(seed: int, bh: int, bw: int,
                                                                    rows: int) -> None:
    """mixing_evidence given the background's rows as upsized_window makes them equals
    mixing_evidence given the whole upsized background (the coarse blind map by bands too)."""
    import cv2
    from vision.railways.config import CLIP_COLOURS
    from vision.railways.frame import mixing_evidence, upsized, upsized_window
    rng = np.random.default_rng(seed)
    h, w = bh * 8, bw * 8
    img = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    small = cv2.GaussianBlur(img, (0, 0), 4)[::2, ::2].copy()
    make = upsized_window(small, (w, h))
    assert make is not None
    want_ev, want_bl = mixing_evidence(img, upsized(small, (w, h)), CLIP_COLOURS, band_rows=rows)
    got_ev, got_bl = mixing_evidence(img, lambda y0, y1: make(slice(y0, y1), slice(0, w)), CLIP_COLOURS,
                                     band_rows=rows)
    for name in CLIP_COLOURS:
        assert np.array_equal(got_ev[name], want_ev[name]) and np.array_equal(got_bl[name], want_bl[name])
    assert any(want_ev[name].any() for name in CLIP_COLOURS)
