"""The table's clip length learnt from its chains' clip ends (vision.railways.clip_length)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.railways.clip_counter import count_clips, end_scores, load_detector
from vision.railways.clip_length import chain_votes, empty_votes, learnt_length
from railway_chains import slack_chain


def _chain(seed: int, n: int, length: float) -> tuple[np.ndarray, float, float]:  # type: ignore[type-arg]
    """A straight chain of n clips of this length with seeded random slack, as the strip
    the counter reads (cut at the standard 32 mm clip's width, as the reader does before
    it knows the length), and where its first clip starts and its last ends."""
    c = slack_chain(seed, n, length, overlap=(0.1, 0.45), margin_mm=60.0, strip_clip_mm=32.0)
    return c.strip, c.first_mm, c.last_mm


@pytest.mark.parametrize("length", [29.5, 34.5])
def test_a_brands_length_is_learnt_and_its_chains_counted_exactly(length: float) -> None:
    """Five seeded chains of 29.5 / 34.5 mm clips give their length within 0.75 mm, and
    counted with it each gives its exact count."""
    det = load_detector()
    chains = [(_chain(100 + k, n, length), n) for k, n in enumerate((5, 8, 11, 7, 9))]
    votes = empty_votes(26.0, 38.0)
    ends = []
    for (e, _, _), _n in chains:
        ends.append(end_scores(e, np.ones_like(e), det, 3.0))
        votes = chain_votes(ends[-1][0], ends[-1][1], votes)
    got = learnt_length(votes, 2.0)
    assert got is not None
    assert abs(got[0] - length) < 0.75, got
    for ((e, first, last), n), en in zip(chains, ends):
        res = count_clips(e, np.ones_like(e), got[0], 9.0, 1.25, first, last, ends=en)
        assert res.count == n


def test_ends_one_length_apart_vote_for_that_length() -> None:
    """Near ends every 40 rows with far ends 62 rows after each (31 mm) vote for 31 mm,
    though the clips follow each other closer than that."""
    near = np.full(600, -3.0, np.float32)
    far = np.full(600, -3.0, np.float32)
    near[10:500:40] = 3.0
    far[72:600:40] = 3.0
    votes = chain_votes(near, far, empty_votes(26.0, 38.0))
    got = learnt_length(votes, 2.0)
    assert got is not None and abs(got[0] - 31.0) < 0.3
    assert votes.chains == 1


def test_no_clear_peak_learns_nothing() -> None:
    """Ends everywhere (a flat vote), no chains, or a top at the end of the range searched
    learn no length: the caller keeps the River's or the standard one."""
    flat = np.full(400, 1.0, np.float32)
    assert learnt_length(chain_votes(flat, flat, empty_votes(26.0, 38.0)), 2.0) is None
    assert learnt_length(empty_votes(26.0, 38.0), 2.0) is None
    near = np.full(600, -3.0, np.float32)
    far = np.full(600, -3.0, np.float32)
    near[10:400:90] = 3.0
    far[10 + 80:600:90] = 3.0           # 40 mm apart: beyond the longest clip searched
    assert learnt_length(chain_votes(near, far, empty_votes(26.0, 38.0)), 2.0) is None
