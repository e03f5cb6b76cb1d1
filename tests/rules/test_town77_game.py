"""Town 77 multiplayer flow: setup, exchange, place, draw, discard, leave, ranking."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from rules.errors import CouldNotRead, IllegalMove
from rules.town77.city import Cell, City
from rules.town77.game import (
    GameRule,
    MultiplayerGame,
    Outcome,
    RefereeGame,
    Standing,
    Step,
    rank_players,
    three_alike,
)
from rules.town77.placement import Reason
from rules.town77.tiles import ALL_TILES, Tile, parse_tiles

EMPTY_ROW = ".." * 7


def city_text(*rows: str) -> str:
    """City notation from its top rows, padded with empty cells."""
    return "/".join([r.ljust(14, ".") for r in rows] + [EMPTY_ROW] * (7 - len(rows)))


def game(text: str, seed: int = 0) -> MultiplayerGame:
    return MultiplayerGame.parse(text, random.Random(seed))


def test_rulebook_ranking_example() -> None:
    """Tiles 0,0,2 and leaving order 1,2,3 rank 2,1,3 (the rulebook's example)."""
    standings = rank_players([0, 0, 2], [0, 1, 2])
    assert {s.player: s.rank for s in standings} == {0: 2, 1: 1, 2: 3}
    assert [s.player for s in standings] == [1, 0, 2]


def test_ranking_players_still_in_count_as_last_leavers_and_share() -> None:
    """A stopped game ranks the players still in after all leavers, sharing ties."""
    standings = rank_players([1, 1, 1], [2])
    assert standings == (Standing(0, 1, 1, None), Standing(1, 1, 1, None),
                         Standing(2, 3, 1, 1))


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_setup_deals_four_each_and_the_pioneer(players: int) -> None:
    """Setup: 4 tiles per hand, pioneer at A1, the rest in the bag, 49 in all."""
    g = MultiplayerGame.new(players, random.Random(players))
    assert all(len(h) == 4 for h in g.hands)
    assert g.city.occupied_count() == 1 and g.city[Cell(0, 0)] is not None
    assert len(g.bag) == 49 - 4 * players - 1
    assert g.turn == 0 and g.step is Step.START


@pytest.mark.parametrize("players", [1, 6])
def test_player_count_refused(players: int) -> None:
    """Town 77 takes 2 to 5 players."""
    with pytest.raises(IllegalMove) as info:
        MultiplayerGame.new(players, random.Random(0))
    assert info.value.reason is GameRule.PLAYER_COUNT
    assert str(info.value) == (f"{players} players: Town 77 is for 2 to 5 players "
                               "(or the solo Challenge)")


def test_setup_is_deterministic_for_a_seed() -> None:
    """The same seed deals the same game."""
    a = MultiplayerGame.new(3, random.Random(7)).notation()
    assert a == MultiplayerGame.new(3, random.Random(7)).notation()
    assert a != MultiplayerGame.new(3, random.Random(8)).notation()


GAME = city_text("a0") + " b1c2d3e4,a1b0f5g6 t1 s l- r-"


def test_full_turn_place_draw_discard_pass() -> None:
    """A turn: place, draw one, discard one back to the bag, next player."""
    g = game(GAME)
    result = g.place(0, Tile.parse("b1"), Cell.parse("B1"))
    assert result.outcome is Outcome.APPLIED and g.step is Step.DRAW
    drawn = g.draw(0)
    assert drawn is not None and drawn in g.hands[0] and len(g.hands[0]) == 4
    assert g.step is Step.DISCARD
    bag_before = len(g.bag)
    g.end_turn(0, discard=Tile.parse("c2"))
    assert len(g.hands[0]) == 3 and len(g.bag) == bag_before + 1
    assert g.turn == 1 and g.step is Step.START


def test_illegal_placement_is_refused_and_changes_nothing() -> None:
    """A misplaced tile is refused with its reason; the player tries again."""
    g = game(GAME)
    before = g.notation()
    result = g.place(0, Tile.parse("b1"), Cell.parse("C1"))
    assert result.outcome is Outcome.REFUSED and result.reason is Reason.NOT_TOUCHING
    assert result.message == f"b1 at C1: no side touches a house already in the city [{before}]"
    assert g.notation() == before


@pytest.mark.parametrize(("action", "rule", "text"), [
    (lambda g: g.place(1, Tile.parse("f5"), Cell.parse("B1")), GameRule.NOT_YOUR_TURN,
     "player 2 played on player 1's turn: it is not this player's turn"),
    (lambda g: g.place(0, Tile.parse("f5"), Cell.parse("B1")), GameRule.NOT_IN_HAND,
     "player 1 has no f5: the tile is not in this player's hand"),
    (lambda g: g.draw(0), GameRule.WRONG_STEP,
     "player 1 is at step 'start': that is not possible at this step of the turn"),
    (lambda g: g.leave(0), GameRule.CAN_STILL_PLACE,
     "player 1 cannot leave: a player may only leave when no tile in hand can be placed"),
    (lambda g: g.exchange(0, parse_tiles("b1c2d3")), GameRule.NOT_THREE_ALIKE,
     "cannot exchange b1c2d3: an exchange needs 3 tiles of one colour or one shape"),
    (lambda g: g.turn_over(Cell.parse("B1")), GameRule.NOTHING_TO_TURN,
     "cannot turn over B1: there is no face-up tile in that cell"),
    (lambda g: g.undo(), GameRule.NOTHING_TO_UNDO,
     "cannot undo: there is nothing to undo"),
])
def test_refused_actions_name_rule_and_state(
        action: Callable[[MultiplayerGame], object], rule: GameRule, text: str) -> None:
    """Each refused action raises IllegalMove with its rule and the game notation."""
    g = game(GAME)
    with pytest.raises(IllegalMove) as info:
        action(g)
    assert info.value.reason is rule
    assert str(info.value) == f"{text} [{g.notation()}]"


def test_exchange_three_alike_and_again_while_allowed() -> None:
    """3 tiles of one shape go back and 3 are drawn; allowed again while 3 alike remain."""
    g = game(city_text("g6") + " a0a1a2a3,b0b1b2b3 t1 s l- r-", seed=3)
    assert three_alike(g.hands[0]) == parse_tiles("a0a1a2")
    drawn = g.exchange(0, parse_tiles("a1a2a3"))
    assert len(drawn) == 3 and len(g.hands[0]) == 4 and Tile.parse("a0") in g.hands[0]
    assert len(g.bag) == 49 - 8 - 1
    assert g.can_exchange(0) == (three_alike(g.hands[0]) is not None)


def test_leaving_when_stuck_and_after_placing_the_last_tile() -> None:
    """A stuck player may leave; placing one's last tile leaves at once."""
    # a0 at A1: a1 and b0 have no legal cell, so player 1 is stuck.
    g = game(city_text("a0") + " a1b0,c3 t1 s l- r-")
    g.leave(0)
    assert g.leave_order == (0,) and g.turn == 1
    g.place(1, Tile.parse("c3"), Cell.parse("B1"))
    assert g.leave_order == (0, 1) and g.is_over()
    assert [(s.player, s.rank) for s in g.ranking()] == [(1, 1), (0, 2)]


def test_draw_from_empty_bag_passes_the_turn() -> None:
    """With the bag empty a player draws nothing, skips the discard, and the turn passes."""
    others = "".join(t.token for t in ALL_TILES if t.token not in ("a0", "b1", "c2"))
    g = game(city_text("a0") + f" b1c2,{others} t1 s l- r-")
    assert g.bag == ()
    g.place(0, Tile.parse("b1"), Cell.parse("B1"))
    assert g.draw(0) is None
    assert g.turn == 1 and g.step is Step.START and g.hands[0] == (Tile.parse("c2"),)


def test_referee_game_passes_turns_and_needs_entered_counts() -> None:
    """The device's game: place passes the turn; ranking waits for the entered counts."""
    r = RefereeGame(3, pioneer=Tile.parse("a0"))
    assert r.place(0, Tile.parse("b1"), Cell.parse("B1")).applied
    assert r.turn == 1
    refused = r.place(1, Tile.parse("b2"), Cell.parse("C1"))
    assert refused.reason is Reason.SAME_SHAPE_IN_ROW and r.turn == 1
    r.leave(1)
    assert r.turn == 2 and r.active == (0, 2)
    with pytest.raises(IllegalMove) as info:
        r.ranking()
    assert str(info.value) == ("players [1, 2, 3] have no count: enter the tiles left in "
                               f"hand for every player first [{r.notation()}]")
    for player, count in enumerate([0, 0, 2]):
        r.set_tiles_left(player, count)
    # Player 2 left first; players 1 and 3 never left, so count as later leavers.
    assert [(s.player, s.rank) for s in r.ranking()] == [(0, 1), (1, 2), (2, 3)]
    with pytest.raises(CouldNotRead, match="50 tiles left for player 1; enter 0 to 49"):
        r.set_tiles_left(0, 50)


def test_turn_over_keeps_the_tile_out_of_play() -> None:
    """A tile turned over stays in the city face down and is listed as removed."""
    g = game(city_text("a0b1") + " c2d3,e4f5 t1 s l- r-")
    tile = g.turn_over(Cell.parse("B1"))
    assert tile == Tile.parse("b1") and g.turned_over == (tile,)
    assert g.notation() == city_text("a0##") + " c2d3,e4f5 t1 s l- r" + "b1"
    assert game(g.notation()).notation() == g.notation()


def test_undo_restores_state_and_random_stream() -> None:
    """Undo takes back a draw, and the same draw comes again."""
    g = game(GAME, seed=5)
    g.place(0, Tile.parse("b1"), Cell.parse("B1"))
    first = g.draw(0)
    g.undo()
    assert g.step is Step.DRAW
    assert g.draw(0) == first
    g.undo()
    g.undo()
    assert g.notation() == game(GAME).notation()


def test_game_notation_errors() -> None:
    """A malformed game text says what to write."""
    with pytest.raises(CouldNotRead) as info:
        game("nonsense")
    assert str(info.value) == ("bad game 'nonsense'; write '<city> <hands> t<turn> <step s|d|x> "
                               "l<leavers|-> r<turned over|->'")
    with pytest.raises(CouldNotRead, match="a tile is in two places"):
        game(city_text("a0") + " a0,b1 t1 s l- r-")


def test_referee_leave_of_a_player_whose_turn_it_is_not() -> None:
    """On the device a player who placed their last tile leaves after the turn passed."""
    r = RefereeGame(3, pioneer=Tile.parse("a0"))
    r.place(0, Tile.parse("b1"), Cell.parse("B1"))
    r.leave(0)
    assert r.turn == 1 and r.leave_order == (0,)
    with pytest.raises(IllegalMove) as info:
        r.leave(0)
    assert info.value.reason is GameRule.PLAYER_LEFT
    r.undo()
    assert r.leave_order == ()


def test_referee_notation_round_trips_and_refuses_nonsense() -> None:
    """The referee game prints '<city> p t l r' and parses it back."""
    r = RefereeGame(3, pioneer=Tile.parse("a0"))
    r.place(0, Tile.parse("b1"), Cell.parse("B1"))
    r.turn_over(Cell.parse("B1"))
    r.leave(2)
    text = r.notation()
    assert text == city_text("a0##") + " p3 t2 l3 rb1"
    assert RefereeGame.parse(text).notation() == text
    with pytest.raises(CouldNotRead) as info:
        RefereeGame.parse(city_text("a0") + " p3 t9 l- r-")
    assert str(info.value) == f"turn or leaver out of range in '{city_text('a0')} p3 t9 l- r-'"
    with pytest.raises(CouldNotRead, match="bad referee game 'x'; write"):
        RefereeGame.parse("x")


def test_referee_pioneer_is_nobodys_turn() -> None:
    """The pioneer goes to A1 without using player 1's turn; only once."""
    r = RefereeGame(2)
    r.set_pioneer(Tile.parse("c3"))
    assert r.turn == 0 and r.city[Cell(0, 0)] == Tile.parse("c3")
    with pytest.raises(CouldNotRead) as info:
        r.set_pioneer(Tile.parse("d4"))
    assert str(info.value) == (f"the pioneer is already down; undo to change it "
                               f"[{r.notation()}]")


def test_referee_rename_merges_a_name_given_twice_or_refuses_with_the_state() -> None:
    """rename calls one shape (colour) by another in the city and among turned-over tiles;
    a renamed tile sharing a line with a like one, or left twice, is refused unchanged."""
    r = RefereeGame.parse(city_text("a0b1c2", "g6d3") + " p2 t1 l- r-")
    r.rename(0, 6, 2)
    assert r.notation() == city_text("a0b1c2", "c6d3") + " p2 t1 l- r-"
    r.undo()
    assert r.notation() == city_text("a0b1c2", "g6d3") + " p2 t1 l- r-"
    line = city_text("a0b1c2g6") + " p2 t1 l- r-"
    with pytest.raises(CouldNotRead) as info:
        RefereeGame.parse(line).rename(0, 6, 2)
    assert str(info.value) == f"shape 6 cannot be 2: c6 at D1 would share a line with a like tile [{line}]"
    twice = RefereeGame.parse(city_text("a0b1", "##c1") + " p2 t1 l- rg1")
    with pytest.raises(CouldNotRead, match="a turned-over tile would exist twice"):
        twice.rename(0, 6, 2)
    assert twice.notation() == city_text("a0b1", "##c1") + " p2 t1 l- rg1"
    with pytest.raises(CouldNotRead, match="appears twice in the city"):
        RefereeGame.parse(city_text("a0b1c2", "..", "c6") + " p2 t1 l- r-").rename(1, 6, 2)
