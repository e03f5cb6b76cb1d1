"""The coarse occupancy pass when the city covers most of the play area, and when the
table has the tiles' face colour (vision.tiles.occupancy.coarse_candidates)."""

from __future__ import annotations

import numpy as np

from vision.tiles.config import TilesConfig
from vision.tiles.occupancy import coarse_candidates

CFG = TilesConfig()
WHITE = (92.0, 0.0, 0.0)
MAT = (30.0, 0.0, 0.0)
BACK = (55.0, 30.0, -20.0)


def _stat(colour: tuple[float, float, float], spread: float, centre: float) -> np.ndarray:
    return np.array([*colour, spread, centre])


def test_pale_prints_on_a_crowded_table_are_candidates() -> None:
    """A 7x7 city on a 9x9 area: 10 tiles with a clear print, 39 whose pale outline does
    not reach the centre, a dark mat around; the pale ones are candidates, the mat is the
    table."""
    stats = {}
    for c in range(9):
        for r in range(9):
            if 1 <= c <= 7 and 1 <= r <= 7:
                clear = (c * 7 + r) % 5 == 0
                stats[(c, r)] = _stat(WHITE, 3.0, 30.0 if clear else 2.0)
            else:
                stats[(c, r)] = _stat(MAT, 8.0, 4.0)
    cells, table, _ = coarse_candidates(stats, CFG)
    assert set(cells) == {(c, r) for c in range(1, 8) for r in range(1, 8)}
    assert abs(table[0] - MAT[0]) < 1.0


def test_a_table_of_the_fronts_colour_keeps_the_backs() -> None:
    """White tiles on a white table: the table is still what lies away from the prints,
    so plain backs of another colour stay candidates and bare table does not."""
    stats = {(c, r): _stat(WHITE, 2.0, 1.0) for c in range(9) for r in range(9)}
    city = [(c, r) for c in range(2, 5) for r in range(2, 5)]
    for k, cell in enumerate(city):
        stats[cell] = _stat(BACK, 2.0, 1.0) if k in (4, 7) else _stat(WHITE, 3.0, 30.0)
    cells, table, _ = coarse_candidates(stats, CFG)
    assert set(cells) == set(city)
    assert abs(table[0] - WHITE[0]) < 1.0
