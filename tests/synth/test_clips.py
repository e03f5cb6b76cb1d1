"""Paperclip wire geometry and chains laid along a curve (vision.synth.clips)."""

from __future__ import annotations

import math

import numpy as np

from vision.synth import clips as C


def test_one_clip_is_as_long_and_wide_as_a_gem_clip() -> None:
    """The wire centre line spans the clip's length and its width less one wire."""
    w = C.clip_wire(32.0, 9.0, 1.0)
    assert abs((w[:, 0].max() - w[:, 0].min()) - 32.0) < 0.3
    assert abs((w[:, 1].max() - w[:, 1].min()) - 8.0) < 0.3


def test_a_clip_on_its_edge_is_a_thin_line() -> None:
    """Turned 90 degrees about its axis, the clip's footprint is about one wire wide."""
    pose = C.ClipPose((0.0, 0.0), (32.0, 0.0), twist_deg=90.0)
    pts, z = C.clip_points(pose)
    assert np.ptp(pts[:, 1]) < 0.01 and np.ptp(z) > 7.0


def test_chain_clips_follow_the_overlaps() -> None:
    """Each clip is a chord of the curve one clip long, the next starting length-overlap after it."""
    path = np.array([[0.0 + t, 40 * math.sin(t / 80)] for t in np.linspace(0, 400, 800)])
    overlaps = [4.0, 10.0, 15.0, 3.0, 8.0]
    poses = C.layout_chain(path, 6, 32.0, overlaps)
    assert len(poses) == 6
    for a, b, o in zip(poses, poses[1:], overlaps):
        assert abs(a.length - 32.0) < 1e-6
        assert abs(math.dist(a.start, b.start) - (32.0 - o)) < 1e-6


def test_fitted_overlaps_end_the_chain_at_the_path_end() -> None:
    """fit_overlaps finds slack so that exactly `count` clips reach the end of the path."""
    path = np.array([[t, 0.2 * t] for t in np.linspace(0, 300, 300)])
    for count, weights in ((12, np.full(11, 0.5)), (15, np.linspace(0, 1, 14))):
        ov = C.fit_overlaps(path, count, 32.0, weights)
        assert ov is not None and len(ov) == count - 1
        assert all(C.OVERLAP_MIN * 32 - 1e-6 <= o <= C.OVERLAP_MAX * 32 + 1e-6 for o in ov)
        poses = C.layout_chain(path, count, 32.0, ov)
        assert math.dist(poses[-1].end, path[-1]) < 1.0


def test_impossible_slack_is_refused() -> None:
    """Too many clips for the path even fully bunched: no overlaps are invented."""
    path = np.array([[0.0, 0.0], [100.0, 0.0]])
    assert C.fit_overlaps(path, 12, 32.0, np.full(11, 0.5)) is None


def test_outline_contains_the_wire() -> None:
    """Every wire point lies inside (or on) the clip's footprint used for touch tests."""
    import cv2
    pose = C.ClipPose((10.0, 5.0), (38.0, 20.0), twist_deg=20.0, flipped=True)
    pts, _ = C.clip_points(pose)
    poly = C.clip_outline(pose).astype(np.float32).reshape(-1, 1, 2)
    d = [cv2.pointPolygonTest(poly, (float(x), float(y)), True) for x, y in pts]
    assert min(d) > -0.6
