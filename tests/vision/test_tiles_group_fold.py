"""Groups beyond a game's count are folded smallest-first (vision.tiles.group._fold): a
tile misread on its own joins its nearest group instead of forcing two real shapes
into one."""

from __future__ import annotations

import numpy as np

from vision.tiles.group import agglomerate, pairwise


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
