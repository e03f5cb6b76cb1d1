"""The Town 77 session: observations to verdicts, labels, the state as a prior, replay."""

from __future__ import annotations

from typing import Any

import pytest

from firmware.games.base import Ask, Illegal, NoChange, Proposed, Unclear
from firmware.games.town77 import Town77Session
from rules.errors import IllegalMove
from rules.town77.city import Cell
from rules.town77.placement import Reason


def _obs(*tiles: tuple[int, int, Any, Any]) -> dict[str, Any]:
    return {"tiles": [{"row": r, "col": c, "shape": s, "colour": k, "face_down": s == "##",
                       "centre_mm": [58.0 + 57 * c, 58.0 + 57 * r]} for r, c, s, k in tiles]}


def _session(*moves: dict[str, Any]) -> Town77Session:
    s = Town77Session({"players": 2})
    for m in moves:
        s.apply(m)
    return s


PIONEER = {"type": "pioneer", "tile": "a0", "cell": "A1"}


def test_first_tile_at_a1_is_the_pioneer() -> None:
    """The empty city plus one tile at A1, seen on the game's first look (no table to compare
    with), is asked: the Pioneering Tile laid before the start, or a phantom."""
    v = _session().interpret(_obs((0, 0, "shape-3", "colour-5")))
    assert isinstance(v, Ask) and v.text == "a0 at A1 already?" and v.labels == ("a0 at A1",)
    assert v.candidates[0]["type"] == "pioneer" and v.candidates[0]["source"] == "confirmed"


def test_group_labels_may_change_between_frames() -> None:
    """A reader without palette renames its groups per frame; known tiles vote them back."""
    s = _session(PIONEER, {"type": "place", "player": 0, "tile": "b1", "cell": "B1"})
    frame = _obs((0, 0, "shape-2", "colour-7"), (0, 1, "shape-1", "colour-3"))
    assert isinstance(s.interpret(frame), NoChange)
    moved = _obs((0, 0, "shape-2", "colour-7"), (0, 1, "shape-1", "colour-3"),
                 (1, 0, "shape-9", "colour-3"))
    v = s.interpret(moved)   # a new shape, same colour as B1: legal at A2 (not B1's row/col)
    assert isinstance(v, Proposed) and v.move == {"type": "place", "player": 1, "tile": "c1",
                                                  "cell": "A2", "source": "seen"}


def test_state_prior_picks_the_legal_reading_among_alternatives() -> None:
    """The top reading is already in the city; the reader's alternative is taken."""
    s = _session(PIONEER)
    obs = _obs((0, 0, 0, 0), (0, 1, 0, 0))
    obs["tiles"][1]["candidates"] = [{"shape": 2, "colour": 3}]
    v = s.interpret(obs)
    assert isinstance(v, Proposed) and v.move["tile"] == "c3"


def test_a_legal_alternative_does_not_hide_an_illegal_top_reading() -> None:
    """The top reading shares the pioneer's shape in its row while the reader's alternative
    would be legal: the players are asked which tile it is, the illegal top reading
    offered first beside the legal one (never swapped for it); picking it is an illegal
    placement (IllegalMove, which the loop alerts)."""
    s = _session(PIONEER)
    obs = _obs((0, 0, 0, 0), (0, 1, 0, 4))
    obs["tiles"][1]["candidates"] = [{"shape": 3, "colour": 2}]
    v = s.interpret(obs)
    assert isinstance(v, Ask) and v.text == "B1: a4 or d2?" and v.labels == ("a4 at B1", "d2 at B1")
    assert [m["tile"] for m in v.candidates] == ["a4", "d2"]
    assert all(m["source"] == "confirmed" for m in v.candidates)
    with pytest.raises(IllegalMove, match="a4 at B1: a house of the same shape is already in this row"):
        s.apply(v.candidates[0])
    assert s.game_state.notation() == _session(PIONEER).game_state.notation()


def test_a_legal_top_reading_with_an_illegal_alternative_is_asked() -> None:
    """The top reading is legal, the reader's alternative (its runner-up colour) shares
    the pioneer's colour in its row: "B1: b4 or b0?", the legal reading first; picking
    it places the tile."""
    s = _session(PIONEER)
    obs = _obs((0, 0, 0, 0), (0, 1, 1, 4))
    obs["tiles"][1]["candidates"] = [{"shape": 1, "colour": 0}]
    v = s.interpret(obs)
    assert isinstance(v, Ask) and v.text == "B1: b4 or b0?" and v.labels == ("b4 at B1", "b0 at B1")
    s.apply(v.candidates[0])
    assert s.game_state.city.tiles()[Cell.parse("B1")].token == "b4"


def test_readings_the_rules_judge_alike_are_not_asked() -> None:
    """Both readings legal: the top one is proposed, nothing asked."""
    s = _session(PIONEER)
    obs = _obs((0, 0, 0, 0), (0, 1, 1, 4))
    obs["tiles"][1]["candidates"] = [{"shape": 2, "colour": 4}]
    v = s.interpret(obs)
    assert isinstance(v, Proposed) and v.move["tile"] == "b4"


