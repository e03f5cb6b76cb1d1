"""House tiles: an abstract shape index and colour index, 0..6 each, every pair once.

Vision only knows "shape group" and "colour group" ids, never what a shape looks like,
so tiles are plain indices and the human names live apart in TileLabels.
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.errors import CouldNotRead

SIDE = 7
"""Seven shapes, seven colours, seven rows, seven columns."""

SHAPE_LETTERS = "abcdefg"
"""Notation letter of each shape index (lower case, so a tile never reads as a cell like C4)."""

AXES = ("shape", "colour")
"""The two axes a tile is named on, by index: `Tile.renamed`, `RefereeGame.rename`."""


@dataclass(frozen=True, order=True, slots=True)
class Tile:
    """One house tile. Order is (shape, colour) so sorted hands print stably."""

    shape: int
    colour: int

    def __post_init__(self) -> None:
        if not (0 <= self.shape < SIDE and 0 <= self.colour < SIDE):
            raise CouldNotRead(
                f"tile shape {self.shape} colour {self.colour} is outside 0..6; "
                "use shape and colour indices 0 to 6")

    @property
    def index(self) -> int:
        """0..48, the tile's bit in the bitboards."""
        return self.shape * SIDE + self.colour

    @property
    def token(self) -> str:
        """Two-character notation: shape letter a-g then colour digit 0-6, e.g. 'c4'."""
        return f"{SHAPE_LETTERS[self.shape]}{self.colour}"

    def renamed(self, axis: int, old: int, new: int) -> Tile:
        """This tile with its shape (axis 0) or colour (axis 1) `old` called `new`."""
        if axis == 0:
            return Tile(new, self.colour) if self.shape == old else self
        return Tile(self.shape, new) if self.colour == old else self

    @classmethod
    def parse(cls, token: str) -> Tile:
        if (len(token) != 2 or token[0] not in SHAPE_LETTERS
                or token[1] not in "0123456"):
            raise CouldNotRead(
                f"bad tile '{token}'; write a shape letter a-g then a colour digit 0-6, "
                "e.g. 'c4'")
        return cls(SHAPE_LETTERS.index(token[0]), int(token[1]))

    @classmethod
    def from_index(cls, index: int) -> Tile:
        return cls(index // SIDE, index % SIDE)

    def __str__(self) -> str:
        return self.token


ALL_TILES: tuple[Tile, ...] = tuple(Tile(s, c) for s in range(SIDE) for c in range(SIDE))
"""The 49 tiles in index order."""


def parse_tiles(text: str) -> tuple[Tile, ...]:
    """Parse a run of tile tokens with no separator ('a0b1') ; '-' or '' is none."""
    if text in ("", "-"):
        return ()
    if len(text) % 2:
        raise CouldNotRead(f"bad tile list '{text}'; write two characters per tile, e.g. 'a0b1'")
    return tuple(Tile.parse(text[i:i + 2]) for i in range(0, len(text), 2))


def tiles_text(tiles: tuple[Tile, ...] | list[Tile]) -> str:
    return "".join(t.token for t in tiles) or "-"


@dataclass(frozen=True)
class TileLabels:
    """Human (or vision-group) names for the 7 shapes and 7 colours, in index order.

    Any 7 distinct labels work: vision passes its group ids, the screens pass words.
    """

    shapes: tuple[str, ...] = tuple(SHAPE_LETTERS)
    colours: tuple[str, ...] = ("0", "1", "2", "3", "4", "5", "6")

    def __post_init__(self) -> None:
        for kind, names in (("shape", self.shapes), ("colour", self.colours)):
            if len(names) != SIDE or len(set(names)) != SIDE or not all(names):
                raise CouldNotRead(
                    f"{kind} labels {list(names)} are not 7 distinct names; "
                    f"give exactly 7 different non-empty {kind} labels")

    def tile(self, shape: str, colour: str) -> Tile:
        """The tile for a (shape label, colour label) pair, as vision reports it."""
        if shape not in self.shapes:
            raise CouldNotRead(f"unknown shape '{shape}'; expected one of {list(self.shapes)}")
        if colour not in self.colours:
            raise CouldNotRead(
                f"unknown colour '{colour}'; expected one of {list(self.colours)}")
        return Tile(self.shapes.index(shape), self.colours.index(colour))

    def name(self, tile: Tile) -> str:
        """Short label for screens and messages: 'red house', or 'c4' for one-letter labels."""
        shape, colour = self.shapes[tile.shape], self.colours[tile.colour]
        if len(shape) == 1 and len(colour) == 1:
            return f"{shape}{colour}"
        return f"{colour} {shape}"
