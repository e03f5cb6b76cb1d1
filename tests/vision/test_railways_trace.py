"""Chains found colour-blind and named by colour (vision.railways.trace, chains.bridge)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.railways.chains import bridge
from vision.railways.config import CLIP_COLOURS, RailwaysConfig
from vision.railways.trace import chain_band, colour_costs, split_corners

CFG = RailwaysConfig()


def _lab(bgr: tuple[int, int, int]) -> np.ndarray:
    return cv2.cvtColor(np.uint8([[bgr]]), cv2.COLOR_BGR2Lab).reshape(3).astype(np.float32)


def _mixes(colour: tuple[int, int, int], table: tuple[int, int, int], alphas: list[float]) -> np.ndarray:
    c, t = np.float32(colour), np.float32(table)
    px = np.uint8([[np.clip(a * c + (1 - a) * t, 0, 255) for a in alphas]])
    return cv2.cvtColor(px, cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float32)


def _best(px: np.ndarray, table: tuple[int, int, int]) -> str:
    bg = np.repeat(_lab(table)[None, :], len(px), axis=0)
    costs = colour_costs(px, bg, CLIP_COLOURS, CFG)
    return min(costs, key=lambda k: costs[k])


def test_a_blurred_black_chain_is_black_not_silver() -> None:
    """Dark cores well beyond silver's grey name a black chain on a light table."""
    table = (228, 238, 245)
    px = _mixes(CLIP_COLOURS["black"], table, [0.2, 0.4, 0.55, 0.7, 0.75] * 4)
    assert _best(px, table) == "black"


def test_each_player_colour_is_named_on_a_dark_table() -> None:
    """Half-covered pixels of each clip colour over a dark mat take that colour."""
    table = (70, 80, 90)
    for name in ("red", "green", "yellow", "white", "blue"):
        px = _mixes(CLIP_COLOURS[name], table, [0.3, 0.5, 0.6, 0.8] * 5)
        assert _best(px, table) == name, name


def test_white_on_a_white_table_shows_only_as_shading() -> None:
    """A white chain on a table of its own colour is named by its faint shading, not black."""
    table = (236, 233, 228)
    shade = [(c * 0.88, c * 0.9, c * 0.9) for c in (236,)]
    px = _mixes(tuple(int(v) for v in shade[0]), table, [0.5, 1.0] * 10)   # type: ignore[arg-type]
    assert _best(px, table) == "white"


def test_kinks_split_and_bends_do_not() -> None:
    """An L made of two chains is cut at its corner; a 50 mm radius arc stays whole."""
    leg = np.linspace(0, 100, 51)
    ell = np.vstack([np.stack([leg, np.zeros_like(leg)], 1), np.stack([np.full(50, 100.0), leg[1:]], 1)])
    parts = split_corners(ell, CFG.kink_span_mm, CFG.kink_deg)
    assert len(parts) == 2
    assert np.allclose(parts[0][-1], [100, 0], atol=4) and np.allclose(parts[1][-1], [100, 100])
    t = np.linspace(0, np.pi / 2, 80)
    arc = np.stack([50 * np.cos(t), 50 * np.sin(t)], 1)
    assert len(split_corners(arc, CFG.kink_span_mm, CFG.kink_deg)) == 1


def test_two_chains_crossing_at_a_shallow_angle_are_rejoined_straight_through() -> None:
    """Four pieces that overshoot each other in an X join as two straight chains."""
    def line(a: tuple[float, float], b: tuple[float, float]) -> np.ndarray:
        return np.linspace(a, b, 60)
    # chain A runs (0, 0) -> (400, 100); chain B (0, 100) -> (400, 0); they cross at x = 200
    pieces = [line((0, 0), (192, 48)), line((214, 51), (400, 100)),      # A, with a gap
              line((0, 100), (205, 49)), line((196, 49), (400, 0))]      # B, overshooting
    joined = bridge(pieces, CFG)
    assert len(joined) == 2
    for path, n in joined:
        ends = sorted([tuple(np.round(path[0])), tuple(np.round(path[-1]))])
        assert n == 2 and ends in ([(0.0, 0.0), (400.0, 100.0)], [(0.0, 100.0), (400.0, 0.0)]), ends


