"""Plain backs of another hue than the table's, about its lightness, are looked at
(vision.tiles.occupancy.hue_backs): a lamp's falloff spreads the table's lightness,
which the Lab bound of coarse_candidates must allow for, but hardly its hue."""

from __future__ import annotations

import numpy as np

from tests.vision.seeded_cities import read_city
from vision.tiles.config import TilesConfig
from vision.tiles.face import CellLook
from vision.tiles.occupancy import coarse_candidates, hue_backs, is_hue_tile

CFG = TilesConfig()
TABLE = np.array([34.0, 0.0, -19.0])   # a blue mat


def _lamp_lit(seed: int, l_sd: float, ab_sd: float) -> dict[tuple[int, int], np.ndarray]:
    """Bare mat cells whose lightness varies by l_sd (a lamp's falloff) and whose a*b*
    by ab_sd, rings spread 7 by the mat's lines, with ten printed fronts at columns 0-1."""
    rng = np.random.default_rng(seed)
    stats = {}
    for c in range(10):
        for r in range(8):
            if c < 2 and r < 5:
                stats[(c, r)] = np.array([8.0, 0.0, 0.0, 2.0, 60.0])
            else:
                lab = TABLE + np.array([rng.normal(0.0, l_sd), *rng.normal(0.0, ab_sd, 2)])
                stats[(c, r)] = np.array([*lab, 7.0, 1.5])
    return stats


BACKS = [(4, 2), (8, 6)]
TEAL = np.array([36.0, -10.0, -13.0, 2.6, 1.8])   # 11 delta E off the mat, 11.7 in a*b*


def test_two_teal_backs_on_a_lamp_lit_mat_are_looked_at() -> None:
    """Two plain teal backs 11 delta E off a blue mat whose cells' lightness varies by 5
    (so coarse_candidates, bound by that scatter, passes them over) are looked at; no
    bare cell is."""
    stats = _lamp_lit(5, 5.0, 0.8)
    for k in BACKS:
        stats[k] = TEAL.copy()
    cells, table, _ = coarse_candidates(stats, CFG)
    assert not set(BACKS) & set(cells)
    hued, limit = hue_backs(stats, cells, table, CFG)
    assert hued == set(BACKS)
    assert limit == CFG.hue_back_de


def test_a_lone_teal_cell_is_not_looked_at() -> None:
    """One teal cell alone: backs share a colour, a table's odd cell seldom does."""
    stats = _lamp_lit(6, 5.0, 0.8)
    stats[(4, 2)] = TEAL.copy()
    cells, table, _ = coarse_candidates(stats, CFG)
    assert hue_backs(stats, cells, table, CFG)[0] == set()


def test_teal_cells_within_a_hue_scattered_table_are_not_looked_at() -> None:
    """A table whose hue itself scatters by 5 per channel (a coloured lamp's falloff):
    the bound rises with it, and the two teal cells stay within it."""
    stats = _lamp_lit(7, 5.0, 5.0)
    for k in BACKS:
        stats[k] = TEAL.copy()
    cells, table, _ = coarse_candidates(stats, CFG)
    hued, limit = hue_backs(stats, cells, table, CFG)
    assert not set(BACKS) & hued
    assert limit > 11.7


def test_a_busy_cell_of_another_hue_is_no_hue_tile() -> None:
    """is_hue_tile wants a plain face: a hand's or a print's ring spread past
    plain_spread is not a back, whatever its hue."""
    def look(spread: float) -> CellLook:
        face = TEAL[:3].astype(np.float64)
        return CellLook(face, spread, 0.0, face, np.zeros(CFG.shape_angles * CFG.shape_radii, np.float32),
                        0.0, (0.0, 0.0), 0.0, False)
    assert is_hue_tile(look(2.0), TABLE, 9.0, CFG)
    assert not is_hue_tile(look(CFG.plain_spread + 1.0), TABLE, 9.0, CFG)
    assert not is_hue_tile(look(2.0), TABLE, 12.0, CFG)


def test_city_5083s_backs_of_another_hue_are_read_face_down() -> None:
    """City 5083: two plain backs 11-12 delta E off a wood table, in hue alone (main
    passed both over), are read face down in their cells."""
    meta, obs = read_city(5083)
    tiles = obs["tiles"]
    down = {(t["row"], t["col"]) for t in tiles if t["face_down"]}
    assert {(t["row"], t["col"]) for t in meta["tiles"] if t["face_down"]} == {(5, 5), (4, 0)}
    assert down == {(5, 5), (4, 0)}
    assert len(tiles) == len(meta["tiles"])


def test_a_lamps_spot_of_another_hue_is_no_front() -> None:
    """City 5236: a lamp's spot beside the city is off the table's hue; a print read
    there off the glare (a faint one) does not make it a tile."""
    meta, obs = read_city(5236)
    tiles = obs["tiles"]
    assert len(tiles) == len(meta["tiles"]) == 13
