"""Shared measuring tools: the speed floor, timers, memory and Markdown tables.

Speed is always reported as a ratio to a floor measured in the same run on the same
frame (one cvtColor plus one warpPerspective), because these machines are noisy.
"""

from __future__ import annotations

import resource
import statistics
import time
from typing import Any, Callable, Iterable, Sequence

import cv2
import numpy as np
from numpy.typing import NDArray


def floor_seconds(image: NDArray[np.uint8], repeats: int = 3,
                  clock: Callable[[], float] = time.perf_counter) -> float:
    """Best-of-N time of one cvtColor plus one warpPerspective of the whole frame (on
    `clock`: wall time, or time.process_time for the CPU of every OpenCV thread)."""
    h, w = image.shape[:2]
    m = np.array([[1.0, 0.01, 3.0], [-0.01, 1.0, 2.0], [1e-6, 1e-6, 1.0]])
    best = float("inf")
    for _ in range(repeats):
        t = clock()
        g = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        cv2.warpPerspective(image, m, (w, h))
        best = min(best, clock() - t)
        del g
    return best


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def median(xs: Iterable[float]) -> float:
    v = list(xs)
    return statistics.median(v) if v else float("nan")


def pct(n: int, d: int) -> str:
    return f"{100.0 * n / d:.2f}% ({n}/{d})" if d else "n/a (0)"


def md_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT MET"
