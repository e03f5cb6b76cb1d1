"""The clip end detector's --own recipe (firmware/bench/clip_bends_train.py): a strip the
reader cut along its own path is labelled from the true clips only where the true chain
lies in the strip, and a strip that runs off its chain or is no chain's is not used."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from firmware.bench.clip_bends_train import OWN_NEAR_MM, own_labels
from vision.railways.clip_counter import STEP_MM


def _chain(n: int, pitch: float = 24.0, length: float = 32.0, y: float = 0.0) -> list[list[dict[str, list[float]]]]:
    """One straight chain along x from x = 0: clip i from i*pitch to i*pitch + length."""
    return [[{"start": [i * pitch, y], "end": [i * pitch + length, y]} for i in range(n)]]


def _strip(x0: float, x1: float, y: float = 0.0) -> np.ndarray:
    xs = np.arange(x0, x1 + 1e-9, STEP_MM)
    return np.stack([xs, np.full_like(xs, y)], axis=1)


def _row(pts: np.ndarray, x: float) -> int:
    return int(np.argmin(np.abs(pts[:, 0] - x)))


def test_a_strip_along_its_chain_is_labelled_at_the_true_clip_ends() -> None:
    chains = _chain(5)                               # the chain runs from x = 0 to 128 mm
    pts = _strip(-32.0, 160.0, y=2.0)                # 2 mm beside it, a clip past each end
    lo, hi = _row(pts, 0.0), _row(pts, 128.0)
    lab = own_labels(pts, lo, hi, chains)
    assert lab is not None
    near, far, use = lab
    assert near == [_row(pts, 24.0 * i) for i in range(5)]
    assert far == [_row(pts, 24.0 * i + 32.0) for i in range(5)]
    assert use.all()                                 # past both ends: no clip there, labelled


def test_a_strip_off_its_chain_or_on_no_chain_is_not_used() -> None:
    chains = _chain(5)
    # a shortcut: the strip's seen rows leave the chain by 10 mm over half their length
    pts = _strip(-32.0, 160.0)
    pts[pts[:, 0] > 64.0, 1] = 10.0
    assert own_labels(pts, _row(pts, 0.0), _row(pts, 128.0), chains) is None
    # a false link 20 mm beside every chain
    far = _strip(-32.0, 160.0, y=20.0)
    assert own_labels(far, _row(far, 0.0), _row(far, 128.0), chains) is None


def test_rows_near_a_clip_end_only_partly_in_the_strip_are_not_labelled() -> None:
    chains = _chain(8)                               # x = 0 .. 200 mm
    pts = _strip(-32.0, 232.0)
    # the strip runs 6 mm beside the chain's last 30 mm (a bend carried straight, say):
    # the far ends at 176 and 200 mm lie there
    pts[pts[:, 0] > 170.0, 1] = 1.5 * OWN_NEAR_MM
    lab = own_labels(pts, _row(pts, 0.0), _row(pts, 200.0), chains)
    assert lab is not None
    near, far, use = lab
    last_far = _row(pts, 200.0)
    assert far == [_row(pts, 24.0 * i + 32.0) for i in range(6)] and len(near) == 8
    assert not use[last_far - 3:last_far + 4].any()  # neither a clip end nor bare: no label
    assert not use[_row(pts, 220.0)]                  # past an end not in the strip: unknown
    assert use[_row(pts, -20.0)]                      # past the end that is: bare


def test_the_rivers_own_strip_is_the_one_counted_with_the_rivers_detector(monkeypatch: pytest.MonkeyPatch) -> None:
    """--own --river: of the strips the reader cuts, the River's is the one counted with a
    detector of its own (read_river's count), not the links' centred ones; it is labelled
    against the River's clips, the links' strips against the links' chains."""
    import calibration.geometry
    import vision.synth
    from firmware.bench import clip_bends_train as T
    from firmware.bench import clip_count as B
    from vision.railways import pipeline as pl
    from vision.railways import reader

    def strip_of(tag: float) -> Any:
        return pl.ChainStrip(np.full((4, 3), tag, np.float32), np.ones((4, 3), np.float32), 0, 3,
                             np.zeros((4, 2)), (np.zeros(4, np.float32), np.zeros(4, np.float32)), False)

    def chain_strip(*a: Any, **k: Any) -> Any:
        return strip_of(a[0])

    def analyze(*a: Any, **k: Any) -> None:        # the reader's calls, in its order: links, then the River
        pl._chain_strip(1.0, None, None, None, None, 32.0, None, stations=[], reached=(False, False), centre=True)
        pl._chain_strip(2.0, None, None, None, None, 32.0, None, stations=[], reached=(False, False), centre=True)
        pl._chain_strip(3.0, None, None, None, None, 31.0, None, "river detector", stations=None, ext_clips=1.55)
    pieces = [{"kind": "clip_chain", "clips": ["link"]}, {"kind": "river", "clips": ["river"]}]
    monkeypatch.setattr(B, "scene", lambda seed, res: (None, None, None))
    monkeypatch.setattr(B, "profile_for", lambda cam: None)
    monkeypatch.setattr(calibration.geometry, "locate_table", lambda img, prof: None)
    monkeypatch.setattr(reader, "analyze", analyze)
    monkeypatch.setattr(pl, "_chain_strip", chain_strip)
    monkeypatch.setattr(vision.synth, "random_scene", lambda game, seed, resolution: {"pieces": pieces})
    links, link_chains = T.reader_strips(2100, (4608, 2592))
    river, river_chains = T.reader_strips(2100, (4608, 2592), river=True)
    assert [float(s[0][0, 0]) for s in links] == [1.0, 2.0] and link_chains == [["link"]]
    assert [float(s[0][0, 0]) for s in river] == [3.0] and river_chains == [["river"]]