def test_prior_never_hides_an_illegal_placement() -> None:
    """No reading is legal: the top reading is reported illegal with the rule's words and reason."""
    s = _session(PIONEER)
    obs = _obs((0, 0, 0, 0), (0, 1, 0, 4))
    obs["tiles"][1]["candidates"] = [{"shape": 3, "colour": 0}]
    v = s.interpret(obs)
    assert isinstance(v, Illegal) and v.short == "Shape in row" and v.reason is Reason.SAME_SHAPE_IN_ROW
    assert v.message == ("a4 at B1: a house of the same shape is already in this row "
                         "[a0............/............../............../............../"
                         "............../............../.............. p2 t1 l- r-]")


def test_a_city_tile_read_otherwise_does_not_hide_an_illegal_new_tile() -> None:
    """B1 reads another colour this look while a new tile at A2 shares the pioneer's colour
    in its column: the illegal tile is alerted, not the misread asked first."""
    s = _session(PIONEER, {"type": "place", "player": 0, "tile": "b1", "cell": "B1"},
                 {"type": "place", "player": 1, "tile": "c2", "cell": "C1"})
    obs = _obs((0, 0, 0, 0), (0, 1, 1, 2), (0, 2, 2, 2), (1, 0, 3, 0))
    v = s.interpret(obs)
    assert isinstance(v, Illegal) and v.short == "Colour in column"
    assert v.message.startswith("d0 at A2: a house of the same colour is already in this column")


def test_a_city_tile_read_otherwise_beside_a_legal_new_tile_is_asked() -> None:
    """B1 reads another colour this look and the new tile at A2 is legal: the misread is
    asked, nothing is alerted, and the new tile is offered so the move is not held up."""
    s = _session(PIONEER, {"type": "place", "player": 0, "tile": "b1", "cell": "B1"},
                 {"type": "place", "player": 1, "tile": "c2", "cell": "C1"})
    v = s.interpret(_obs((0, 0, 0, 0), (0, 1, 1, 2), (0, 2, 2, 2), (1, 0, 3, 4)))
    assert isinstance(v, Ask) and v.text == "B1 reads b2, was b1"
    assert v.labels == ("d4 at A2",)
    assert v.candidates == ({"type": "place", "player": 0, "tile": "d4", "cell": "A2",
                             "source": "confirmed"},)


def test_a_city_tile_read_face_down_beside_a_legal_new_tile_offers_it() -> None:
    """B1 reads face down this look beside a legal new tile at A2: the question offers
    the new tile; an illegal one is not offered."""
    s = _session(PIONEER, {"type": "place", "player": 0, "tile": "b1", "cell": "B1"})
    v = s.interpret(_obs((0, 0, 0, 0), (0, 1, "##", "##"), (1, 0, 3, 4)))
    assert isinstance(v, Ask) and v.text == "A tile turned and one added"
    assert v.labels == ("d4 at A2",)
    v = s.interpret(_obs((0, 0, 0, 0), (0, 1, "##", "##"), (1, 0, 3, 0)))
    assert isinstance(v, Ask) and v.candidates == ()


def test_two_new_tiles_ask_with_the_legal_ones_as_choices() -> None:
    """Two tiles at once are never applied; each legal one is offered."""
    s = _session(PIONEER)
    v = s.interpret(_obs((0, 0, 0, 0), (0, 1, 1, 1), (1, 0, 2, 2)))
    assert isinstance(v, Ask) and v.text == "2 tiles at once"
    assert v.labels == ("b1 at B1", "c2 at A2")


def test_two_new_tiles_offer_the_readings_the_reader_hesitated_over() -> None:
    """Each new tile of "2 tiles at once" is offered as read, then as the readings the
    reader hesitated over that are legal there (game 26 of the loop bench: B2, a shape
    the city did not have yet read as A3's, had no true option)."""
    s = _session(PIONEER)
    obs = _obs((0, 0, 0, 0), (0, 1, 1, 1), (1, 0, 2, 2))
    obs["tiles"][1]["candidates"] = [{"shape": 3, "colour": 1}, {"shape": 0, "colour": 1}]
    v = s.interpret(obs)
    assert isinstance(v, Ask) and v.text == "2 tiles at once"
    assert v.labels == ("b1 at B1", "d1 at B1", "c2 at A2")     # a1 shares A1's shape in its row


def test_a_vanished_tile_asks_and_several_are_just_hidden() -> None:
    """One missing tile is a question; three missing are a covered table, not a move."""
    s = _session(PIONEER, {"type": "place", "player": 0, "tile": "b1", "cell": "B1"},
                 {"type": "place", "player": 1, "tile": "c2", "cell": "C1"},
                 {"type": "place", "player": 0, "tile": "d3", "cell": "D1"})
    v = s.interpret(_obs((0, 0, 0, 0), (0, 1, 1, 1), (0, 2, 2, 2)))
    assert isinstance(v, Ask) and v.text == "D1 missing: put it back"
    assert isinstance(s.interpret(_obs((0, 0, 0, 0))), Unclear)


