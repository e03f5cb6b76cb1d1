"""The alerts and loop benches' simulated players (firmware.bench.loop.Players)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from firmware.bench.loop import Players
from firmware.buttons.base import ButtonEvent
from firmware.games.base import OTHER, OTHER_TITLE


def _players(asking: tuple[str, tuple[str, ...]], moves: list[dict[str, Any]]) -> Players:
    """Pioneer at A1 and a tile at B1 on the table (frames: empty, legal, legal)."""
    camera = SimpleNamespace(index=2)
    p = Players(camera, [(0, 0), (0, 1)], [(0, 0), (1, 1)], ["empty", "legal", "legal"],  # type: ignore[arg-type]
                sleep=lambda s: None)
    p.ref = SimpleNamespace(asking=asking, misread=None, session=SimpleNamespace(moves=moves),
                            journal=SimpleNamespace(records=[]))
    return p


def test_players_undo_the_last_move_on_a_tile_they_took_back() -> None:
    """'B2 missing' about the device's last move, where they laid nothing: Undo."""
    p = _players(("B2 missing: put it back", ()), [{"type": "pioneer", "cell": "A1"},
                                                    {"type": "place", "cell": "B2"}])
    assert p.poll() is ButtonEvent.PREV and p.undos == 1


def test_players_answer_ok_when_their_own_tile_is_read_missing() -> None:
    """'B1 missing' where their tile lies (a tile the reader lost): OK, no undo."""
    p = _players(("B1 missing: put it back", ()), [{"type": "pioneer", "cell": "A1"},
                                                    {"type": "place", "cell": "B1"}])
    assert p.poll() is ButtonEvent.SELECT and p.undos == 0


def test_players_answer_ok_when_the_missing_tile_is_not_the_last_move() -> None:
    """'A1 missing' is not the last move: OK (undo would take back another)."""
    p = _players(("C3 missing: put it back", ()), [{"type": "pioneer", "cell": "A1"},
                                                    {"type": "place", "cell": "B1"}])
    assert p.poll() is ButtonEvent.SELECT


def test_players_leave_an_undone_move_undone() -> None:
    """After their undo the device offers fixes: they leave it undone."""
    p = _players(("Undone. Fix?", ("Leave undone", "c2 at B2")), [])
    assert p.poll() is ButtonEvent.BACK


def _asked(asking: tuple[str, tuple[str, ...]], labels: list[str],
           tried: dict[int, tuple[tuple[int, int], tuple[int, int]]], applied: list[tuple[str, str]],
           undone: tuple[tuple[str, str], ...] = ()) -> Players:
    """Pioneer (0, 0) at A1 and (1, 1) at B1; `applied` the device's moves that stand
    (cell, token), `undone` moves it applied that the players undid (in its journal,
    not in its game)."""
    camera = SimpleNamespace(index=len(labels) - 1)
    p = Players(camera, [(0, 0), (0, 1), (1, 1)], [(0, 0), (1, 1), (2, 2)], labels, tried,  # type: ignore[arg-type]
                sleep=lambda s: None)
    records = [SimpleNamespace(kind="move", data={"cell": c, "tile": t}) for c, t in [*applied, *undone]]
    p.ref = SimpleNamespace(asking=asking, misread=None,
                            session=SimpleNamespace(moves=[{"cell": c, "tile": t} for c, t in applied]),
                            journal=SimpleNamespace(records=records))
    return p


def _pressed(p: Players) -> int:
    """The option the players' presses select (NEXTs before SELECT)."""
    presses = [p.poll()]
    while presses[-1] is ButtonEvent.NEXT:
        presses.append(p.poll())
    assert presses[-1] is ButtonEvent.SELECT
    return len(presses) - 1


def test_players_name_the_tile_they_tried_illegally() -> None:
    """"A2: a1 or c1?" while the tile they laid at A2 (shape 0, colour 1: the pioneer's
    shape, B1's colour) lies there illegally: they pick a1, the tile they laid."""
    labels = ["empty", "legal", "legal", "illegal"]
    p = _asked(("A2: c1 or a1?", ("c1 at A2", "a1 at A2", "Not a move")), labels,
               {3: ((1, 0), (0, 1))}, [("A1", "a0"), ("B1", "b1")])
    assert _pressed(p) == 1


