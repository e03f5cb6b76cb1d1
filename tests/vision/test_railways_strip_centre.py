"""A chain's strip moved onto the middle of its seen wire (pipeline._chain_strip with
centre, pipeline._off_centre): a traced path a few millimetres off its chain (beside a
crossing, along a bunched stretch) leaves the chain at the strip's edge, where the clip
end detector (which sees the strip folded about its middle) misses its clip ends."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from railway_chains import slack_chain
from vision.railways.chains import LazyMap
from vision.railways.config import RailwaysConfig
from vision.railways.frame import TopView
from vision.railways.pipeline import _chain_strip, _count_strip, _off_centre, _uncovered

VIEW = TopView(np.zeros((0, 0, 3), np.uint8), np.zeros((0, 0, 3), np.uint8), (0.0, 0.0), 2.0)


def _table(seed: int, n: int) -> tuple[LazyMap, float, float]:
    """A chain of n 32 mm clips along y 30 mm (20 px of empty table above it)."""
    c = slack_chain(seed, n, 32.0, margin_mm=80.0)
    assert c.image is not None
    ev = np.zeros((120, c.image.shape[1]), np.float32)
    ev[20:20 + c.image.shape[0]] = c.image
    return LazyMap(ev.shape, lambda r, cc: ev[r, cc].astype(np.float32)), c.first_mm, c.last_mm


def _count(wire: LazyMap, path: "np.ndarray[Any, Any]", centre: bool) -> int:
    cfg = RailwaysConfig()
    st = _chain_strip(VIEW, wire, _uncovered(wire.shape), None, path, 32.0, cfg, centre=centre)
    assert st is not None
    return _count_strip(st, 32.0, cfg)[0].count


@pytest.mark.parametrize("seed,n,off", [(1, 8, 6.5), (4, 14, 6.5), (7, 8, -5.0)])
def test_a_path_beside_its_chain_counts_it_once_the_strip_is_centred(seed: int, n: int, off: float) -> None:
    """The path runs `off` mm beside the chain along its whole length: the strip as traced
    loses clips; moved onto the wire it counts n."""
    wire, first, last = _table(seed, n)
    path = np.array([[first + 2.0, 30.0 + off], [last - 2.0, 30.0 + off]])
    assert _count(wire, path, False) < n
    assert _count(wire, path, True) == n


def test_a_path_on_its_chain_is_left_where_it_is() -> None:
    """On the chain's middle the strip is moved by under 2 mm (a clip's loops are not
    symmetric about its middle) and counts alike."""
    wire, first, last = _table(2, 8)
    path = np.array([[first + 2.0, 30.0], [last - 2.0, 30.0]])
    cfg = RailwaysConfig()
    st = _chain_strip(VIEW, wire, _uncovered(wire.shape), None, path, 32.0, cfg)
    assert st is not None
    half = (st.evidence.shape[1] - 1) * 0.25
    shift = _off_centre(st.evidence, st.weight, half, cfg)
    assert shift is None or float(np.abs(shift).max()) < 2.0
    assert _count(wire, path, True) == _count(wire, path, False) == 8
