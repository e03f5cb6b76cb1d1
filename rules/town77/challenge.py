"""The solo Challenge: three face-up piles, end A (stuck or done) / B (misplaced: lost),
the Play Level, and a hint search over the visible pile tops.

Rule reading: 49 tiles cannot make 3 equal piles, so the piles hold 17, 16 and 16.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from rules.errors import CouldNotRead
from rules.town77.city import COL_MASKS, FULL, ROW_MASKS, Cell, City, neighbours_mask
from rules.town77.game import Game, GameRule, Outcome, PlaceResult
from rules.town77.placement import Reason, legal_mask
from rules.town77.tiles import ALL_TILES, SIDE, Tile, parse_tiles, tiles_text

PILE_SIZES = (17, 16, 16)


class PlayLevel(Enum):
    """The rulebook's table: (fewest, most tiles placed, text).

    The rulebook stops at '16-21' then says 'Fewer than 15', leaving 15 itself out;
    we read it as 0-15 so every count has a level.
    """

    KING = (49, 49, "MAGNIFICENT! You are the King / the Queen of the World!")
    GOLD = (43, 48, "Gold Medal coming soon!")
    EUROPE = (37, 42, "TOP-4 in Europe, easy!")
    NATIONALS = (31, 36, "WOW! The nationals are in the bag!")
    DISTRICT = (28, 30, "District champion! On to the Nationals!")
    MAYOR = (25, 27, "Nice! Shall we beat the Mayor?!")
    CLASS = (22, 24, "Top of the class?!")
    GOOD_JOB = (16, 21, "Good job! Keep at it!")
    SOME_DAYS = (0, 15, "Some days are just like that...")

    @property
    def text(self) -> str:
        return self.value[2]

    @property
    def range_text(self) -> str:
        low, high = self.value[0], self.value[1]
        return str(low) if low == high else f"{low}-{high}"

    @classmethod
    def for_count(cls, placed: int) -> PlayLevel:
        for level in cls:
            if level.value[0] <= placed <= level.value[1]:
                return level
        raise CouldNotRead(f"{placed} tiles placed; a Challenge places 0 to 49")


@dataclass(frozen=True)
class Hint:
    """The suggested move and why: `value` = tiles placed along the best line plus
    tiles still placeable after it; `placeable` = tiles placeable right after the move."""

    pile: int
    tile: Tile
    cell: Cell
    value: int
    placeable: int


class ChallengeGame(Game):
    """Solo: take a tile from the top of one of 3 piles and place it; the first is the
    Pioneering Tile at A1. A misplacement (or a tile turned over) loses the game."""

    def __init__(self, piles: Sequence[Sequence[Tile]], city: City | None = None,
                 turned_over: Sequence[Tile] = ()) -> None:
        super().__init__(city or City.empty())
        if len(piles) != 3:
            raise CouldNotRead(f"the Challenge has 3 piles, got {len(piles)}")
        self.piles: tuple[tuple[Tile, ...], ...] = tuple(tuple(p) for p in piles)
        self.turned_over = tuple(turned_over)
        self.lost: PlaceResult | None = None
        used = [t for p in self.piles for t in p] + list(self.city.tiles().values()) \
            + list(self.turned_over)
        if sorted(used) != list(ALL_TILES):
            raise CouldNotRead(f"piles, city and turned-over tiles must hold each of the 49 "
                               f"tiles once: {self.notation()}")

    @classmethod
    def new(cls, rng: random.Random) -> ChallengeGame:
        tiles = list(ALL_TILES)
        rng.shuffle(tiles)
        a, b, _ = PILE_SIZES
        return cls([tiles[:a], tiles[a:a + b], tiles[a + b:]])

    # -- notation: '<city> <pile1>,<pile2>,<pile3> r<turned over>', piles top first --
    def notation(self) -> str:
        piles = ",".join(tiles_text(p) for p in self.piles)
        return f"{self.city.notation()} {piles} r{tiles_text(self.turned_over)}"

    @classmethod
    def parse(cls, text: str) -> ChallengeGame:
        fields = text.split()
        if len(fields) != 3 or not fields[2].startswith("r"):
            raise CouldNotRead(f"bad challenge '{text}'; write '<city> <pile1>,<pile2>,"
                               "<pile3> r<turned over|->' with piles top first")
        return cls([parse_tiles(p) for p in fields[1].split(",")], City.parse(fields[0]),
                   parse_tiles(fields[2][1:]))

    # -- queries ----------------------------------------------------------------------
    @property
    def tops(self) -> tuple[Tile | None, ...]:
        return tuple(p[0] if p else None for p in self.piles)

    def placeable_tops(self) -> tuple[bool, ...]:
        """Per pile: can its top tile go anywhere now (False for an empty pile)."""
        return tuple(t is not None and legal_mask(self.city, t) != 0 for t in self.tops)

    @property
    def placed(self) -> int:
        """Tiles placed face up (the pioneer counts: placing all 49 is the top level)."""
        return len(self.city.tiles())

    def play_level(self) -> PlayLevel:
        return PlayLevel.for_count(self.placed)

    def is_over(self) -> bool:
        """End B (lost) or end A (no top placeable, or every tile placed)."""
        return self.lost is not None or not any(self.placeable_tops())

    def hint(self, depth: int = 2) -> Hint | None:
        return hint(self.city, self.tops, depth, self.turned_over)

    # -- hooks ------------------------------------------------------------------------
    def check_turn(self, player: int) -> None:
        super().check_turn(player)
        if player != 0:
            self.refuse(GameRule.NOT_YOUR_TURN, f"player {player + 1} in a solo game")

    def check_tile(self, player: int, tile: Tile) -> None:
        if tile not in self.tops:
            self.refuse(GameRule.NOT_A_PILE_TOP, f"{tile.token} is not a pile top")

    def take_tile(self, player: int, tile: Tile) -> None:
        self.piles = tuple(p[1:] if p and p[0] == tile else p for p in self.piles)

    def on_illegal_placement(self, player: int, tile: Tile, cell: Cell,
                             reason: Reason) -> PlaceResult:
        """End B: a tile placed incorrectly loses the Challenge."""
        self._save()
        self.lost = PlaceResult(Outcome.LOST, tile, cell, reason, self.message(
            f"{tile.token} at {cell.name}: {reason.sentence}; the Challenge is lost"))
        return self.lost

    def on_turn_over(self, cell: Cell, tile: Tile) -> None:
        """A misplaced tile found later is still a tile placed incorrectly: end B."""
        self.lost = PlaceResult(Outcome.LOST, tile, cell, None, self.message(
            f"{tile.token} at {cell.name} was misplaced; the Challenge is lost"))


# -- hint search on bitboards ---------------------------------------------------------
# A board is (occupied cells, forbidden cells per shape, forbidden cells per colour);
# placing is a handful of ORs, so the search stays well under 0.2 s on a Pi.
_Board = tuple[int, tuple[int, ...], tuple[int, ...]]


def _board(city: City) -> _Board:
    return city.occupied, city.forbid_shape, city.forbid_colour


def _legal(board: _Board, tile: Tile) -> int:
    occupied, fs, fc = board
    frontier = (neighbours_mask(occupied) & ~occupied) if occupied else 1
    return frontier & ~fs[tile.shape] & ~fc[tile.colour] & FULL


def _put(board: _Board, tile: Tile, offset: int) -> _Board:
    occupied, fs, fc = board
    lines = ROW_MASKS[offset // SIDE] | COL_MASKS[offset % SIDE]
    s, c = tile.shape, tile.colour
    return (occupied | 1 << offset,
            fs[:s] + (fs[s] | lines,) + fs[s + 1:],
            fc[:c] + (fc[c] | lines,) + fc[c + 1:])


def _placeable(board: _Board, remaining: Sequence[Tile]) -> tuple[int, int]:
    """(remaining tiles with at least one legal cell, legal (tile, cell) pairs in all)."""
    occupied, fs, fc = board
    frontier = (neighbours_mask(occupied) & ~occupied) if occupied else 1
    shape_ok = [frontier & ~m for m in fs]
    tiles = pairs = 0
    for t in remaining:
        cells = shape_ok[t.shape] & ~fc[t.colour]
        if cells:
            tiles += 1
            pairs += cells.bit_count()
    return tiles, pairs


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def hint(city: City, tops: Sequence[Tile | None], depth: int = 2,
         gone: Sequence[Tile] = ()) -> Hint | None:
    """The pile top and cell that keep the most tiles placeable; None if nothing fits.

    Only the pile tops are known; the tiles under them are unknown, but which tiles
    remain is known (each of the 49 exists once). "Keeps the most tiles placeable" is
    measured along lines of up to `depth` placements using only known tops (taking a
    top reveals an unknown tile, so that pile has no known top further down the line):

        value(line) = tiles placed in the line
                      + remaining tiles (not in the city, not in the line) that still
                        have a legal cell after the line,

    ties between lines broken by the number of legal (tile, cell) pairs left for the
    remaining tiles (more room). A move's value is its best line's; the hint is the move
    with the highest value, then more tiles placeable right after the move, then pile
    order, then cell reading order, so the answer is deterministic. `gone` lists tiles
    out of play (turned over) that must not count as remaining.

    Measured on 100 seeded Challenges (see the report): random legal moves place 24.2
    tiles on average, this hint at depth 2 places about 33.
    """
    board = _board(city)
    remaining = [t for t in ALL_TILES if not city.contains(t) and t not in gone]
    best: Hint | None = None
    best_key: tuple[int, int, int, int, int] | None = None
    for pile, tile in enumerate(tops):
        if tile is None:
            continue
        rest_tops = [t if i != pile else None for i, t in enumerate(tops)]
        left = [t for t in remaining if t != tile]
        for offset in _bits(_legal(board, tile)):
            after = _put(board, tile, offset)
            now = _placeable(after, left)
            value, room = _line_value(after, rest_tops, left, depth - 1, now)
            key = (1 + value, room, now[0], -pile, -offset)
            if best_key is None or key > best_key:
                best_key = key
                best = Hint(pile, tile, Cell.from_index(offset), 1 + value, now[0])
    return best


def _line_value(board: _Board, tops: list[Tile | None], remaining: list[Tile], depth: int,
                now: tuple[int, int]) -> tuple[int, int]:
    """Best (tiles placed further + tiles placeable at the end, room) from this board."""
    best = now
    if depth <= 0:
        return best
    for pile, tile in enumerate(tops):
        if tile is None:
            continue
        rest_tops = [t if i != pile else None for i, t in enumerate(tops)]
        left = [t for t in remaining if t != tile]
        for offset in _bits(_legal(board, tile)):
            after = _put(board, tile, offset)
            value, room = _line_value(after, rest_tops, left, depth - 1,
                                      _placeable(after, left))
            best = max(best, (1 + value, room))
    return best