def test_players_do_not_confirm_a_name_they_know_is_another_tiles() -> None:
    """B2 holds a shape the device has not named yet, in the pioneer's colour: "b0 at B2"
    names B1's shape, "c0 at B2" may be right: they pick c0."""
    labels = ["empty", "legal", "legal", "legal"]
    p = _asked(("2 tiles at once", ("b0 at B2", "c0 at B2", "Not a move")), labels, {},
               [("A1", "a0"), ("B1", "b1")])
    p.tiles[2] = (2, 0)
    assert _pressed(p) == 1


def test_players_name_a_tile_laid_where_the_device_undid_a_move() -> None:
    """A move at A2 the players undid (a tile they took back, read as "c2") neither
    makes A2 a cell the device has taken nor teaches them its names: asked "A2: a1 or
    c1?" about the tile they tried there, they pick a1 (alerts game 5062: they had
    answered "Not a move")."""
    labels = ["empty", "legal", "legal", "illegal"]
    p = _asked(("A2: c1 or a1?", ("c1 at A2", "a1 at A2", "Not a move")), labels,
               {3: ((1, 0), (0, 1))}, [("A1", "a0"), ("B1", "b1")], undone=(("A2", "c2"),))
    assert _pressed(p) == 1


def test_players_open_other_when_every_option_names_their_tile_wrong() -> None:
    """B2 holds B1's shape in the pioneer's colour (the device's "b0"): "B2: a0?" names
    the pioneer's shape, which they know is not theirs, so they take Other... and then
    their b0 from the list."""
    labels = ["empty", "legal", "legal", "legal"]
    p = _asked(("B2: a0?", ("a0 at B2", OTHER, "Not a move")), labels, {}, [("A1", "a0"), ("B1", "b1")])
    p.tiles[2] = (1, 0)
    assert _pressed(p) == 1
    p.ref.asking = (OTHER_TITLE, ("c0 at B2", "b0 at B2", "b2 at B2"))
    assert _pressed(p) == 1


@pytest.mark.parametrize("cell,pick", [("B2", 0), ("C3", 1)])
def test_players_open_other_for_their_unread_tile_only(cell: str, pick: int) -> None:
    """"B2: cannot read the tile" with Other... alone, where they laid a tile the device has
    not taken: Other...; about a cell where they laid nothing (C3): Not a move."""
    labels = ["empty", "legal", "legal", "legal"]
    p = _asked((f"{cell}: cannot read the tile", (OTHER, "Not a move")), labels, {},
               [("A1", "a0"), ("B1", "b1")])
    assert _pressed(p) == pick


def test_players_keep_to_an_option_that_may_be_right_over_other() -> None:
    """"c0 at B2" may be right (shape c unnamed yet): they pick it, not Other..."""
    labels = ["empty", "legal", "legal", "legal"]
    p = _asked(("B2: a0 or c0?", ("a0 at B2", "c0 at B2", OTHER, "Not a move")), labels, {},
               [("A1", "a0"), ("B1", "b1")])
    p.tiles[2] = (2, 0)
    assert _pressed(p) == 1


def test_players_learn_a_name_the_device_merged() -> None:
    """After a move that merged a shape name given twice, the players know the shape by
    the merged name: B1's shape (1), applied as d, is c after "rename d -> c"."""
    p = _players(("", ()), [{"cell": "A1", "tile": "a0"}, {"cell": "B1", "tile": "d1"},
                            {"cell": "B2", "tile": "e2", "rename": {"axis": "shape", "from": 3, "to": 2}}])
    shapes, colours = p._names()
    assert shapes == {0: 0, 1: 2} and colours == {0: 0, 1: 1}


def test_players_do_not_name_a_tried_tile_again_once_alerted_and_taken_back() -> None:
    """Dev alerts game 7030: c0 tried at A2 was alerted and taken back; a question about
    A2 on the table without it is about something else: "Not a move", not c0 again."""
    labels = ["empty", "legal", "legal", "illegal", "back"]
    p = _asked(("c1 at A2?", ("c1 at A2", OTHER, "Not a move")), labels[:4],
               {3: ((1, 0), (0, 1))}, [("A1", "a0"), ("B1", "b1")])
    p.labels = labels
    p.ref.asking, p.ref.misread = None, SimpleNamespace(move={"cell": "A2"}, message="c0 at A2: colour")
    assert p.poll() is None and p.alerted == {"A2": 3}
    p.camera.index, p.ref.misread = 4, None
    p.ref.asking = ("c1 at A2?", ("c1 at A2", OTHER, "Not a move"))
    assert _pressed(p) == 2
