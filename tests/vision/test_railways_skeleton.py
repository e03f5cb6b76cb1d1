"""The skeleton's degree-two merge: the same runs as merging one pair at a time, in one pass."""

from __future__ import annotations

import time
from collections import Counter

import cv2
import numpy as np
from hypothesis import given, settings, strategies as st

from vision.railways import skeleton as sk
from vision.railways.chains import chain_paths
from vision.railways.config import RailwaysConfig

Edge = list[tuple[int, int]]


def _pairwise(edges: list[Edge]) -> list[Edge]:
    """The old merge, one pair per pass over a rebuilt edge list: the reference."""
    changed = True
    while changed:
        changed = False
        ends: dict[tuple[int, int], list[int]] = {}
        for i, e in enumerate(edges):
            ends.setdefault(e[0], []).append(i)
            ends.setdefault(e[-1], []).append(i)
        for node, idx in ends.items():
            if len(idx) == 2 and idx[0] != idx[1]:
                a, b = edges[idx[0]], edges[idx[1]]
                a2 = a if a[-1] == node else a[::-1]
                b2 = b if b[0] == node else b[::-1]
                edges = [e for k, e in enumerate(edges) if k not in idx] + [a2 + b2[1:]]
                changed = True
                break
    return edges


def _canon(edges: list[Edge]) -> Counter[object]:
    """Edges up to direction (a closed run up to where it was cut)."""
    out: Counter[object] = Counter()
    for e in edges:
        t = tuple(e)
        out[("loop", frozenset(t)) if t[0] == t[-1] else min(t, t[::-1])] += 1
    return out


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000))
def test_merge_matches_pairwise_reference(seed: int) -> None:
    """Random drawn skeletons with short edges dropped merge into the same runs as the old pairwise merge."""
    rng = np.random.default_rng(seed)
    m = np.zeros((70, 70), np.uint8)
    for _ in range(int(rng.integers(1, 6))):
        pts = rng.integers(0, 70, (int(rng.integers(2, 5)), 2)).astype(np.int32)
        cv2.polylines(m, [pts.reshape(-1, 1, 2)], bool(rng.integers(0, 2)), (1,), int(rng.integers(1, 5)))
    edges, _ = sk.graph_edges(sk.thinning(m))
    edges = [e for e in edges if not (len(e) < 8 and rng.random() < 0.5)]
    assert _canon(sk._merge_degree_two(list(edges))) == _canon(_pairwise(list(edges)))


def test_merge_joins_a_run_and_leaves_a_junction() -> None:
    """Three edges in a row join into one; at a three-way node nothing joins; a ring stays one closed run."""
    run = [[(0, 0), (0, 1)], [(0, 2), (0, 1)], [(0, 2), (0, 3), (0, 4)]]
    assert sk._merge_degree_two(run) == [[(0, 0), (0, 1), (0, 2), (0, 3), (0, 4)]]
    star = [[(5, 5), (5, 6)], [(5, 5), (6, 5)], [(5, 5), (4, 4)]]
    assert _canon(sk._merge_degree_two(star)) == _canon(star)
    ring = [[(0, 0), (0, 1), (1, 1)], [(1, 1), (1, 0), (0, 0)]]
    got = sk._merge_degree_two(ring)
    assert len(got) == 1 and got[0][0] == got[0][-1] and set(got[0]) == {(0, 0), (0, 1), (1, 1), (1, 0)}


def test_merge_is_linear_on_a_long_run() -> None:
    """20 000 edges end to end merge in well under a second (the pairwise merge took minutes)."""
    edges = [[(0, 2 * i), (0, 2 * i + 1), (0, 2 * i + 2)] for i in range(20_000)]
    edges = edges[::2] + edges[1::2]                # out of order, as a pixel walk leaves them
    t = time.perf_counter()
    got = sk._merge_degree_two(edges)
    assert time.perf_counter() - t < 1.0
    assert len(got) == 1 and len(got[0]) == 40_001


def test_short_band_at_any_heading_gives_one_whole_path() -> None:
    """A 30 mm, 9 mm wide band (a chain a clip long between two cards) at every heading gives chain_paths one path of at least 24 mm (at 30 or 60 degrees the plain skeleton gives none)."""
    for ang in range(0, 180, 5):
        m = np.zeros((60, 60), np.uint8)
        a = np.radians(ang)
        d = np.array([np.cos(a), np.sin(a)]) * 15
        cv2.line(m, (int(round(30 - d[0])), int(round(30 - d[1]))), (int(round(30 + d[0])), int(round(30 + d[1]))),
                 (1,), 9)
        got = [sk.path_length(p) for p in chain_paths(m, (0.0, 0.0), RailwaysConfig())]
        assert len(got) == 1 and got[0] >= 24.0, (ang, got)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000))
def test_unstair_keeps_the_skeleton_connected(seed: int) -> None:
    """unstair only removes pixels, never splits a piece or drops an end, and leaves no pixel whose 4-neighbours make a removable corner."""
    rng = np.random.default_rng(seed)
    m = np.zeros((70, 70), np.uint8)
    for _ in range(int(rng.integers(1, 5))):
        pts = rng.integers(0, 70, (int(rng.integers(2, 5)), 2)).astype(np.int32)
        cv2.polylines(m, [pts.reshape(-1, 1, 2)], False, (1,), int(rng.integers(3, 12)))
    t = sk.thinning(m)
    u = sk.unstair(t)
    assert np.all(u <= t)
    assert cv2.connectedComponents(u, connectivity=8)[0] == cv2.connectedComponents(t, connectivity=8)[0]
    ring = np.ones((3, 3), np.float32)
    ring[1, 1] = 0
    ends_t = (cv2.filter2D(t, cv2.CV_16S, ring, borderType=cv2.BORDER_CONSTANT) == 1) & (t > 0)
    assert np.all(u[ends_t] > 0)
    assert np.array_equal(sk.unstair(u), u)
