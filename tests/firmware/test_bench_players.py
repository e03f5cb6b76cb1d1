"""The alerts and loop benches' simulated players (firmware.bench.loop.Players)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from firmware.bench.loop import Players
from firmware.buttons.base import ButtonEvent


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
