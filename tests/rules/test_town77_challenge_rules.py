"""Town 77 solo Challenge: piles, end A and B, Play Level, hint search."""

from __future__ import annotations

import random
import time

import pytest

from rules.errors import CouldNotRead, IllegalMove
from rules.town77.challenge import PILE_SIZES, ChallengeGame, PlayLevel, hint
from rules.town77.city import Cell, City
from rules.town77.game import GameRule, Outcome
from rules.town77.placement import Reason, legal_cells
from rules.town77.tiles import ALL_TILES, Tile


def test_setup_three_piles_17_16_16() -> None:
    """49 tiles make piles of 17, 16 and 16 with an empty city."""
    g = ChallengeGame.new(random.Random(1))
    assert PILE_SIZES == (17, 16, 16)
    assert tuple(len(p) for p in g.piles) == PILE_SIZES
    assert sorted(t for p in g.piles for t in p) == list(ALL_TILES)
    assert g.city.is_empty and not g.is_over()


def test_pioneer_is_a_pile_top_at_a1() -> None:
    """The first tile comes from a pile top and goes to A1; the pile shrinks."""
    g = ChallengeGame.new(random.Random(2))
    top = g.tops[1]
    assert top is not None
    assert g.place(0, top, Cell.parse("A1")).applied
    assert len(g.piles[1]) == 15 and g.placed == 1


def test_tile_not_on_a_pile_top_is_refused() -> None:
    """Only the visible tops may be taken."""
    g = ChallengeGame.new(random.Random(3))
    buried = g.piles[0][1]
    with pytest.raises(IllegalMove) as info:
        g.place(0, buried, Cell.parse("A1"))
    assert info.value.reason is GameRule.NOT_A_PILE_TOP
    assert str(info.value) == (f"{buried.token} is not a pile top: the tile is not on top of a "
                               f"pile [{g.notation()}]")


def test_misplacement_loses_end_b() -> None:
    """A tile placed incorrectly ends the Challenge as lost (end B); undo takes it back."""
    g = ChallengeGame.new(random.Random(4))
    top = g.tops[0]
    assert top is not None
    result = g.place(0, top, Cell.parse("B2"))
    assert result.outcome is Outcome.LOST and result.reason is Reason.PIONEER_CELL_ONLY
    assert result.message.endswith("the Challenge is lost [" + g.notation() + "]")
    assert g.is_over() and g.lost is result
    with pytest.raises(IllegalMove, match="the game is over"):
        g.place(0, top, Cell.parse("A1"))
    g.undo()
    assert not g.is_over() and g.place(0, top, Cell.parse("A1")).applied


def test_turning_over_a_tile_loses() -> None:
    """A misplaced tile noticed later is still end B."""
    g = ChallengeGame.new(random.Random(5))
    top = g.tops[0]
    assert top is not None
    g.place(0, top, Cell.parse("A1"))
    g.turn_over(Cell.parse("A1"))
    assert g.is_over() and g.lost is not None and g.lost.outcome is Outcome.LOST


def test_end_a_when_no_top_fits() -> None:
    """The game ends when no pile top has a legal cell, and reports the level."""
    # a0 at A1; tops a1 (shape a) and b0 (colour 0) and c0 cannot touch it legally.
    rest = [t for t in ALL_TILES if t.token not in ("a0", "a1", "b0", "c0")]
    g = ChallengeGame([[Tile.parse("a1")] + rest[:20], [Tile.parse("b0")] + rest[20:],
                       [Tile.parse("c0")]], City.with_pioneer(Tile.parse("a0")))
    assert g.placeable_tops() == (False, False, False)
    assert g.is_over() and g.lost is None
    assert g.play_level() is PlayLevel.SOME_DAYS
    assert g.hint() is None


