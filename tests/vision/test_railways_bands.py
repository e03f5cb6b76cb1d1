"""The chain band split by colour: a white chain that silver's evidence outweighs stays white away from the River."""

from __future__ import annotations

import cv2
import numpy as np

from vision.railways.config import CLIP_COLOURS, RailwaysConfig
from vision.railways.trace import colour_bands, table_near

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


def _green_on_a_ruled_mat(seed: int) -> tuple[np.ndarray, dict[str, np.ndarray], np.ndarray]:
    """A green chain the colour-blind band missed (band empty there), pale ruled lines
    (white evidence) every 10 mm, a green card's edge (masked) and a thin green printed line."""
    rng = np.random.default_rng(seed)
    n = 300 * PX
    wires = {c: np.zeros((n, n), np.uint8) for c in CLIP_COLOURS}
    for k in range(0, n, 10 * PX):
        wires["white"][:, k:k + 2] = 60
        wires["white"][k:k + 2, :] = 60
    chain = np.zeros((n, n), np.uint8)
    cv2.line(chain, (40 * PX, 100 * PX), (260 * PX, 120 * PX), (1,), 9 * PX)
    wires["green"][(chain > 0) & (rng.random((n, n)) < 0.3)] = 120
    wires["green"][230 * PX:230 * PX + 2, 40 * PX:260 * PX] = 200      # a printed line, 1 mm wide
    masked = np.zeros((300, 300), np.uint8)
    masked[250:300, 0:60] = 1
    wires["green"][250 * PX - 2:250 * PX + 2, 0:60 * PX] = 200           # the card's edge
    return np.zeros((300, 300), np.uint8), wires, masked


def test_a_chain_of_its_own_colour_is_band_where_the_ink_missed_it() -> None:
    """The green chain's cells are green band; the ruled lines, a printed line and a card's edge are not."""
    for seed in range(2):
        band, wires, masked = _green_on_a_ruled_mat(seed)
        pc = colour_bands(band, wires, float(PX), RailwaysConfig(), masked, ("red", "white", "green", "black", "yellow"))
        xs = np.arange(50, 250)
        ys = np.round(100 + (xs - 40) * 20 / 220).astype(int)
        assert pc["green"][ys, xs].mean() > 0.9
        assert pc["green"][220:300].sum() == 0 and pc["white"].sum() == 0
        off = pc["green"].copy()
        off[85:135] = 0
        assert off.sum() == 0


def test_without_the_card_mask_only_the_ink_band_counts() -> None:
    """Called as before (no mask), the split adds nothing beyond the colour-blind band."""
    band, wires, masked = _green_on_a_ruled_mat(3)
    pc = colour_bands(band, wires, float(PX), RailwaysConfig())
    assert all(int(m.sum()) == 0 for m in pc.values())


def _pale_table(seed: int) -> tuple[np.ndarray, dict[str, np.ndarray], dict[str, np.ndarray]]:
    """A white chain on a table of its own colour: no white evidence at all, its shading
    silver's; the table white-blind on its left half (x < 150 mm) only; the River with a
    silver clip in that half."""
    band, wires = _maps(seed)
    wires["white"][:] = 0
    blind = {c: np.zeros((300 * PX // 8, 300 * PX // 8), np.uint8) for c in CLIP_COLOURS}
    blind["white"][:, :150 * PX // 8] = 1
    return band, wires, blind


def test_a_chain_of_the_tables_colour_takes_it_where_silver_wins() -> None:
    """Where the table is white-blind the chain's silver cells go to white; where it is not they stay silver; the River's silver clip stays silver."""
    players = ("red", "white", "green", "black", "yellow")
    for seed in range(2):
        band, wires, blind = _pale_table(seed)
        pc = colour_bands(band, wires, float(PX), RailwaysConfig(), None, players, blind)
        assert pc["white"][60, 50:140].mean() > 0.95
        assert pc["white"][60, 160:250].sum() == 0 and pc["silver"][60, 160:250].mean() > 0.95
        assert pc["silver"][200, 145:168].mean() > 0.6


def test_blind_relabel_off_leaves_the_pale_chain_silver() -> None:
    """With blind_player_relabel off (the old split) silver keeps the chain on the white-blind half."""
    band, wires, blind = _pale_table(7)
    pc = colour_bands(band, wires, float(PX), RailwaysConfig(blind_player_relabel=False), None,
                      ("red", "white", "green", "black", "yellow"), blind)
    assert pc["white"][60, 50:140].sum() == 0 and pc["silver"][60, 50:140].mean() > 0.95


def test_the_table_is_near_the_player_colour_it_resembles() -> None:
    """A cream strip is white's, a near-black strip black's, a mid-grey and a saturated red strip nobody's (within 50)."""
    bg = np.zeros((40, 40, 3), np.uint8)
    bg[:10] = (215, 222, 226)           # a pale mat
    bg[10:20] = (35, 38, 52)            # a dark mat
    bg[20:30] = (128, 128, 128)
    bg[30:] = (58, 60, 176)             # the red clips' own colour: red's
    near = table_near(bg, CLIP_COLOURS, ("red", "white", "green", "black", "yellow"), 50.0)
    assert near["white"][:10].all() and not near["white"][10:].any()
    assert near["black"][10:20].all() and not near["black"][:10].any() and not near["black"][20:].any()
    assert not any(near[c][20:30].any() for c in near)
    assert near["red"][30:].all() and not near["red"][:30].any()
