"""The chain band split by colour: a white chain that silver's evidence outweighs stays white away from the River."""

from __future__ import annotations

import cv2
import numpy as np

from vision.railways.config import CLIP_COLOURS, RailwaysConfig
from vision.railways.trace import colour_bands

PX = 2          # wire maps at 2 px/mm, bands at 1 px/mm


def _maps(seed: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """A 300 x 300 mm table: a white chain (white evidence 60% of silver's), the River's blue
    with a silver clip in it, and weak silver noise everywhere (a dark noisy table)."""
    rng = np.random.default_rng(seed)
    n = 300 * PX
    wires = {c: np.zeros((n, n), np.uint8) for c in CLIP_COLOURS}
    wires["silver"][:] = (rng.random((n, n)) < 0.05) * 40           # noise: silver wins the bare table
    chain = np.zeros((n, n), np.uint8)
    cv2.line(chain, (40 * PX, 60 * PX), (260 * PX, 60 * PX), (1,), 9 * PX)
    loops = (rng.random((n, n)) < 0.7) & (chain > 0)
    wires["silver"][loops] = 200
    wires["white"][loops] = 120
    river = np.zeros((n, n), np.uint8)
    cv2.line(river, (40 * PX, 200 * PX), (260 * PX, 200 * PX), (1,), 9 * PX)
    wires["blue"][(river > 0) & (rng.random((n, n)) < 0.7)] = 220
    clip = np.zeros((n, n), np.uint8)
    cv2.line(clip, (140 * PX, 200 * PX), (172 * PX, 200 * PX), (1,), 9 * PX)
    wires["blue"][clip > 0] = 0
    wires["silver"][clip > 0] = 200
    wires["white"][clip > 0] = 120
    band = np.ones((300, 300), np.uint8)          # the whole table differs from its background
    return band, wires


def test_white_chain_beats_silver_away_from_the_river() -> None:
    """The chain's cells go to white; the River's silver clip stays silver but for a speck in its middle; bare noisy table is not white."""
    band, wires = _maps(4)
    pc = colour_bands(band, wires, float(PX), RailwaysConfig())
    assert pc["white"][60, 50:250].mean() > 0.95
    assert pc["silver"][200, 145:168].mean() > 0.6 and pc["white"][190:211, 130:182].sum() < 10 * 9
    assert pc["white"][120:180, :].sum() == 0 and pc["silver"][120:180, :].mean() > 0.5


def test_pale_rule_off_gives_silver_the_chain() -> None:
    """With pale_white_min 0 (the old split) silver takes the white chain: the case the rule is for."""
    band, wires = _maps(5)
    pc = colour_bands(band, wires, float(PX), RailwaysConfig(pale_white_min=0.0))
    assert pc["white"][60, 50:250].mean() < 0.05 and pc["silver"][60, 50:250].mean() > 0.95
