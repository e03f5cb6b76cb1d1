"""Group tiles that look alike, without knowing the shapes or colours beforehand.

Average-linkage agglomeration: merge the closest two groups while they are closer
than a threshold (same print, same lamp), and keep merging past it when a known
number of groups is exceeded. Labels are stable: groups are numbered by their first
member in reading order.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]


def pairwise(x: NDArray[np.floating[Any]]) -> F64:
    """Euclidean distance matrix of the rows of x."""
    a = np.asarray(x, dtype=np.float64)
    sq = np.sum(a * a, axis=1)
    d2 = sq[:, None] + sq[None, :] - 2.0 * (a @ a.T)
    return np.asarray(np.sqrt(np.maximum(d2, 0.0)), dtype=np.float64)


def agglomerate(dist: F64, threshold: float, max_groups: int | None = None) -> list[int]:
    """Group index per item (0..k-1, numbered by first member)."""
    n = dist.shape[0]
    if n == 0:
        return []
    groups: list[list[int]] = [[i] for i in range(n)]
    # average-linkage distances between current groups, updated by Lance-Williams
    d = dist.astype(np.float64).copy()
    np.fill_diagonal(d, np.inf)
    sizes = np.ones(n)
    alive = np.ones(n, dtype=bool)
    while alive.sum() > 1:
        sub = np.where(alive[:, None] & alive[None, :], d, np.inf)
        flat = int(np.argmin(sub))
        i, j = divmod(flat, n)
        best = sub[i, j]
        too_many = max_groups is not None and int(alive.sum()) > max_groups
        if best > threshold and not too_many:
            break
        # merge j into i
        ni, nj = sizes[i], sizes[j]
        d[i, :] = (ni * d[i, :] + nj * d[j, :]) / (ni + nj)
        d[:, i] = d[i, :]
        d[i, i] = np.inf
        sizes[i] = ni + nj
        alive[j] = False
        groups[i].extend(groups[j])
        groups[j] = []
    label = [0] * n
    order = sorted((min(g), g) for g in groups if g)
    for k, (_, g) in enumerate(order):
        for m in g:
            label[m] = k
    return label
