"""The clip end detector's training samples (firmware/bench/clip_bends_train.py): cut to
disk table by table (--samples) and stacked again, they are the very samples the recipe
stacks in memory, half the negatives drawn from default_rng(0) in the same order
(own strips, then with --also-true the true-path ones from a fresh default_rng(0); each
kind resolution-major, then seed), and a table already cut is not cut again."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from firmware.bench import clip_bends_train as T
from vision.railways.clip_counter import bend_windows, normalised


def _fake(seed: int, res: tuple[int, int], kind: str) -> list[tuple[Any, Any, list[int], list[int], Any]]:
    """A few made-up strips of one table (evidence, weight, near, far, rows to use)."""
    rng = np.random.default_rng(seed * 10 + res[0] % 7 + (kind == "own"))
    out = []
    for _ in range(int(rng.integers(1, 4))):
        n = int(rng.integers(60, 140))
        near = sorted(int(v) for v in rng.choice(np.arange(5, n - 30), 3, replace=False))
        far = [min(n - 2, r + 20) for r in near]
        use = rng.uniform(size=n) < 0.8 if kind == "own" else None
        out.append((rng.uniform(0, 1, (n, 13)).astype(np.float32), np.ones((n, 13), np.float32), near, far, use))
    return out


def _old_recipe(seeds: list[int], resolutions: list[tuple[int, int]], kind: str) -> tuple[Any, Any]:
    """The recipe's sampling as shipped (session 21), written out: the reference."""
    rng = np.random.default_rng(0)
    xs, ys = [], []
    for res in resolutions:
        for s in seeds:
            for e, w, near, far, use in _fake(s, res, kind):
                ev = normalised(e, w)
                n = len(ev)
                for back in (False, True):
                    strip = np.ascontiguousarray(ev[::-1]) if back else ev
                    tips = np.array(sorted(n - 1 - np.array(far)) if back else near)
                    d = np.abs(np.arange(n)[:, None] - tips[None, :]).min(axis=1)
                    rows = (np.arange(max(0, tips.min() - 30), min(n, tips.max() + 90)) if use is None
                            else np.flatnonzero(use[::-1] if back else use))
                    pos, neg = rows[d[rows] <= 1], rows[d[rows] >= 3]
                    neg = neg[rng.uniform(size=len(neg)) < 0.5]
                    rr = np.concatenate([pos, neg])
                    xs.append(bend_windows(strip, rr).astype(np.float16))
                    ys.append(np.r_[np.ones(len(pos)), np.zeros(len(neg))])
    return np.vstack(xs).astype(np.float32), np.concatenate(ys).astype(np.float32)


@pytest.fixture
def fake_tables(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, tuple[int, int], str]]:
    cuts: list[tuple[int, tuple[int, int], str]] = []

    def own(seed: int, res: tuple[int, int], river: bool = False) -> Any:
        cuts.append((seed, res, "own"))
        return _fake(seed, res, "own")

    def strips(seed: int, res: tuple[int, int], river: bool = False) -> Any:
        cuts.append((seed, res, "true"))
        return [(e, w, nr, fr) for e, w, nr, fr, _ in _fake(seed, res, "true")]
    monkeypatch.setattr(T, "_own", own)
    monkeypatch.setattr(T, "_strips", strips)
    return cuts


def test_samples_cut_to_disk_stack_exactly_as_the_recipe(tmp_path: Any, fake_tables: Any) -> None:
    seeds, resolutions = [3, 1, 7], [(4608, 2592), (2304, 1296)]
    xo, yo = _old_recipe(seeds, resolutions, "own")
    xt, yt = _old_recipe(seeds, resolutions, "true")
    want_x, want_y = np.vstack([xo, xt]), np.concatenate([yo, yt])

    x, y = T.samples(seeds, resolutions, own=True)              # in memory, as main() stacks them
    x2, y2 = T.samples(seeds, resolutions)
    assert np.array_equal(np.vstack([x, x2]), want_x) and np.array_equal(np.concatenate([y, y2]), want_y)

    T.cut_samples(str(tmp_path), seeds, resolutions, own=True, also=True)
    got_x, got_y = T.load_samples(str(tmp_path), seeds, resolutions, own=True, also=True)
    assert got_x.dtype == np.float16 and got_y.dtype == np.float32
    assert np.array_equal(got_x.astype(np.float32), want_x)
    assert np.array_equal(got_y, want_y)

    fake_tables.clear()
    T.cut_samples(str(tmp_path), seeds, resolutions, own=True, also=True)
    assert fake_tables == []                                   # every table was there: none cut again


def test_float16_samples_are_standardised_as_float32_ones() -> None:
    rng = np.random.default_rng(1)
    x = (rng.normal(3.0, 2.0, (5000, 6)) * np.array([1, 2, 3, 0.1, 10, 1])).astype(np.float16)
    mu, sd = T._stats(x, chunk=777)
    x32 = x.astype(np.float32)
    assert np.allclose(mu, x32.mean(0), rtol=1e-5, atol=1e-5)
    assert np.allclose(sd, x32.std(0), rtol=1e-5, atol=1e-5)
