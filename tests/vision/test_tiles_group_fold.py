"""Groups beyond a game's count are folded smallest-first (vision.tiles.group._fold): a
tile misread on its own joins its nearest group instead of forcing two real shapes
into one."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.tiles.group import _fold, agglomerate, pairwise


def test_a_stray_tile_is_folded_in_rather_than_two_close_groups_merged() -> None:
    """Three groups of four points on a line at 0, 1 and 2 (within 0.01) and one stray
    point at 5.5, at most three groups: the stray joins its nearest group (at 2), the
    groups at 0 and 1 stay apart (average linkage would have merged them)."""
    rng = np.random.default_rng(3)
    pts = [c + 0.01 * rng.standard_normal() for c in (0.0, 1.0, 2.0) for _ in range(4)] + [5.5]
    labels = agglomerate(pairwise(np.array(pts)[:, None]), 0.1, 3)
    assert labels == [0] * 4 + [1] * 4 + [2] * 5


def test_without_a_count_the_groups_stop_at_the_cut() -> None:
    """The same points with no count: four groups, the stray on its own."""
    rng = np.random.default_rng(3)
    pts = [c + 0.01 * rng.standard_normal() for c in (0.0, 1.0, 2.0) for _ in range(4)] + [5.5]
    labels = agglomerate(pairwise(np.array(pts)[:, None]), 0.1)
    assert labels == [0] * 4 + [1] * 4 + [2] * 4 + [3]


def _fold_by_block_means(dist: np.ndarray, groups: list[list[int]], most: int) -> list[list[int]]:
    """The fold's definition, pair by pair: each step merges the first pair (in scan
    order) of least smaller-size times mean block distance."""
    groups = [list(g) for g in groups]
    while len(groups) > most:
        costs = [(float(np.mean(dist[np.ix_(groups[a], groups[b])])) * min(len(groups[a]), len(groups[b])), a, b)
                 for a in range(len(groups)) for b in range(a + 1, len(groups))]
        least = min(c for c, _, _ in costs)
        _, a, b = next(t for t in costs if t[0] == least)
        groups[a].extend(groups[b])
        del groups[b]
    return groups


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 40), st.integers(1, 4))
def test_the_fold_by_running_sums_merges_as_the_block_means_say(seed: int, n: int, dims: int) -> None:
    """_fold keeps running sums of distances between groups; it must merge exactly as the
    block means define, near ties included (points on a line tie often: two groups apart
    on it are as far as their centroids, whichever points they hold)."""
    rng = np.random.default_rng(seed)
    dist = pairwise(rng.normal(size=(n, dims)))
    order = [int(i) for i in rng.permutation(n)]
    k = int(rng.integers(1, n + 1))
    cuts = sorted(int(c) for c in rng.choice(np.arange(1, n), size=k - 1, replace=False)) if k > 1 else []
    groups = [order[i:j] for i, j in zip([0] + cuts, cuts + [n])]
    most = int(rng.integers(1, k + 1))
    assert _fold(dist, groups, most) == _fold_by_block_means(dist, groups, most)


def _close_groups_and_a_stray() -> np.ndarray:
    """Four points near 0, four near 0.3, three near 3 and a stray at 9 (on a line)."""
    rng = np.random.default_rng(5)
    pts = [c + 0.01 * rng.standard_normal() for c, k in ((0.0, 4), (0.3, 4), (3.0, 3)) for _ in range(k)] + [9.0]
    return pairwise(np.array(pts)[:, None])


def test_two_groups_too_many_for_one_are_kept_apart_and_the_stray_folded() -> None:
    """Three groups at most, each of at most 7 items: the groups near 0 and 0.3 (8 items
    together) stay apart and the stray joins the group near 3, though merging the two
    close groups costs less (a box of Town 77 holds a shape in 7 colours)."""
    dist = _close_groups_and_a_stray()
    assert agglomerate(dist, 0.1, 3) == [0] * 8 + [1] * 3 + [2]
    assert agglomerate(dist, 0.1, 3, capacity=7) == [0] * 4 + [1] * 4 + [2] * 4


def test_past_capacity_the_count_still_wins() -> None:
    """When every fold left would pass the capacity, the fold is made all the same: the
    game's count of groups is firmer than a box's count of tiles, which a misread
    phantom or a second set on the table can pass."""
    rng = np.random.default_rng(5)
    pts = [c + 0.01 * rng.standard_normal() for c, k in ((0.0, 4), (0.3, 4), (3.0, 3)) for _ in range(k)]
    dist = pairwise(np.array(pts)[:, None])
    assert agglomerate(dist, 0.1, 2, capacity=5) == agglomerate(dist, 0.1, 2) == [0] * 8 + [1] * 3


def test_strays_two_at_most_may_fill_a_group_past_capacity() -> None:
    """Six points near 0, two strays near 0.5 (a group of two at the cut) and three near
    3, two groups at most, each of at most 7: the strays still join their nearest group
    (two tiles misread alike are the fold's to place, and one_of_each's after it; only
    two real groups are kept apart)."""
    rng = np.random.default_rng(7)
    pts = [c + 0.01 * rng.standard_normal() for c, k in ((0.0, 6), (0.5, 2), (3.0, 3)) for _ in range(k)]
    dist = pairwise(np.array(pts)[:, None])
    assert agglomerate(dist, 0.1, 2, capacity=7) == [0] * 8 + [1] * 3
