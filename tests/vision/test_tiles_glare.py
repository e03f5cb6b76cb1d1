"""Tiles in a lamp's spot brighter than the markers' white (vision.tiles.crops.shoulder,
TilesConfig.glare_knee): the coarse view keeps the spot's steps instead of clipping
them flat."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from vision.tiles.crops import shoulder


def test_values_under_the_knee_are_left_alone() -> None:
    """Below the knee the shoulder changes nothing (paper white, 0.92, is under it)."""
    v = np.linspace(0.0, 0.95, 96, dtype=np.float32)
    assert np.array_equal(shoulder(v.copy(), 0.95), v)


def test_steps_above_white_survive_where_a_clip_flattens_them() -> None:
    """A white face at 1.0 beside bare table at 1.05 in a spot stay apart (about 1 L*),
    under 1, where a clip makes them one."""
    v = np.array([1.0, 1.05], dtype=np.float32)
    bent = shoulder(v.copy(), 0.95)
    assert bent[0] < bent[1] < 1.0
    assert bent[1] - bent[0] > 0.01
    assert np.array_equal(shoulder(v.copy(), 1.0), np.array([1.0, 1.0], dtype=np.float32))


@given(st.lists(st.floats(0.0, 4.0, width=32), min_size=2, max_size=40),
       st.floats(0.5, 0.99))
def test_the_shoulder_keeps_order_and_stays_under_one(values: list[float], knee: float) -> None:
    """Bent values keep their order, never exceed 1, and never rise."""
    v = np.array(sorted(values), dtype=np.float32)
    bent = shoulder(v.copy(), knee)
    assert np.all(np.diff(bent) >= 0.0)
    assert np.all(bent <= 1.0)
    assert np.all(bent <= v + 1e-6)
