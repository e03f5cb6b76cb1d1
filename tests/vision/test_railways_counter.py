"""Clip counting along one straightened chain (vision.railways.clip_counter)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from vision.railways.chains import strip
from vision.railways.clip_counter import STEP_MM, count_clips, load_detector, oriented_evidence
from vision.railways.frame import TopView
from vision.railways.pipeline import _presence_limits
from vision.synth import clips as C
from vision.synth import railways as R
from vision.synth.canvas import TableCanvas
from vision.synth.colour import lin

from railway_chains import red_evidence, slack_chain


def _red(canvas: TableCanvas) -> np.ndarray:  # type: ignore[type-arg]
    return red_evidence(canvas)


def _draw(canvas: TableCanvas, path: np.ndarray, n: int, length: float, overlap_frac: float,  # type: ignore[type-arg]
          seed: int, edge_on: tuple[int, ...] = ()) -> list[C.ClipPose]:
    rng = np.random.default_rng(seed)
    width, wire = length * 9 / 32, 1.25 * length / 32
    ov = [length * overlap_frac] * (n - 1)
    tw = [88.0 if i in edge_on else float(abs(rng.normal(0, 6))) for i in range(n)]
    poses = C.layout_chain(path, n, length, ov, tw, list(rng.uniform(size=n) < 0.5),
                           list(rng.uniform(size=n) < 0.5))
    piece = {"clips": [R._pose_dict(p) for p in poses], "colour": "red", "wire_mm": wire,
             "width_mm": width, "seed": seed}
    R.draw_clip_chain(canvas, piece)
    return poses


def _chain_strip(seed: int, n: int, overlap_frac: float, length: float = 32.0,  # type: ignore[no-untyped-def]
                 edge_on: tuple[int, ...] = ()):
    """A straight red chain drawn top-down at 2 px/mm and its wire-evidence strip."""
    width, wire = length * 9 / 32, 1.25 * length / 32
    canvas = TableCanvas((0, 0), (n * length + 60, 40), 2.0, background=lin((150, 160, 170)))
    path = np.array([[20.0, 20.0], [n * length + 40, 20.0]])
    poses = _draw(canvas, path, n, length, overlap_frac, seed, edge_on)
    red = _red(canvas)
    half = int((width / 2 + wire + 2.5) / STEP_MM)
    s = np.ascontiguousarray(red[40 - half:40 + half + 1, :].T).astype(np.float32)
    return s, poses, width, wire


def _count(strip_, poses, width, wire, length=32.0):  # type: ignore[no-untyped-def]
    return count_clips(strip_, np.ones_like(strip_), length, width, wire, 20.0, poses[-1].end[0])


@pytest.mark.parametrize("n,overlap", [(6, 0.1), (9, 0.45), (14, 0.3), (3, 0.2)])
def test_flat_chains_are_counted_exactly(n: int, overlap: float) -> None:
    """Taut, medium and bunched straight chains of flat clips give their exact count."""
    s, poses, w, wire = _chain_strip(7 + n, n, overlap)
    assert _count(s, poses, w, wire).count == n


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
    s, poses, w, wire = _chain_strip(11, 7, 0.25)
    res = _count(s, poses, w, wire)
    true = sorted(min(p.start[0], p.end[0]) for p in poses)
    assert res.count == 7
    assert max(abs(a - b) for a, b in zip(sorted(res.starts_mm), true)) < 2.0


def test_a_clip_on_its_edge_still_counts() -> None:
    """A chain with one clip turned on its edge (a thin line) keeps its exact count."""
    s, poses, w, wire = _chain_strip(21, 7, 0.25, edge_on=(3,))
    assert _count(s, poses, w, wire).count == 7


def test_a_curved_chain_is_counted_along_its_curve() -> None:
    """A chain laid round a 70 mm radius arc, straightened along the arc, gives its count."""
    length, n = 32.0, 8
    width, wire = length * 9 / 32, 1.25 * length / 32
    t = np.linspace(-0.3, 2.9, 300)
    arc = np.stack([100 + 70 * np.cos(t), 100 + 70 * np.sin(t)], axis=1)
    canvas = TableCanvas((0, 0), (200, 200), 2.0, background=lin((150, 160, 170)))
    poses = _draw(canvas, arc, n, length, 0.3, 5)
    assert len(poses) == n
    centre = np.array([poses[0].start] + [((p.start[0] + p.end[0]) / 2, (p.start[1] + p.end[1]) / 2)
                                          for p in poses] + [poses[-1].end])
    from vision.railways.chains import extend
    from vision.railways.skeleton import path_length
    view = TopView(np.zeros((0, 0, 3), np.uint8), np.zeros((0, 0, 3), np.uint8), (0.0, 0.0), 2.0)
    e, _, _ = strip(_red(canvas), view, extend(centre, length), width / 2 + wire + 2.5)
    first = length
    last = length + path_length(centre)
    res = count_clips(e, np.ones_like(e), length, width, wire, first, last)
    assert res.count == n


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


def test_a_solid_patch_past_the_end_is_not_wire() -> None:
    """The wire's end is found at the last clip, not at a cube of the chain's colour
    lying just past it; a thin wire past the end (a gap of a few samples) still counts."""
    e = np.zeros((200, 35), np.float32)
    e[40:120, 10] = e[40:120, 24] = 1.0            # two legs of wire up to row 120
    e[121:141, 8:27] = 1.0                          # a 10 mm solid patch right after
    lo, hi = _presence_limits(e, 60, 100, 6, 5)
    assert lo == 40 and hi == 119
    e[121:141, 8:27] = 0.0
    e[123:130, 17] = 1.0                            # more wire after a 1.5 mm gap
    assert _presence_limits(e, 60, 100, 6, 5)[1] == 129


def test_a_damaged_detector_file_is_one_clear_error(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A missing or damaged detector file names itself and the fix in one line."""
    bad = tmp_path / "clip_bends.json"
    bad.write_text(json.dumps({"w1": {}}))
    with pytest.raises(RuntimeError) as err:
        load_detector(str(bad))
    msg = str(err.value)
    assert "\n" not in msg and "clip_bends.json" in msg and "reinstall tableref" in msg
    assert math.isfinite(float(load_detector().b2))