def test_the_band_keeps_a_chain_with_thin_necks_and_drops_a_printed_line() -> None:
    """A 9 mm band pinched to 2 mm where clips link stays one piece; a 2 mm line goes."""
    ink = np.zeros((120, 200), np.float32)
    for x0 in range(10, 190, 32):                       # clips 28 mm long, 2 mm necks
        ink[20:29, x0:x0 + 28] = 30.0
        ink[23:25, x0 + 28:x0 + 32] = 30.0
    ink[80:82, 10:190] = 60.0                          # a strong printed rule
    band = chain_band(ink, np.zeros_like(ink, np.uint8), CFG)
    n, lab = cv2.connectedComponents(band)
    assert band[20:29].any() and not band[70:90].any()
    assert len(set(lab[20:29][band[20:29] > 0].tolist())) == 1


def test_a_table_sized_patch_is_no_chain_and_costs_no_thinning() -> None:
    """A blue cloth fills the River's band: it is skipped, and a chain beside it is kept."""
    import time
    from vision.railways.chains import chain_paths
    band = np.zeros((600, 600), np.uint8)
    band[:400, :400] = 1                       # a patch of one colour, 400 x 400 mm
    band[500:510, 50:550] = 1                  # a chain 500 mm long
    t = time.perf_counter()
    paths = chain_paths(band, (0.0, 0.0), CFG)
    assert time.perf_counter() - t < 2.0
    assert len(paths) == 1 and abs(paths[0][:, 1].mean() - 505) < 3


def _noisy_table(seed: int, floor: float) -> np.ndarray:
    """Ink of a bare table whose sensor noise or texture gives every cell about `floor`."""
    rng = np.random.default_rng(seed)
    return np.abs(rng.normal(floor, floor * 0.45, (300, 300))).astype(np.float32)


def test_a_noisy_table_is_not_band_but_a_chain_on_it_is() -> None:
    """Noise of ink about 12 everywhere (dark felt) makes no band; a chain of ink 50 does."""
    for seed in range(3):
        ink = _noisy_table(seed, 12.0)
        ink[140:149, 20:280] = 50.0
        band = chain_band(ink, np.zeros_like(ink, np.uint8), CFG)
        assert band[144, 30:270].all()
        off = np.ones_like(band, bool)
        off[130:160] = False
        assert band[off].mean() < 0.01, band[off].mean()


def test_on_a_quiet_table_a_faint_chain_still_passes_the_fixed_cut() -> None:
    """A white chain on a pale table (ink 10, table 1) is band: the floor only ever raises the cut."""
    ink = _noisy_table(5, 1.0)
    ink[140:149, 20:280] = 10.0
    band = chain_band(ink, np.zeros_like(ink, np.uint8), CFG)
    assert band[144, 30:270].all()
    band0 = chain_band(ink, np.zeros_like(ink, np.uint8), RailwaysConfig(ink_floor_factor=0.0))
    assert (band0 == band).all()


def test_a_chain_found_over_the_raised_cut_keeps_its_faint_sides() -> None:
    """With ink_floor_grow_mm (off by default), a chain's faint edges under the raised cut stay in its band."""
    ink = _noisy_table(7, 8.0)
    ink[140:149, 20:280] = 10.0                        # the clip's sides, faint
    ink[142:147, 20:280] = 40.0                        # its middle, clear
    band = chain_band(ink, np.zeros_like(ink, np.uint8), RailwaysConfig(ink_floor_grow_mm=4.0))
    assert band[140:149, 40:260].mean() > 0.95
    narrow = chain_band(ink, np.zeros_like(ink, np.uint8), RailwaysConfig(ink_floor_grow_mm=0.0))
    assert narrow[140:149, 40:260].mean() < 0.8
