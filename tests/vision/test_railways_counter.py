"""Clip counting along one straightened chain (vision.railways.clip_counter)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.railways.clip_counter import STEP_MM, count_clips, oriented_evidence
from vision.synth import clips as C
from vision.synth import railways as R
from vision.synth.canvas import TableCanvas
from vision.synth.colour import lin, linear_to_srgb


def _chain_strip(seed: int, n: int, overlap_frac: float, length: float = 32.0):  # type: ignore[no-untyped-def]
    """A straight red chain drawn top-down at 2 px/mm and its wire-evidence strip."""
    rng = np.random.default_rng(seed)
    width, wire = length * 9 / 32, 1.25 * length / 32
    canvas = TableCanvas((0, 0), (n * length + 60, 40), 2.0, background=lin((150, 160, 170)))
    ov = [length * overlap_frac] * (n - 1)
    path = np.array([[20.0, 20.0], [n * length + 40, 20.0]])
    tw = [float(abs(rng.normal(0, 6))) for _ in range(n)]
    poses = C.layout_chain(path, n, length, ov, tw, list(rng.uniform(size=n) < 0.5),
                           list(rng.uniform(size=n) < 0.5))
    piece = {"clips": [R._pose_dict(p) for p in poses], "colour": "red", "wire_mm": wire,
             "width_mm": width, "seed": seed}
    R.draw_clip_chain(canvas, piece)
    img = (linear_to_srgb(canvas.image) * 255).astype(np.float32)
    red = np.clip((img[..., 2] - np.maximum(img[..., 0], img[..., 1]) - 30) / 80, 0, 1)
    half = int((width / 2 + wire + 1) / STEP_MM)
    strip = np.ascontiguousarray(red[40 - half:40 + half + 1, :].T).astype(np.float32)
    return strip, poses, width, wire


def _count(strip, poses, width, wire, length=32.0):  # type: ignore[no-untyped-def]
    return count_clips(strip, np.ones_like(strip), length, width, wire, 20.0, poses[-1].end[0])


@pytest.mark.parametrize("n,overlap", [(6, 0.1), (9, 0.45), (14, 0.3), (3, 0.2)])
def test_flat_chains_are_counted_exactly(n: int, overlap: float) -> None:
    """Taut, medium and bunched straight chains of flat clips give their exact count."""
    strip, poses, w, wire = _chain_strip(7 + n, n, overlap)
    assert _count(strip, poses, w, wire).count == n


def test_same_length_different_counts_are_told_apart() -> None:
    """Two chains of about the same length (8 taut clips, 12 bunched) get 8 and 12: the
    counter reads clips, not length / pitch."""
    s1, p1, w, wire = _chain_strip(3, 8, 0.12)
    s2, p2, _, _ = _chain_strip(4, 12, 0.42)
    len1 = p1[-1].end[0] - p1[0].start[0]
    len2 = p2[-1].end[0] - p2[0].start[0]
    assert abs(len1 - len2) < 15.0
    assert _count(s1, p1, w, wire).count == 8
    assert _count(s2, p2, w, wire).count == 12


def test_clip_starts_land_on_the_true_clips() -> None:
    """The fitted clip positions are within 2 mm of where the clips really start."""
    strip, poses, w, wire = _chain_strip(11, 7, 0.25)
    res = _count(strip, poses, w, wire)
    true = sorted(min(p.start[0], p.end[0]) for p in poses)
    assert res.count == 7
    assert max(abs(a - b) for a, b in zip(sorted(res.starts_mm), true)) < 2.0


def test_bends_show_across_and_legs_along() -> None:
    """A line across the strip shows in `across` only; a line along it in `along` only."""
    e = np.zeros((60, 21), np.float32)
    e[30, 4:17] = 1.0          # across
    e[5:25, 10] = 1.0          # along
    across, along = oriented_evidence(e)
    assert across[30, 10] > 0.5 and along[30, 10] < 0.2
    assert along[15, 10] > 0.3 and across[15, 10] < 0.1


def test_an_empty_strip_has_no_clips() -> None:
    """Nothing to fit: count 0, confidence 0."""
    e = np.zeros((10, 21), np.float32)
    res = count_clips(e, np.ones_like(e), 32.0, 9.0, 1.25, 0.0, 4.0)
    assert res.count == 0 and res.confidence == 0.0
