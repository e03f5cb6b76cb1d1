"""Exact, cheaper stand-ins for the numpy statistics the cell reader takes thousands of
times a frame on small arrays (np.median, np.percentile, np.linalg.norm along the last
axis): each returns the very same number as the numpy call it replaces, without that
call's general machinery (tests/vision/test_tiles_robust.py pins them to it)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]


def norm_planes(planes: Sequence[NDArray[Any]]) -> NDArray[Any]:
    """np.linalg.norm(np.stack(planes, -1), axis=-1), bit for bit (numpy sums the last
    axis left to right), from separate planes: no strided pass over interleaved pixels."""
    sq = planes[0] * planes[0]
    for p in planes[1:]:
        sq = sq + p * p
    return np.asarray(np.sqrt(sq))


def median1(v: NDArray[Any]) -> float:
    """np.median(v) of a non-empty 1-D float64 array without NaNs."""
    n = v.size
    if n == 0:
        return float(np.median(v))
    h = n // 2
    if n % 2:
        return float(np.partition(v, h)[h])
    p = np.partition(v, (h - 1, h))
    return float((p[h - 1] + p[h]) / 2)


def median_rows(x: NDArray[Any]) -> F64:
    """np.median(x.T, axis=0): the median of each row of a (k, n) float64 array (a
    colour's channels as rows), n > 0, no NaNs."""
    n = x.shape[1]
    if n == 0:
        return np.asarray(np.median(x.T, axis=0), dtype=np.float64)
    h = n // 2
    if n % 2:
        return np.asarray(np.partition(x, h, axis=1)[:, h], dtype=np.float64)
    p = np.partition(x, (h - 1, h), axis=1)
    return np.asarray((p[:, h - 1] + p[:, h]) / 2, dtype=np.float64)


def median_cols(px: NDArray[Any]) -> F64:
    """np.median(px, axis=0) of an (n, k) float64 array (pixels by channel)."""
    return median_rows(np.ascontiguousarray(px.T))


def percentile1(v: NDArray[Any], q: float) -> float:
    """np.percentile(v, q) (its default, linear method) of a non-empty 1-D float64 array
    without NaNs: the same virtual index, the same two order statistics, the same lerp."""
    n = v.size
    if n == 0 or v.dtype != np.float64:
        return float(np.percentile(v, q))
    virtual = (n - 1) * (q / 100)
    if virtual >= n - 1:
        return float(np.partition(v, n - 1)[n - 1])
    if virtual < 0:
        return float(np.partition(v, 0)[0])
    lo = int(math.floor(virtual))
    p = np.partition(v, (lo, lo + 1))
    a, b = float(p[lo]), float(p[lo + 1])
    t = virtual - lo
    diff = b - a
    return b - diff * (1 - t) if t >= 0.5 else a + diff * t
