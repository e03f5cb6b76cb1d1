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


def _outlined(bare_centre: float) -> dict[tuple[int, int], np.ndarray]:
    """White tiles on a pale table of about their colour: 6 with a clear print, 4 whose
    big outlined symbol leaves the centre at 6.5-9 delta E (under min_centre_contrast);
    bare cells' centres at `bare_centre`."""
    stats = {(c, r): _stat((96.0, -2.0, -3.0), 1.2, bare_centre) for c in range(9) for r in range(9)}
    for k, cell in enumerate([(c, r) for c in range(2, 7) for r in range(3, 5)]):
        stats[cell] = _stat((99.0, 0.0, 1.0), 8.0, (6.5, 7.5, 8.0, 9.0)[k] if k < 4 else 30.0)
    return stats


def test_outlined_symbols_on_a_plain_table_are_candidates() -> None:
    """On a plain table (bare centres at 1 delta E) the four outlined symbols are candidates."""
    cells, _, _ = coarse_candidates(_outlined(1.0), CFG)
    assert set(cells) == {(c, r) for c in range(2, 7) for r in range(3, 5)}


def test_a_busy_table_needs_the_full_centre_contrast() -> None:
    """On a busy table (bare centres at 4 delta E: grain, a mat's lines) the same faint
    centres are not told from the table: only the clear prints are candidates."""
    cells, _, _ = coarse_candidates(_outlined(4.0), CFG)
    assert len(cells) == 6


def test_glare_on_the_table_is_no_faint_print() -> None:
    """A lamp's glare on the bare table (a bright soft centre, 8 delta E, on the table's
    colour lifted, not the fronts' face) is not taken for an outlined symbol."""
    stats = _outlined(1.0)
    stats[(7, 7)] = _stat((88.0, -2.0, -3.0), 3.0, 8.0)
    cells, _, _ = coarse_candidates(stats, CFG)
    assert (7, 7) not in cells and len(cells) == 10
