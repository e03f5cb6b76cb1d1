"""The fronts' look is learnt from the game's own group of tiles, not from a hand or a
card lying apart that reads as a few tiles."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

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
