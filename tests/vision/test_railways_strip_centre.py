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
from vision.railways.clip_counter import CountResult
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
    return _read(wire, path, centre).count


def _read(wire: LazyMap, path: "np.ndarray[Any, Any]", centre: bool) -> CountResult:
    cfg = RailwaysConfig()
    st = _chain_strip(VIEW, wire, _uncovered(wire.shape), None, path, 32.0, cfg, centre=centre)
    assert st is not None
    return _count_strip(st, 32.0, cfg)[0]


# Why seed 4 lies 5.0 mm off and not 6.5 (as until session 22): the centring moves a strip
# at most strip_centre_mm (6 mm) in one pass, and on this chain the pass moved it only
# 5.0-5.6 mm (the wire's middle is taken from what the strip sees of it). At 6.5 mm the
# strip stayed about 1.2 mm off and the count of 14 came only from cancelling errors
# (three clips placed 1-7 mm off their starts; 13 of 14 at 5.5 and 6.0 mm, and with two of
# four retrained detectors at 6.5). At 5.0 mm the strip as traced counts 11 and the
# centred one places every clip within 1 mm of its start.
@pytest.mark.parametrize("seed,n,off", [(1, 8, 6.5), (4, 14, 5.0), (7, 8, -5.0)])
def test_a_path_beside_its_chain_counts_it_once_the_strip_is_centred(seed: int, n: int, off: float) -> None:
    """The path runs `off` mm beside the chain along its whole length: the strip as traced
    loses clips; moved onto the wire it counts n, each clip placed within 2 mm of its
    true start (the layout, not only the count)."""
    wire, first, last = _table(seed, n)
    path = np.array([[first + 2.0, 30.0 + off], [last - 2.0, 30.0 + off]])
    assert _count(wire, path, False) < n
    got = _read(wire, path, True)
    assert got.count == n
    poses = slack_chain(seed, n, 32.0, margin_mm=80.0).poses
    true = np.array([min(p.start[0], p.end[0]) for p in poses]) - path[0][0] + 32.0    # along the strip (one clip ext.)
    assert np.abs(np.asarray(got.starts_mm) - true).max() < 2.0


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
