"""The Challenge loop bench's player answers the device as the table is."""

from __future__ import annotations

from types import SimpleNamespace

from firmware.bench.town77_challenge import ChallengePlayers
from firmware.buttons.base import ButtonEvent

MOVES = [{}, {"pile": 0, "cell": "A1"}, {"pile": 2, "cell": "B1"}]


def _answers(index: int, asking: tuple[str, tuple[str, ...]]) -> list[ButtonEvent]:
    p = ChallengePlayers(SimpleNamespace(index=index), MOVES, sleep=lambda s: None)
    p.ref = SimpleNamespace(asking=asking, journal=SimpleNamespace(records=[]))
    out = [p.poll()]
    while p.plan:
        out.append(p.poll())
    return out


def test_which_pile_is_answered_with_the_pile_the_tile_came_from() -> None:
    """B1 came from pile 3: the third option is chosen."""
    got = _answers(2, ("Which pile went to B1?", ("a0 from pile 1", "b1 from pile 2", "c2 from pile 3",
                                                   "Not a move")))
    assert got == [ButtonEvent.NEXT, ButtonEvent.NEXT, ButtonEvent.SELECT]


def test_a_pile_not_offered_or_a_tile_not_yet_laid_is_not_a_move() -> None:
    """B1 not laid by frame 1, and pile 3 not offered at frame 2: 'Not a move'."""
    q = ("Which pile went to B1?", ("a0 from pile 1", "c2 from pile 3", "Not a move"))
    assert _answers(1, q) == [ButtonEvent.NEXT, ButtonEvent.NEXT, ButtonEvent.SELECT]
    q2 = ("Which pile went to B1?", ("a0 from pile 1", "b1 from pile 2", "Not a move"))
    assert _answers(2, q2) == [ButtonEvent.NEXT, ButtonEvent.NEXT, ButtonEvent.SELECT]


def test_tiles_at_once_are_answered_with_the_first_laid() -> None:
    """A1 (pile 1) was laid before B1 (pile 3), neither applied: A1's option is picked;
    options naming other piles for those cells are not ('Not a move')."""
    p = ChallengePlayers(SimpleNamespace(index=2), MOVES, sleep=lambda s: None)
    p.ref = SimpleNamespace(asking=("2 tiles at once", ("B1: c2 pile 3", "A1: a0 pile 1", "Not a move")),
                            journal=SimpleNamespace(records=[]))
    assert [p.poll(), p.poll()] == [ButtonEvent.NEXT, ButtonEvent.SELECT]
    p.ref.asking = ("2 tiles at once", ("B1: c2 pile 1", "A1: a0 pile 2", "Not a move"))
    assert [p.poll() for _ in range(3)] == [ButtonEvent.NEXT, ButtonEvent.NEXT, ButtonEvent.SELECT]


def test_a_question_without_options_is_acknowledged() -> None:
    """'2 tiles at once' has no options: OK."""
    assert _answers(2, ("2 tiles at once", ())) == [ButtonEvent.SELECT]


def test_only_the_piles_is_yes_until_a_tile_is_laid() -> None:
    """"Only the piles?" before the pioneer is laid: yes; once it lies there: the option
    naming the first tile laid and its pile, else 'Not a move'."""
    q = ("Only the piles?", ("Yes: piles only", "Not a move"))
    assert _answers(0, q) == [ButtonEvent.SELECT]
    assert _answers(1, q) == [ButtonEvent.NEXT, ButtonEvent.SELECT]
    laid = ("Only the piles?", ("Yes: piles only", "A1: a0 pile 2", "A1: a0 pile 1", "Not a move"))
    assert _answers(0, laid) == [ButtonEvent.SELECT]
    assert _answers(2, laid) == [ButtonEvent.NEXT, ButtonEvent.NEXT, ButtonEvent.SELECT]
    wrong = ("Only the piles?", ("Yes: piles only", "A1: a0 pile 2", "Not a move"))
    assert _answers(2, wrong) == [ButtonEvent.NEXT, ButtonEvent.NEXT, ButtonEvent.SELECT]


def test_an_alert_on_a_tile_laid_is_fixed_with_its_pile() -> None:
    """B1 (pile 3) alerted: MENU, then Misread? Fix, then the option naming pile 3; the
    same alert again is left alone, and an alert on a cell not laid is not fixed."""
    alert = SimpleNamespace(message="d1 at B1: ...", move={"cell": "B1"})
    p = ChallengePlayers(SimpleNamespace(index=2), MOVES, sleep=lambda s: None)
    p.ref = SimpleNamespace(asking=None, misread=alert)
    assert p.poll() == ButtonEvent.MENU
    p.ref.asking = ("Menu", ("Back", "Hint", "Tile misplaced: lose", "Misread? Fix", "Undo last move"))
    assert [p.poll() for _ in range(4)] == [ButtonEvent.NEXT] * 3 + [ButtonEvent.SELECT]
    p.ref.asking = ("It really is", ("a0 from pile 1", "c2 from pile 3"))
    assert [p.poll() for _ in range(2)] == [ButtonEvent.NEXT, ButtonEvent.SELECT] and p.fixes == 1
    p.ref.asking = None
    assert p.poll() is None
    other = ChallengePlayers(SimpleNamespace(index=1), MOVES, sleep=lambda s: None)
    other.ref = SimpleNamespace(asking=None, misread=alert)
    assert other.poll() is None
