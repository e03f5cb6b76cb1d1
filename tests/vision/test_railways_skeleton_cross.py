"""Two chains of one colour crossing at a shallow angle come out of the skeleton whole, each
straight through the crossing (vision.railways.skeleton.paths, cross_mid_px)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.railways import skeleton as sk


def _band(lines: list[tuple[tuple[float, float], tuple[float, float]]], seed: int) -> np.ndarray:
    """Chain bands 9 px wide (1 px per mm) along the lines, speckled and closed as the reader's are."""
    m = np.zeros((400, 600), np.uint8)
    for a, b in lines:
        cv2.line(m, (int(round(a[0])), int(round(a[1]))), (int(round(b[0])), int(round(b[1]))), (1,), 9)
    rng = np.random.default_rng(seed)
    m = (m & (rng.random(m.shape) < 0.85)).astype(np.uint8)
    return np.asarray(cv2.morphologyEx(m, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8)), dtype=np.uint8)


def _x(angle_deg: float) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """Two 500 mm chains crossing at (300, 200), angle_deg apart."""
    out = []
    for a in (-angle_deg / 2, angle_deg / 2):
        d = np.array([np.cos(np.radians(a)), np.sin(np.radians(a))])
        p0, p1 = np.array([300.0, 200.0]) - d * 250, np.array([300.0, 200.0]) + d * 250
        out.append(((float(p0[0]), float(p0[1])), (float(p1[0]), float(p1[1]))))
    return out


@pytest.mark.parametrize("angle,seed", [(30.0, 1), (30.0, 2), (40.0, 3), (40.0, 4)])
def test_shallow_crossing_gives_two_whole_chains(angle: float, seed: int) -> None:
    """Each chain is one path from its end to its own other end (never swapped, never split)."""
    lines = _x(angle)
    got = [p for p in sk.paths(_band(lines, seed), 14.0, 40.0) if sk.path_length(p) > 30]
    assert len(got) == 2
    for (a, b) in lines:
        ends = [p for p in got if min(np.hypot(*(p[0] - a)), np.hypot(*(p[-1] - a))) < 20]
        assert len(ends) == 1
        p = ends[0]
        assert min(np.hypot(*(p[0] - b)), np.hypot(*(p[-1] - b))) < 20      # its own far end


def test_a_chain_ending_on_another_is_no_crossing() -> None:
    """A chain meeting another side-on (a T) leaves the through chain whole and itself apart."""
    lines = [((50.0, 200.0), (550.0, 200.0)), ((300.0, 200.0), (380.0, 380.0))]
    got = [p for p in sk.paths(_band(lines, 5), 14.0, 40.0) if sk.path_length(p) > 30]
    longest = max(got, key=sk.path_length)
    assert sk.path_length(longest) > 470
    assert float(np.abs(longest[:, 1] - 200.0).max()) < 4.0