def _slack_strip(seed: int, n: int, length: float = 32.0, patch_mm: float = 0.0):  # type: ignore[no-untyped-def]
    """A straight red chain of n flat clips, each joint slack to its own seeded degree,
    with a solid patch of its colour patch_mm long just past its last clip."""
    c = slack_chain(seed, n, length, patch_mm=patch_mm)
    return c.strip, c.poses, c.last_mm


@pytest.mark.parametrize("seed,n", [(31, 20), (32, 24), (33, 27)])
def test_long_chains_of_uneven_slack_are_counted_exactly(seed: int, n: int) -> None:
    """Chains of 20-27 clips, each joint slack to its own seeded degree, give their count."""
    s, poses, end = _slack_strip(seed, n)
    res = count_clips(s, np.ones_like(s), 32.0, 9.0, 1.25, 20.0, end, end_before_mm=16.0,
                      end_after_mm=30.0, end_slope=0.15)
    assert res.count == n


def test_an_end_clip_short_of_a_patch_of_its_colour_is_found() -> None:
    """The wire is seen to run 12 mm past the last clip (a cube of the chain's colour):
    the counter finds the end clip inside the seen end and keeps the exact count."""
    s, poses, end = _slack_strip(41, 9, patch_mm=12.0)
    lo, hi = _presence_limits(s, 60, int(end / STEP_MM) - 40, 6)
    assert hi * STEP_MM > end + 10.0                # the seen end is the patch's
    res = count_clips(s, np.ones_like(s), 32.0, 9.0, 1.25, lo * STEP_MM, hi * STEP_MM, end_before_mm=16.0,
                      end_after_mm=30.0, end_slope=0.15)
    assert res.count == 9
    assert abs(res.starts_mm[-1] + 32.0 - end) < 2.0


def test_a_clean_chain_is_confident_and_a_half_erased_one_is_not() -> None:
    """Confidence >= 0.5 (the reader's 'confident') for a clean chain counted exactly;
    below it once 40 mm of the chain's wire is erased, where no clip end can be seen."""
    s, poses, w, wire = _chain_strip(12, 8, 0.3)
    res = _count(s, poses, w, wire)
    assert res.count == 8 and res.confidence >= 0.5
    s2 = s.copy()
    s2[int(100 / STEP_MM):int(140 / STEP_MM)] = 0.0
    assert _count(s2, poses, w, wire).confidence < 0.5


def test_end_costs_inside_the_seen_end_and_outside_it_only_where_bare() -> None:
    """An end clip 11 mm inside the seen end pays 10 mm of slope; outside it pays only
    when the strip past the end is bare (else it is free); past the window it is barred."""
    from vision.railways.clip_counter import _end_gain
    inside = np.array([22.0, 0.0, -10.0, -50.0])          # rows (0.5 mm): 11 mm in, at, 5 mm out, 25 mm out
    g = _end_gain(inside, 40.0, 60.0, 0.15, 1.0, 0.15)
    assert g[0] == pytest.approx(-1.5) and g[1] == 0.0 and g[2] == pytest.approx(-0.6) and g[3] < -1e8
    assert _end_gain(inside, 40.0, 60.0, 0.15, 1.0, 0.0)[2] == 0.0


def test_a_strip_that_stops_inside_its_chain_is_not_confident() -> None:
    """A path cut short (the trace broke at a crossing): the strip starts inside the
    chain, so no wire is seen to end there and the count is not confident, though the
    DP puts a clip right at the strip's start (without the bare-end check it was flagged);
    the same chain whole is confident."""
    s, poses, w, wire = _chain_strip(12, 8, 0.3)
    whole = _count(s, poses, w, wire)
    assert whole.count == 8 and whole.confidence >= 0.5
    start = poses[2].start[0] - 1.0                    # mid-chain, 1 mm before the third clip
    cut = np.ascontiguousarray(s[int(start / STEP_MM):])
    last = poses[-1].end[0] - start
    res = count_clips(cut, np.ones_like(cut), 32.0, w, wire, 0.0, last)
    unasked = count_clips(cut, np.ones_like(cut), 32.0, w, wire, 0.0, last, bare_mm=(0.0, 0.0))
    assert res.count < 8 and unasked.count == res.count
    assert unasked.confidence >= 0.5 and res.confidence < 0.5