def test_a_tile_turned_face_down_is_asked_as_a_turn_over() -> None:
    """A face-up tile now face down is asked about, the turn-over (no shape, no colour)
    offered: a hand resting on it or a misread looks the same, and must not apply it."""
    s = _session(PIONEER, {"type": "place", "player": 0, "tile": "b1", "cell": "B1"})
    v = s.interpret(_obs((0, 0, 0, 0), (0, 1, "##", "##")))
    assert isinstance(v, Ask) and v.text == "B1 turned over?", v
    assert v.candidates == ({"type": "turn_over", "cell": "B1"},)
    s.apply(v.candidates[0])
    assert isinstance(s.interpret(_obs((0, 0, 0, 0), (0, 1, "##", "##"))), NoChange)


def test_undo_and_replay_rebuild_exactly() -> None:
    """Undo is a rebuild from the other moves; the summary matches a fresh replay."""
    moves = [PIONEER, {"type": "place", "player": 0, "tile": "b1", "cell": "B1"},
             {"type": "place", "player": 1, "tile": "c2", "cell": "A2"}]
    s = _session(*moves)
    assert s.undo() == moves[-1]
    assert s.summary() == _session(*moves[:2]).summary()
    fixes = s.fixes(moves[-1])
    assert fixes and all(f.move["cell"] == "A2" for f in fixes)
    assert "c2 at A2" not in [f.label for f in fixes]


def test_end_records_tiles_left_and_ranks() -> None:
    """End answers become the ranking: fewer tiles first."""
    s = _session(PIONEER, {"type": "place", "player": 0, "tile": "b1", "cell": "B1"})
    s.apply(s.finish({"p1": 3, "p2": 1}))
    assert s.is_over() and s.summary()["ranking"] == [[1, 1, 1], [0, 2, 3]]


def test_demo_game_is_legal_with_one_illegal_tile_taken_back() -> None:
    """The demo's scripted game: each new scene adds one legal tile, except one illegal
    tile that appears (twice: two looks) and is taken away again."""
    from firmware.commands.demo import game_scenes
    from rules.town77.city import Cell, City
    from rules.town77.placement import why_illegal
    from rules.town77.tiles import Tile

    city = City.empty()
    illegal = 0
    for scene in game_scenes(3, moves=7):
        tiles = {(t["row"], t["col"]): Tile(t["shape"], t["colour"]) for t in scene["meta"]["tiles"]}
        new = {k: v for k, v in tiles.items() if city[Cell(*k)] is None}
        assert len(tiles) - len(new) == len(city.tiles())
        if len(new) == 1:
            (cell, tile), = new.items()
            if why_illegal(city, tile, Cell(*cell)) is None:
                city = city.with_tile(Cell(*cell), tile)
            else:
                illegal += 1
    assert len(city.tiles()) == 7 and illegal == 2


def test_a_new_tile_beside_two_kinds_of_misread_is_offered_not_alerted() -> None:
    """B1 reads another tile and C1 face down while a new tile lies at A2: a legal new tile
    is offered with the question, an illegal one is neither offered nor alerted."""
    s = _session(PIONEER, {"type": "place", "player": 0, "tile": "b1", "cell": "B1"},
                 {"type": "place", "player": 1, "tile": "c2", "cell": "C1"})
    v = s.interpret(_obs((0, 0, 0, 0), (0, 1, 1, 2), (0, 2, "##", "##"), (1, 0, 3, 4)))
    assert isinstance(v, Ask) and v.text == "B1 reads b2, was b1" and v.labels == ("d4 at A2",)
    v = s.interpret(_obs((0, 0, 0, 0), (0, 1, 1, 2), (0, 2, "##", "##"), (1, 0, 3, 0)))
    assert isinstance(v, Ask) and v.candidates == ()


def test_new_tiles_beside_a_misread_city_tile_are_offered() -> None:
    """B1 reads another tile while two new tiles lie at D1 and A2: each legal new tile is
    offered with the question (asked with no option, both moves were lost: loop bench
    held-out game 155)."""
    s = _session(PIONEER, {"type": "place", "player": 0, "tile": "b1", "cell": "B1"},
                 {"type": "place", "player": 1, "tile": "c2", "cell": "C1"})
    v = s.interpret(_obs((0, 0, 0, 0), (0, 1, 1, 2), (0, 2, 2, 2), (0, 3, 4, 5), (1, 0, 3, 4)))
    assert isinstance(v, Ask) and v.text == "B1 reads b2, was b1"
    assert v.labels == ("e5 at D1", "d4 at A2")
    assert [m["cell"] for m in v.candidates] == ["D1", "A2"]
