"""The fronts' look is learnt from the game's own group of tiles, not from a hand or a
card lying apart that reads as a few tiles."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from vision.tiles.config import TilesConfig
from vision.tiles.pipeline import _main_group


def _tiles(cells: list[tuple[int, int]]) -> list[Any]:
    return [SimpleNamespace(col=c, row=r) for c, r in cells]


def test_the_largest_side_by_side_group_wins() -> None:
    """A 2x2 city and a 3-cell strip apart: the city (4 tiles) is the main group."""
    tiles = _tiles([(5, 5), (6, 5), (0, 0), (1, 0), (0, 1), (1, 1), (7, 5)])
    assert _main_group(tiles) == {2, 3, 4, 5}


def test_diagonal_cells_are_not_joined() -> None:
    """Tiles touching at a corner only are separate groups."""
    tiles = _tiles([(0, 0), (1, 1), (2, 2), (2, 3)])
    assert _main_group(tiles) == {2, 3}


def _read(cells: list[tuple[int, int]], off: float, printed: bool = True, spread: bool = False) -> list[Any]:
    look = SimpleNamespace(has_symbol=printed, faint=False, offset=(off, 0.0), off_middle=abs(off))
    return [SimpleNamespace(col=c, row=r, look=look, spread=spread) for c, r in cells]


def test_a_cup_rim_read_as_a_larger_group_is_not_the_city() -> None:
    """A cup's rim read as 8 cells whose prints lie off their cells' middles loses to a
    5-tile city whose symbols sit mid-cell (dev game 126: the cup was taken for the
    fronts and the city was lost)."""
    city = _read([(2, 2), (3, 2), (2, 3), (3, 3), (2, 4)], 0.04)
    rim = _read([(4, 7), (5, 7), (6, 7), (4, 8), (6, 8), (4, 9), (5, 9), (6, 9)], 0.25)
    assert _main_group(city + rim, TilesConfig()) == {0, 1, 2, 3, 4}
    # with no symbol mid-cell anywhere the largest group wins, as before
    assert _main_group(_read([(0, 0), (1, 0)], 0.3) + rim, TilesConfig()) == set(range(2, 10))


def test_a_rim_with_more_cells_but_fewer_prints_about_mid_cell_is_not_the_city() -> None:
    """A cup's rim read as 9 cells, 6 of them printed about their middles and 3 blank,
    loses to an 8-tile city whose every tile is printed (loop bench game 234)."""
    city = _read([(4, 0), (5, 0), (6, 0), (7, 0), (4, 1), (5, 1), (4, 2), (5, 2)], 0.04)
    rim = _read([(9, 3), (10, 3), (8, 4), (9, 4), (11, 4), (9, 5), (11, 5)], 0.11) + \
        _read([(10, 4), (10, 5)], 0.0, printed=False)
    assert _main_group(city + rim, TilesConfig()) == set(range(8))


def test_prints_only_spread_backs_looked_at_do_not_outweigh_the_city() -> None:
    """A hand read as 3 printed cells plus 2 more printed cells that only spread_backs
    looked at loses to a 4-tile city: those cells join their group but vouch for no print
    (loop game 309's hand took the city for backs and its fourth tile was lost)."""
    city = _read([(2, 1), (3, 1), (3, 2), (4, 2)], 0.04)
    hand = _read([(5, 6), (8, 6), (5, 7)], 0.04) + _read([(6, 6), (7, 6)], 0.04, spread=True)
    assert _main_group(city + hand, TilesConfig()) == {0, 1, 2, 3}
    # the same cells read by the coarse pass itself vouch for their prints, as before
    hand = _read([(5, 6), (8, 6), (5, 7), (6, 6), (7, 6)], 0.04)
    assert _main_group(city + hand, TilesConfig()) == {4, 5, 6, 7, 8}
