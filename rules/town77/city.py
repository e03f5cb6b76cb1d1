"""The city: a 7x7 grid anchored at the Pioneering Tile (row 0, col 0), and its notation.

Notation (like a chess FEN): 7 rows top to bottom separated by '/', each row 7 two-char
cells left to right: a tile token ('c4' = shape c, colour 4), '..' empty, '##' face down.

    c4............/..............//... (every row spelled out, 14 characters each)

City is immutable; placing returns a new city. It keeps bitboards (one bit per cell,
bit = row*7+col) of where each shape and colour is forbidden, so legality is a few
integer ANDs, which the Challenge hint search on a Pi depends on.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

from rules.errors import CouldNotRead
from rules.town77.tiles import SIDE, Tile

FULL = (1 << (SIDE * SIDE)) - 1
ROW_MASKS: tuple[int, ...] = tuple(((1 << SIDE) - 1) << (r * SIDE) for r in range(SIDE))
COL_MASKS: tuple[int, ...] = tuple(
    sum(1 << (r * SIDE + c) for r in range(SIDE)) for c in range(SIDE))
_NOT_COL0 = FULL & ~COL_MASKS[0]
_NOT_COL6 = FULL & ~COL_MASKS[SIDE - 1]


def neighbours_mask(occupied: int) -> int:
    """Cells inside the area that share a side with an occupied cell."""
    return (((occupied << 1) & _NOT_COL0) | ((occupied >> 1) & _NOT_COL6)
            | (occupied << SIDE) | (occupied >> SIDE)) & FULL


class FaceDown:
    """A tile turned over because it was misplaced: occupies its cell, no shape, no colour."""

    _instance: FaceDown | None = None

    def __new__(cls) -> FaceDown:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "FACE_DOWN"

    @property
    def token(self) -> str:
        return "##"


FACE_DOWN = FaceDown()
Content = Tile | FaceDown | None


class Cell(NamedTuple):
    """A grid position; may lie outside the area so refusals can say so."""

    row: int
    col: int

    @property
    def in_area(self) -> bool:
        return 0 <= self.row < SIDE and 0 <= self.col < SIDE

    @property
    def offset(self) -> int:
        """Bit of the cell in the bitboards: row*7+col."""
        return self.row * SIDE + self.col

    @property
    def name(self) -> str:
        """Board-style name shown on the OLED: column letter A-G, row number 1-7 ('C4')."""
        if self.in_area:
            return f"{'ABCDEFG'[self.col]}{self.row + 1}"
        return f"row {self.row + 1} col {self.col + 1}"

    @classmethod
    def parse(cls, name: str) -> Cell:
        text = name.strip().upper()
        if len(text) != 2 or text[0] not in "ABCDEFG" or text[1] not in "1234567":
            raise CouldNotRead(f"bad cell '{name}'; write a column A-G then a row 1-7, e.g. 'C4'")
        return cls(int(text[1]) - 1, "ABCDEFG".index(text[0]))

    @classmethod
    def from_index(cls, index: int) -> Cell:
        return cls(index // SIDE, index % SIDE)

    def __str__(self) -> str:
        return self.name


ALL_CELLS: tuple[Cell, ...] = tuple(Cell(r, c) for r in range(SIDE) for c in range(SIDE))


class City:
    """An immutable 7x7 city with precomputed legality bitboards."""

    __slots__ = ("_cells", "occupied", "forbid_shape", "forbid_colour", "tile_mask")

    def __init__(self, cells: tuple[Content, ...] | None = None) -> None:
        if cells is None:
            cells = (None,) * (SIDE * SIDE)
        if len(cells) != SIDE * SIDE:
            raise CouldNotRead(f"a city has 49 cells, got {len(cells)}")
        self._cells = cells
        occupied = 0
        tile_mask = 0
        forbid_shape = [0] * SIDE
        forbid_colour = [0] * SIDE
        seen: set[Tile] = set()
        for i, content in enumerate(cells):
            if content is None:
                continue
            occupied |= 1 << i
            if isinstance(content, Tile):
                if content in seen:
                    raise CouldNotRead(
                        f"tile {content.token} appears twice in the city; each of the 49 "
                        "tiles exists once, fix the notation")
                seen.add(content)
                tile_mask |= 1 << content.index
                lines = ROW_MASKS[i // SIDE] | COL_MASKS[i % SIDE]
                forbid_shape[content.shape] |= lines
                forbid_colour[content.colour] |= lines
        self.occupied: int = occupied
        """Bit per occupied cell (face up or face down)."""
        self.tile_mask: int = tile_mask
        """Bit per face-up tile (tile.index) in the city."""
        self.forbid_shape: tuple[int, ...] = tuple(forbid_shape)
        """Per shape: cells whose row or column already holds that shape face up."""
        self.forbid_colour: tuple[int, ...] = tuple(forbid_colour)

    # -- construction -------------------------------------------------------------
    @classmethod
    def empty(cls) -> City:
        return cls()

    @classmethod
    def with_pioneer(cls, tile: Tile) -> City:
        return cls().with_tile(Cell(0, 0), tile)

    @classmethod
    def parse(cls, text: str) -> City:
        """Read the notation; any mistake raises CouldNotRead quoting the bad part."""
        rows = text.strip().split("/")
        if len(rows) != SIDE:
            raise CouldNotRead(
                f"city '{text}' has {len(rows)} rows; write 7 rows separated by '/'")
        cells: list[Content] = []
        for r, row in enumerate(rows):
            if len(row) != 2 * SIDE:
                raise CouldNotRead(
                    f"city row {r + 1} '{row}' has {len(row)} characters; write 7 "
                    "two-character cells ('c4', '..' empty, '##' face down)")
            for c in range(SIDE):
                token = row[2 * c:2 * c + 2]
                if token == "..":
                    cells.append(None)
                elif token == "##":
                    cells.append(FACE_DOWN)
                else:
                    try:
                        cells.append(Tile.parse(token))
                    except CouldNotRead:
                        raise CouldNotRead(
                            f"city row {r + 1} '{row}': bad cell '{token}'; write a tile "
                            "like 'c4', '..' for empty or '##' for face down") from None
        return cls(tuple(cells))

    def notation(self) -> str:
        tokens = [".." if x is None else x.token for x in self._cells]
        return "/".join("".join(tokens[r * SIDE:(r + 1) * SIDE]) for r in range(SIDE))

    def __str__(self) -> str:
        return self.notation()

    def __repr__(self) -> str:
        return f"City.parse({self.notation()!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, City) and self._cells == other._cells

    def __hash__(self) -> int:
        return hash(self._cells)

    # -- queries ------------------------------------------------------------------
    def __getitem__(self, cell: Cell) -> Content:
        if not cell.in_area:
            return None
        return self._cells[cell.offset]

    def __iter__(self) -> Iterator[tuple[Cell, Content]]:
        return zip(ALL_CELLS, self._cells)

    @property
    def is_empty(self) -> bool:
        return self.occupied == 0

    def tiles(self) -> dict[Cell, Tile]:
        """The face-up tiles by cell."""
        return {cell: x for cell, x in zip(ALL_CELLS, self._cells) if isinstance(x, Tile)}

    def face_down_cells(self) -> tuple[Cell, ...]:
        return tuple(cell for cell, x in zip(ALL_CELLS, self._cells) if x is FACE_DOWN)

    def occupied_count(self) -> int:
        return self.occupied.bit_count()

    def contains(self, tile: Tile) -> bool:
        return bool(self.tile_mask >> tile.index & 1)

    def frontier(self) -> int:
        """Empty cells a tile could touch: the pioneer cell alone when the city is empty."""
        if self.occupied == 0:
            return 1
        return neighbours_mask(self.occupied) & ~self.occupied

    # -- changes (new cities) ------------------------------------------------------
    def with_tile(self, cell: Cell, tile: Tile) -> City:
        """Put a tile down without judging it (placement.py judges); for tests and setup."""
        return self._with(cell, tile)

    def turned_over(self, cell: Cell) -> City:
        if not isinstance(self[cell], Tile):
            raise CouldNotRead(
                f"no face-up tile at {cell.name} to turn over in city {self.notation()}")
        return self._with(cell, FACE_DOWN)

    def without(self, cell: Cell) -> City:
        """Lift a tile off again (a misplacement called out at once goes back to the hand)."""
        return self._with(cell, None)

    def renamed(self, axis: int, old: int, new: int) -> City:
        """Every face-up tile's shape (axis 0) or colour (axis 1) `old` called `new`: a
        device without a taught palette names the groups it meets, and one met as two
        (a tile read apart from its like) is one name too many. A tile left twice raises."""
        if axis not in (0, 1) or not (0 <= old < SIDE and 0 <= new < SIDE):
            raise CouldNotRead(f"cannot rename axis {axis} value {old} to {new}; "
                               "axis 0 (shape) or 1 (colour), values 0 to 6")
        return City(tuple(x.renamed(axis, old, new) if isinstance(x, Tile) else x
                          for x in self._cells))

    def _with(self, cell: Cell, content: Content) -> City:
        if not cell.in_area:
            raise CouldNotRead(f"cell {cell.name} is outside the 7x7 city")
        cells = list(self._cells)
        cells[cell.offset] = content
        return City(tuple(cells))
