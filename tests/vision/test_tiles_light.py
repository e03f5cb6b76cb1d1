"""Tile readings that hold under another lamp: the face colour against noise, the cut
of the groups against small shifts of their distances."""

from __future__ import annotations

import numpy as np

from vision.tiles.face import CellGeometry, face_colour
from vision.tiles.group import agglomerate, merges, pairwise, widest_gap

GEO = CellGeometry.make(72)
RING = (GEO.cheb >= 0.30) & (GEO.cheb <= 0.40)
TEAL = np.array([55.0, -36.0, 6.0])


def _noisy_ring(sd_b: float, seed: int) -> np.ndarray:
    """A one-colour face ring whose b* is noisy, as blue is under a warm lamp."""
    rng = np.random.default_rng(seed)
    n = int(RING.sum())
    px = np.tile(TEAL, (n, 1))
    px[:, 0] += rng.normal(0.0, 2.0, n)
    px[:, 2] += rng.normal(0.0, sd_b, n)
    return px


def test_noise_does_not_split_the_face_in_two_halves() -> None:
    """A noisy one-colour ring reads its own colour, not the median of one noise half."""
    for seed in range(5):
        face = face_colour(_noisy_ring(14.0, seed), GEO.radius[RING])
        assert np.linalg.norm(face - TEAL) < 2.5, face


def test_without_the_separation_test_noise_moves_the_face() -> None:
    """Guard: with the split always taken (separation 0) the same rings read off by far
    more, so the test above can fail."""
    worst = max(float(np.linalg.norm(face_colour(_noisy_ring(14.0, s), GEO.radius[RING], separation=0.0) - TEAL))
                for s in range(5))
    assert worst > 6.0


def test_a_symbol_reaching_into_the_ring_is_still_split_off() -> None:
    """A ring half covered by a big symbol's colour (inside) still reads the face (outside)."""
    rng = np.random.default_rng(1)
    rad = GEO.radius[RING]
    inner = rad < np.median(rad)
    px = np.where(inner[:, None], np.array([40.0, 60.0, 40.0]), TEAL) + rng.normal(0, 2.0, (len(rad), 3))
    assert np.linalg.norm(face_colour(px, rad) - TEAL) < 2.0


def test_the_table_beside_a_tile_off_its_cell_is_not_its_face() -> None:
    """A white face ring whose left and bottom edges show the table's dark felt, as when
    the tile lies off its cell, reads white: the felt lies further out but misses two
    sides, where the white holds all four."""
    rng = np.random.default_rng(2)
    side = GEO.side[RING]
    ys, xs = (m[RING] / 72.0 for m in np.mgrid[0:72, 0:72])
    felt = (xs < 0.14) | (ys > 0.83)
    white, table = np.array([88.0, 2.0, 5.0]), np.array([22.0, 0.0, 0.0])
    px = np.where(felt[:, None], table, white) + rng.normal(0, 2.0, (len(side), 3))
    assert 0.35 < felt.mean() < 0.4                        # no majority: the radius decides
    assert np.linalg.norm(face_colour(px, GEO.radius[RING], side=side, table=table) - white) < 2.0
    # guards: with the sides or the table's colour unknown, the felt is taken
    assert np.linalg.norm(face_colour(px, GEO.radius[RING], table=table) - white) > 30.0
    assert np.linalg.norm(face_colour(px, GEO.radius[RING], side=side) - white) > 30.0
    # nor when the outer colour is not the table's (a back's design of two colours)
    assert np.linalg.norm(face_colour(px, GEO.radius[RING], side=side, table=np.array([53.0, -2.0, -26.0]))
                          - white) > 30.0


