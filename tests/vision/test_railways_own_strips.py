"""The clip end detector's --own recipe (firmware/bench/clip_bends_train.py): a strip the
reader cut along its own path is labelled from the true clips only where the true chain
lies in the strip, and a strip that runs off its chain or is no chain's is not used."""

from __future__ import annotations

import numpy as np

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
