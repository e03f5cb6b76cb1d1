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


def _read(cells: list[tuple[int, int]], off: float) -> list[Any]:
    look = SimpleNamespace(has_symbol=True, faint=False, offset=(off, 0.0))
    return [SimpleNamespace(col=c, row=r, look=look) for c, r in cells]


def test_a_cup_rim_read_as_a_larger_group_is_not_the_city() -> None:
    """A cup's rim read as 8 cells whose prints lie off their cells' middles loses to a
    5-tile city whose symbols sit mid-cell (dev game 126: the cup was taken for the
    fronts and the city was lost)."""
    city = _read([(2, 2), (3, 2), (2, 3), (3, 3), (2, 4)], 0.04)
    rim = _read([(4, 7), (5, 7), (6, 7), (4, 8), (6, 8), (4, 9), (5, 9), (6, 9)], 0.25)
    assert _main_group(city + rim, TilesConfig()) == {0, 1, 2, 3, 4}
    # with no symbol mid-cell anywhere the largest group wins, as before
    assert _main_group(_read([(0, 0), (1, 0)], 0.3) + rim, TilesConfig()) == set(range(2, 10))
