"""Backs whose own print spreads their ring past plain_spread are looked at by the last
read when they share a colour, or alone beside a clear print and far from the table
(vision.tiles.occupancy.spread_backs); CI's easy cities lost such backs (cities 201 and
203) and now keep them."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vision.tiles.config import TilesConfig
from vision.tiles.occupancy import coarse_candidates, spread_backs

TABLE = np.array([52.0, -2.0, -26.0, 2.0, 1.0])
BACK = np.array([83.0, -7.0, 58.0])


def _stats(cells: dict[tuple[int, int], tuple[float, float]],
           colour: dict[tuple[int, int], NDArray[np.float64]] | None = None) -> dict[tuple[int, int], NDArray[np.float64]]:
    stats = {(c, r): TABLE.copy() for c in range(8) for r in range(8)}
    for k, (spread, centre) in cells.items():
        lab = (colour or {}).get(k, BACK)
        stats[k] = np.array([*lab, spread, centre])
    return stats


def test_two_backs_alike_with_a_spread_ring_are_looked_at() -> None:
    """Two yellow backs whose rings spread 9 (their printed circle): coarse_candidates
    passes both over, spread_backs gives both."""
    stats = _stats({(2, 2): (9.0, 4.0), (3, 2): (9.4, 9.0)})
    cfg = TilesConfig()
    cells, table, vary = coarse_candidates(stats, cfg)
    assert cells == []
    assert spread_backs(stats, cells, table, vary, cfg) == {(2, 2), (3, 2)}


def test_a_spread_cell_beside_a_plain_back_of_its_colour_is_looked_at() -> None:
    """A plain back is a candidate already; the spread one of its colour joins it."""
    stats = _stats({(2, 2): (5.0, 3.0), (5, 5): (10.0, 4.0)})
    cfg = TilesConfig()
    cells, table, vary = coarse_candidates(stats, cfg)
    assert cells == [(2, 2)]
    assert spread_backs(stats, cells, table, vary, cfg) == {(5, 5)}


def test_a_lone_spread_cell_or_an_unlike_pair_or_a_busy_pair_is_not() -> None:
    """One spread cell far from the table alone, two of colours 20 delta E apart, or two
    alike but busier than back_spread: none is looked at."""
    cfg = TilesConfig()
    for cells_, colour in (({(2, 2): (9.0, 4.0)}, None),
                           ({(2, 2): (9.0, 4.0), (5, 5): (9.0, 4.0)}, {(5, 5): BACK + [20.0, 0.0, 0.0]}),
                           ({(2, 2): (cfg.back_spread + 1, 4.0), (3, 2): (cfg.back_spread + 2, 4.0)}, None)):
        stats = _stats(cells_, colour)
        cells, table, vary = coarse_candidates(stats, cfg)
        assert spread_backs(stats, cells, table, vary, cfg) == set()


PRINT = np.array([95.0, 0.0, 0.0, 3.0, 40.0])   # a front with a clear print


def test_a_lone_spread_back_beside_a_clear_print_is_looked_at() -> None:
    """One yellow back (84 delta E off the blue table, ring spread 9.8) beside a front
    with a clear print: looked at (cities 5182, 5184); the same back with no print
    beside it is not."""
    cfg = TilesConfig()
    stats = _stats({(2, 2): (9.8, 4.0)})
    stats[(3, 2)] = PRINT.copy()
    cells, table, vary = coarse_candidates(stats, cfg)
    assert (3, 2) in cells and (2, 2) not in cells
    assert spread_backs(stats, cells, table, vary, cfg) == {(2, 2)}
    stats = _stats({(2, 2): (9.8, 4.0)})
    stats[(4, 2)] = PRINT.copy()
    cells, table, vary = coarse_candidates(stats, cfg)
    assert spread_backs(stats, cells, table, vary, cfg) == set()


def test_a_lone_spread_cell_near_the_tables_colour_beside_a_print_is_not() -> None:
    """Beside a clear print but under twice the table's bound from its colour (a hand's
    shadow, a cup's rim): not looked at."""
    cfg = TilesConfig()
    near = TABLE[:3] + np.array([0.0, 20.0, 0.0])
    stats = _stats({(2, 2): (9.8, 4.0)}, {(2, 2): near})
    stats[(3, 2)] = PRINT.copy()
    cells, table, vary = coarse_candidates(stats, cfg)
    assert spread_backs(stats, cells, table, vary, cfg) == set()
