"""The counter's slack prior (vision.railways.clip_counter._dp_smooth, count_clips'
pitch_change): a gap between clips that differs from the one before it pays for it."""

from __future__ import annotations

import numpy as np
import pytest

from vision.railways.clip_counter import _dp, _dp_smooth, count_clips

from test_railways_counter import _chain_strip

NEG = np.float32(-1e9)


def _only(n: int, rows: list[int]) -> np.ndarray:  # type: ignore[type-arg]
    """An end window: 0 at the given rows, ruled out elsewhere."""
    out = np.full(n, NEG, np.float32)
    out[rows] = 0.0
    return out


def _stray_scores() -> tuple[np.ndarray, list[int]]:  # type: ignore[type-arg]
    """A taut chain's clip starts every 50 rows (0.78 clip), each seen at 2.5 log-odds,
    and two stray detector peaks (2.3) that let a layout of 6 clips with gaps of 33, 33,
    34, 50, 50 rows score a little more than the true 5."""
    n = 201
    s = np.full(n, -3.0, np.float32)
    true = [0, 50, 100, 150, 200]
    s[true] = 2.5
    s[[33, 66]] = 2.3
    return s, true


def test_stray_peaks_do_not_add_a_clip_under_the_slack_prior() -> None:
    """Without the prior the stray peaks make 6 clips; with it the true 5 at their rows."""
    s, true = _stray_scores()
    start, end = _only(len(s), [0]), _only(len(s), [200])
    plain = _dp(s.reshape(-1, 1), np.zeros((1, 1, 31), np.float32), 32, 62, 2.0, start, end, 1.0)[1]
    assert len(plain) == 6
    smooth = _dp_smooth(s, 32, 62, 2.0, start, end, 14.0 * 0.5 / 32.0)[1]
    assert [u for u, _ in smooth] == true


def test_without_change_cost_the_smooth_programme_is_the_plain_one() -> None:
    """At no cost per changed gap both programmes reach the same best score and count
    (seeded random scores, free ends)."""
    rng = np.random.default_rng(5)
    for _ in range(20):
        n = int(rng.integers(80, 400))
        s = rng.normal(0.0, 2.0, n).astype(np.float32)
        start, end = np.zeros(n, np.float32), np.zeros(n, np.float32)
        t1, q1 = _dp(s.reshape(-1, 1), np.zeros((1, 1, 31), np.float32), 32, 62, 1.0, start, end, 1.0)
        t2, q2 = _dp_smooth(s, 32, 62, 1.0, start, end, 0.0)
        assert t2 == pytest.approx(t1, abs=1e-3)
        assert len(q2) == len(q1)
        assert all(32 <= b - a <= 62 for (a, _), (b, _) in zip(q2, q2[1:]))


def test_a_lone_clip_and_no_clip() -> None:
    """A strip with room for one clip only gives one; no allowed end gives none."""
    s = np.array([3.0] + [-3.0] * 20, np.float32)
    assert len(_dp_smooth(s, 32, 62, 2.0, _only(21, [0]), _only(21, [0]), 0.2)[1]) == 1
    assert _dp_smooth(s, 32, 62, 2.0, _only(21, [0]), np.full(21, NEG, np.float32), 0.2)[1] == []


@pytest.mark.parametrize("n,overlap", [(6, 0.1), (9, 0.45), (14, 0.3), (3, 0.2)])
def test_rendered_chains_keep_their_counts_with_the_prior(n: int, overlap: float) -> None:
    """Taut, bunched and medium rendered chains are still counted exactly with the prior on."""
    s, poses, w, wire = _chain_strip(7 + n, n, overlap)
    res = count_clips(s, np.ones_like(s), 32.0, w, wire, 20.0, poses[-1].end[0], clip_cost=2.0, pitch_change=14.0)
    assert res.count == n


def _carded(windows, card_margin: float = 8.0):  # type: ignore[no-untyped-def]
    """8 rendered clips seen from 35 mm to 12 mm short of the chain's end (a trace
    stopped short at both cards), counted with the given card windows."""
    s, poses, w, wire = _chain_strip(21, 8, 0.3)
    last = poses[-1].end[0]
    return count_clips(s, np.ones_like(s), 32.0, w, wire, 35.0, last - 12.0, clip_cost=2.0, pitch_change=14.0,
                       end_slope=0.15, end_before_mm=20.0, end_after_mm=30.0, windows=windows,
                       card_margin=card_margin), last


def test_a_count_between_two_cards_is_sure_when_it_resists_a_wide_price_change() -> None:
    """Seen ends away from the end clips make the ends rule refuse; with both ends in
    cards' windows and a count that resists +-8 of the price it is sure, with one window
    only (or the card rule off) it is not."""
    _, last = _carded((None, None))
    both = ((10.0, 26.0), (last - 4.0, last + 12.0))
    res, _ = _carded(both)
    assert res.count == 8 and res.confidence >= 0.5 and res.margin == 8.0
    assert _carded(both, card_margin=0.0)[0].confidence < 0.5
    assert _carded(((10.0, 26.0), None))[0].confidence < 0.5
    assert _carded((None, None))[0].confidence < 0.5