@pytest.mark.parametrize(("placed", "level"), [
    (49, PlayLevel.KING), (48, PlayLevel.GOLD), (43, PlayLevel.GOLD), (42, PlayLevel.EUROPE),
    (37, PlayLevel.EUROPE), (36, PlayLevel.NATIONALS), (31, PlayLevel.NATIONALS),
    (30, PlayLevel.DISTRICT), (28, PlayLevel.DISTRICT), (27, PlayLevel.MAYOR),
    (25, PlayLevel.MAYOR), (24, PlayLevel.CLASS), (22, PlayLevel.CLASS),
    (21, PlayLevel.GOOD_JOB), (16, PlayLevel.GOOD_JOB), (15, PlayLevel.SOME_DAYS),
    (0, PlayLevel.SOME_DAYS),
])
def test_play_level_table(placed: int, level: PlayLevel) -> None:
    """The rulebook's table, with 15 and below read as 'Some days are just like that...'."""
    assert PlayLevel.for_count(placed) is level


def test_play_level_out_of_range() -> None:
    """A count outside 0..49 is refused with the range."""
    with pytest.raises(CouldNotRead) as info:
        PlayLevel.for_count(50)
    assert str(info.value) == "50 tiles placed; a Challenge places 0 to 49"


def test_challenge_notation_round_trips() -> None:
    """'<city> <piles> r<turned>' prints back the same."""
    g = ChallengeGame.new(random.Random(6))
    top = g.tops[2]
    assert top is not None
    g.place(0, top, Cell.parse("A1"))
    assert ChallengeGame.parse(g.notation()).notation() == g.notation()
    with pytest.raises(CouldNotRead, match="must hold each of the 49 tiles once"):
        ChallengeGame.parse(City.empty().notation() + " a0,b1,c2 r-")


def _reference_value(city: City, tops: list[Tile | None], remaining: list[Tile],
                     depth: int) -> int:
    """Slow, independent reading of the hint's value using the public queries only."""
    best = sum(1 for t in remaining if legal_cells(city, t))
    if depth == 0:
        return best
    for pile, tile in enumerate(tops):
        if tile is None:
            continue
        for cell in legal_cells(city, tile):
            after = city.with_tile(cell, tile)
            rest_tops = [t if i != pile else None for i, t in enumerate(tops)]
            left = [t for t in remaining if t != tile]
            best = max(best, 1 + _reference_value(after, rest_tops, left, depth - 1))
    return best


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("depth", [1, 2])
def test_hint_matches_a_slow_reference(seed: int, depth: int) -> None:
    """The bitboard search finds the best value the slow public-query search finds."""
    g = ChallengeGame.new(random.Random(seed))
    rng = random.Random(seed + 100)
    for _ in range(rng.randrange(1, 12)):
        moves = [(t, c) for t in g.tops if t for c in legal_cells(g.city, t)]
        if not moves:
            break
        g.place(0, *rng.choice(moves))
    h = g.hint(depth)
    if h is None:
        assert g.is_over()
        return
    assert h.cell in legal_cells(g.city, h.tile) and g.tops[h.pile] == h.tile
    remaining = [t for t in ALL_TILES if not g.city.contains(t)]
    tops = list(g.tops)
    best = max(1 + _reference_value(g.city.with_tile(c, t),
                                    [x if i != p else None for i, x in enumerate(tops)],
                                    [x for x in remaining if x != t], depth - 1)
               for p, t in enumerate(tops) if t for c in legal_cells(g.city, t))
    assert h.value == best


def test_hint_is_fast() -> None:
    """Depth-2 hints over whole seeded games stay far below the Pi's 0.2 s budget."""
    worst = 0.0
    for seed in range(3):
        g = ChallengeGame.new(random.Random(seed))
        while not g.is_over():
            start = time.process_time()
            h = g.hint()
            worst = max(worst, time.process_time() - start)
            assert h is not None
            g.place(0, h.tile, h.cell)
    assert worst < 0.05   # CPU time; a Pi 4 is roughly 4x slower than a dev machine


def test_hint_example() -> None:
    """Exactly one of the tops fits next to the pioneer, so the hint takes it."""
    rest = [t for t in ALL_TILES if t.token not in ("a0", "a1", "b0", "c2")]
    g = ChallengeGame([[Tile.parse("a1")] + rest[:20], [Tile.parse("b0")] + rest[20:],
                       [Tile.parse("c2")]], City.with_pioneer(Tile.parse("a0")))
    h = hint(g.city, g.tops)
    assert h is not None and h.tile == Tile.parse("c2") and h.pile == 2
    assert h.cell in (Cell.parse("B1"), Cell.parse("A2"))
