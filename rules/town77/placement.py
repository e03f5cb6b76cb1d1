"""Where a tile may go, and the exact rule that forbids it where it may not.

Checks run in a fixed order so a refusal always names the same rule: the tile itself,
then the cell's position, then what is in the cell, then contact, then the row/column
rule (shape before colour, row before column).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from enum import Enum

from rules.town77.city import ALL_CELLS, FACE_DOWN, Cell, City
from rules.town77.tiles import SIDE, Tile


class Reason(Enum):
    """Why a placement is refused; value = (short screen text, sentence for messages)."""

    TILE_ALREADY_IN_CITY = (
        "Tile already in city",
        "that tile is already in the city (each tile exists once; a misread?)")
    ABOVE_OR_LEFT_OF_PIONEER = (
        "Outside city", "no tile may go above or left of the Pioneering Tile")
    EIGHTH_ROW_OR_COLUMN = (
        "No 8th row/column", "the city is 7 by 7; this would make an 8th row or column")
    CELL_FACE_DOWN = ("Face-down tile there", "a face-down tile cannot be covered")
    CELL_TAKEN = ("Cell taken", "the cell already holds a tile")
    PIONEER_CELL_ONLY = (
        "Start at A1", "the first tile, the Pioneering Tile, goes in the top-left cell A1")
    NOT_TOUCHING = ("Touches nothing", "no side touches a house already in the city")
    SAME_SHAPE_IN_ROW = ("Shape in row", "a house of the same shape is already in this row")
    SAME_SHAPE_IN_COLUMN = (
        "Shape in column", "a house of the same shape is already in this column")
    SAME_COLOUR_IN_ROW = (
        "Colour in row", "a house of the same colour is already in this row")
    SAME_COLOUR_IN_COLUMN = (
        "Colour in column", "a house of the same colour is already in this column")

    @property
    def short(self) -> str:
        """Two or three words, big enough to read on the OLED from a seat."""
        return self.value[0]

    @property
    def sentence(self) -> str:
        return self.value[1]


def why_illegal(city: City, tile: Tile, cell: Cell) -> Reason | None:
    """The first rule the placement breaks, or None when it is legal."""
    if city.contains(tile):
        return Reason.TILE_ALREADY_IN_CITY
    if cell.row < 0 or cell.col < 0:
        return Reason.ABOVE_OR_LEFT_OF_PIONEER
    if not cell.in_area:
        return Reason.EIGHTH_ROW_OR_COLUMN
    content = city[cell]
    if content is FACE_DOWN:
        return Reason.CELL_FACE_DOWN
    if content is not None:
        return Reason.CELL_TAKEN
    if city.is_empty:
        return None if cell == Cell(0, 0) else Reason.PIONEER_CELL_ONLY
    if not any(city[n] is not None for n in _sides(cell)):
        return Reason.NOT_TOUCHING
    # Scanned cell by cell on purpose: legal_cells uses bitboards, and the tests check
    # that the two independent readings agree on every cell.
    row = [x for x in (city[Cell(cell.row, c)] for c in range(SIDE)) if isinstance(x, Tile)]
    col = [x for x in (city[Cell(r, cell.col)] for r in range(SIDE)) if isinstance(x, Tile)]
    if any(x.shape == tile.shape for x in row):
        return Reason.SAME_SHAPE_IN_ROW
    if any(x.shape == tile.shape for x in col):
        return Reason.SAME_SHAPE_IN_COLUMN
    if any(x.colour == tile.colour for x in row):
        return Reason.SAME_COLOUR_IN_ROW
    if any(x.colour == tile.colour for x in col):
        return Reason.SAME_COLOUR_IN_COLUMN
    return None


def _sides(cell: Cell) -> Iterable[Cell]:
    r, c = cell
    return (Cell(r - 1, c), Cell(r + 1, c), Cell(r, c - 1), Cell(r, c + 1))


def is_legal(city: City, tile: Tile, cell: Cell) -> bool:
    return why_illegal(city, tile, cell) is None


def legal_mask(city: City, tile: Tile) -> int:
    """Bitboard of the cells where the tile may go (bit = row*7+col)."""
    if city.contains(tile):
        return 0
    return city.frontier() & ~city.forbid_shape[tile.shape] & ~city.forbid_colour[tile.colour]


def legal_cells(city: City, tile: Tile) -> tuple[Cell, ...]:
    """Every cell the tile may legally go, in reading order (row by row)."""
    mask = legal_mask(city, tile)
    return tuple(cell for cell in ALL_CELLS if mask >> cell.offset & 1)


def can_place_any(city: City, hand: Iterable[Tile]) -> bool:
    """Whether at least one tile of the hand has a legal cell (else the player leaves)."""
    return any(legal_mask(city, t) for t in hand)


def placeable_tiles_mask(city: City, tiles_mask: int) -> int:
    """Of the tiles in tiles_mask (bit = tile.index), those with at least one legal cell."""
    frontier = city.frontier()
    out = 0
    for shape in range(SIDE):
        shape_cells = frontier & ~city.forbid_shape[shape]
        if not shape_cells:
            continue
        for colour in range(SIDE):
            bit = 1 << (shape * SIDE + colour)
            if tiles_mask & bit and shape_cells & ~city.forbid_colour[colour]:
                out |= bit
    return out


def random_placement(city: City, tiles: Sequence[Tile], rng: random.Random) -> tuple[Tile, Cell] | None:
    """A tile of `tiles` that has a legal cell, and one of its legal cells, each picked
    uniformly (simulated games and the demo); None when no tile can go anywhere."""
    options = [(t, cells) for t in tiles if (cells := legal_cells(city, t))]
    if not options:
        return None
    tile, cells = options[rng.randrange(len(options))]
    return tile, cells[rng.randrange(len(cells))]


def line_mistakes(city: City, tiles: Sequence[Tile]) -> list[tuple[Tile, Cell]]:
    """Every (tile, cell) on a free cell touching the city that breaks the row/column rule:
    the mistake players really make (tile by tile, cells in reading order)."""
    mask = city.frontier()
    cells = [c for c in ALL_CELLS if mask >> c.offset & 1]
    return [(t, c) for t in tiles for c in cells
            if (reason := why_illegal(city, t, c)) is not None and reason.name.startswith("SAME_")]