def test_a_face_round_a_big_print_is_not_turned_by_the_side_test() -> None:
    """A big print covering the ring's inner half on every side leaves the face (outside)
    as the face: it holds all four sides, so the side test does not apply."""
    rng = np.random.default_rng(3)
    rad, side = GEO.radius[RING], GEO.side[RING]
    inner = rad < np.median(rad)
    px = np.where(inner[:, None], np.array([40.0, 60.0, 40.0]), TEAL) + rng.normal(0, 2.0, (len(rad), 3))
    assert np.linalg.norm(face_colour(px, rad, side=side, table=np.array([30.0, 0.0, 0.0])) - TEAL) < 2.0


def test_widest_gap_cuts_where_no_merge_lies() -> None:
    """The cut goes in the middle (log scale) of the widest stretch free of merges."""
    cut = widest_gap([9.0, 13.5, 30.0], 9.8, 28.0)
    assert 13.5 < cut < 28.0
    assert abs(cut - float(np.sqrt(13.5 * 28.0))) < 1e-9
    assert 9.8 < widest_gap([], 9.8, 28.0) < 28.0


def test_groups_hold_when_one_distance_crosses_the_threshold() -> None:
    """Two colours 32 apart, one of them spread: a pair of its tiles 13.9 or 14.1 apart
    flips a fixed cut at 14 but not the cut in the widest gap."""
    def points(spread: float) -> np.ndarray:
        a = [[50.0, 0.0, 0.0], [50.0, spread, 0.0], [50.0, 0.0, 2.0]]
        b = [[50.0, 32.0 + spread, 0.0], [50.0, 33.0 + spread, 1.0]]
        return np.array(a + b)

    fixed = [agglomerate(pairwise(points(s)), 14.0) for s in (13.9, 14.3)]
    cut = [agglomerate(pairwise(points(s)), 14.0, window=(0.7, 2.0)) for s in (13.9, 14.3)]
    assert fixed[0] != fixed[1]
    assert cut[0] == cut[1] == [0, 0, 0, 1, 1]


def test_known_count_still_merges_past_the_cut() -> None:
    """With max_groups the closest groups keep merging until that many remain."""
    x = np.array([[0.0], [100.0], [200.0], [300.0]])
    assert len(set(agglomerate(pairwise(x), 14.0, max_groups=2, window=(0.7, 2.0)))) == 2


def test_merge_distances_never_decrease() -> None:
    """Average linkage has no inversions, so a cut height selects a prefix of the merges."""
    rng = np.random.default_rng(4)
    d = pairwise(rng.normal(0, 10, (30, 3)))
    h = [m[2] for m in merges(d)]
    assert len(h) == 29 and all(b >= a - 1e-9 for a, b in zip(h, h[1:]))


def _ring_with_specks(seed: int) -> np.ndarray:
    """A white face (0.92) with a magenta ring 0.22-0.27 of the cell out and single
    pixels of low blue strewn over it, one of them at the centre: a warm lamp's blue,
    amplified by the white balance, speckles a plain face like this."""
    from vision.tiles.face import CellGeometry

    geo = CellGeometry.make(72)
    crop = np.full((72, 72, 3), 0.92, np.float32)
    crop[(geo.radius >= 0.22) & (geo.radius <= 0.27)] = (0.75, 0.2, 0.8)
    rng = np.random.default_rng(seed)
    for y, x in [(35, 35)] + [tuple(p) for p in rng.integers(4, 68, (40, 2))]:
        if 0.3 <= geo.radius[y, x] or geo.radius[y, x] <= 0.19:
            crop[y, x, 0] = 0.35
    return crop


def test_noise_specks_do_not_hide_a_ring_print() -> None:
    """An outlined ring with specks of noise inside it, one at the centre, is read as a
    print the ring's size (before, the centre's speck stood for the print and the tile
    read blank)."""
    from vision.tiles.config import TilesConfig
    from vision.tiles.crops import to_lab
    from vision.tiles.face import analyse_cell

    for seed in range(3):
        crop = _ring_with_specks(seed)
        look = analyse_cell(crop, to_lab(crop), GEO, TilesConfig())
        assert look.has_symbol and 0.1 < look.symbol_frac < 0.25, (seed, look.symbol_frac)
