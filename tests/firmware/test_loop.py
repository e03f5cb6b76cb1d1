"""The referee loop end to end on the mini table (real markers, pixels, rules, journal)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import cv2
import numpy as np
import pytest

import minitable
from firmware.journal import load
from firmware.loop import summary_from_journal
from loopkit import referee


@pytest.fixture(scope="module")
def game6() -> tuple[list, list]:
    placements = minitable.legal_game(7, 6)
    return placements, minitable.game_frames(placements, 7)


def _city(placements: list) -> set[tuple[int, int]]:
    return {cell for cell, _ in placements}


def test_a_game_with_hands_and_cups_is_refereed_exactly(tmp_path: Path, game6: tuple) -> None:
    """Every placement becomes exactly one move; hands and cups never do."""
    placements, frames = game6
    ref = referee(tmp_path, frames)
    assert ref.run() == 0
    moves = [r.data for r in load(tmp_path / "journal.jsonl").records if r.kind == "move"]
    assert [(m["cell"], m["tile"]) for m in moves] == [
        ("ABCDEFG"[c] + str(r + 1), "abcdefg"[s] + str(k)) for (r, c), (s, k) in placements]
    assert ref.journal.closed


def test_illegal_placement_alerts_and_is_not_applied(tmp_path: Path) -> None:
    """A tile breaking the row rule flashes the inverted alert and never enters the state."""
    pioneer = ((0, 0), (1, 1))
    bad = {(0, 0): (1, 1), (0, 1): (1, 3)}     # same shape in the row
    frames = [minitable.render({}), minitable.render({(0, 0): (1, 1)}), minitable.render(bad)]
    ref = referee(tmp_path, frames)
    from firmware.alerts import NullAlerts
    ref.alerts = NullAlerts()
    alerts = ref.alerts.history
    ref.run()
    assert alerts == ["ok", "illegal"]
    assert any("illegal: b3 at B1: a house of the same shape is already in this row" in e
               for e in ref.events)
    summary = summary_from_journal(load(tmp_path / "journal.jsonl").records)
    assert summary is not None and summary["moves"] == 1
    del pioneer


def test_an_alert_left_standing_is_not_sounded_again(tmp_path: Path) -> None:
    """A tile alerted and left on the table (the players keep it), seen again after a hand
    passed over, is shown but not flashed and sounded a second time."""
    from firmware.alerts import NullAlerts
    bad = {(0, 0): (1, 1), (0, 1): (1, 3)}     # same shape in the row
    hand = [{"kind": "hand", "at": (200.0, 300.0)}]
    frames = [minitable.render({}), minitable.render({(0, 0): (1, 1)}), minitable.render(bad),
              minitable.render(bad, hand, seed=3), minitable.render(bad, seed=4)]
    ref = referee(tmp_path, frames)
    ref.alerts = NullAlerts()
    ref.run()
    looks = [e for e in ref.events if e.startswith("frame ") and ("Illegal" in e or "Standing" in e)]
    assert ref.alerts.history == ["ok", "illegal"], (ref.alerts.history, looks)
    assert any(": Standing " in e for e in looks), looks


class _Players:
    """Players who start pressing their buttons once `ready()` holds."""

    def __init__(self, ready: Callable[[], bool], events: list[str]) -> None:
        from firmware.buttons.base import ButtonEvent
        self.ready, self.events, self.started = ready, [ButtonEvent[e] for e in events], False

    def poll(self, timeout: float = 0.0) -> object:
        self.started = self.started or self.ready()
        return self.events.pop(0) if self.started and self.events else None


def test_an_alert_the_players_call_a_misreading_is_fixed_from_the_menu(tmp_path: Path) -> None:
    """After an illegal alert, MENU > Misread? Fix offers legal tiles for that cell (the
    read tile's shape or colour first) and applies the one picked, as the players' fix."""
    bad = {(0, 0): (1, 1), (0, 1): (1, 3)}     # same shape in the row: read as illegal
    frames = [minitable.render({}), minitable.render({(0, 0): (1, 1)}), minitable.render(bad),
              minitable.render(bad)]
    ref = referee(tmp_path, frames)
    # menu: Back, P2 leaves, Misread? Fix, Undo last move, End game; then the first fix
    ref.buttons = _Players(lambda: ref.misread is not None,  # type: ignore[assignment]
                           ["MENU", "NEXT", "NEXT", "SELECT", "SELECT"])
    ref.run()
    moves = [r.data for r in load(tmp_path / "journal.jsonl").records if r.kind == "move"]
    assert [(m["cell"], m["source"]) for m in moves] == [("A1", "seen"), ("B1", "fix")], ref.events
    assert moves[1]["tile"][1] == "3"        # b3 read: a tile of its colour comes first
    assert ref.misread is None


def test_without_an_alert_the_menu_offers_no_fix(tmp_path: Path) -> None:
    """The fix entry appears only while an alert stands: MENU, NEXT, NEXT lands on
    "Undo last move" (the pioneer undone), not on a fix."""
    frames = [minitable.render({}), minitable.render({(0, 0): (1, 1)}),
              minitable.render({(0, 0): (1, 1)})]
    ref = referee(tmp_path, frames)
    ref.buttons = _Players(lambda: any(r.kind == "move" for r in ref.journal.records),  # type: ignore[assignment]
                           ["MENU", "NEXT", "NEXT", "SELECT", "BACK"])
    ref.run()
    kinds = [r.kind for r in load(tmp_path / "journal.jsonl").records]
    assert "undo" in kinds and ref.misread is None, ref.events


def test_two_tiles_at_once_ask_and_the_players_choose(tmp_path: Path) -> None:
    """Two new tiles are not applied by themselves; SELECT on the question picks one."""
    frames = [minitable.render({}), minitable.render({(0, 0): (1, 1)}),
              minitable.render({(0, 0): (1, 1), (0, 1): (2, 2), (1, 0): (3, 3)}),
              minitable.render({(0, 0): (1, 1), (0, 1): (2, 2), (1, 0): (3, 3)}, seed=5)]
    ref = referee(tmp_path, frames, buttons=["SELECT"])
    ref.run()
    moves = [r.data for r in load(tmp_path / "journal.jsonl").records if r.kind == "move"]
    assert [m["tile"] for m in moves] == ["b1", "c2"]
    assert moves[1]["source"] == "confirmed"


@pytest.mark.parametrize("answer,tiles", [(["SELECT"], ["b1"]), (["PREV", "SELECT"], [])])
def test_a_tile_on_the_table_at_the_start_is_asked_once(tmp_path: Path, answer: list[str],
                                                        tiles: list[str]) -> None:
    """A lone tile already on the table at the game's first look is asked (never applied by
    itself); "Not a move" makes that table the background, so it is not asked again."""
    frames = [minitable.render({(0, 0): (1, 1)}), minitable.render({(0, 0): (1, 1)}, seed=5),
              minitable.render({(0, 0): (1, 1)}, seed=6)]
    ref = referee(tmp_path, frames, buttons=answer)
    ref.run()
    moves = [r.data for r in load(tmp_path / "journal.jsonl").records if r.kind == "move"]
    assert [m["tile"] for m in moves] == tiles
    assert sum(": Ask " in e for e in ref.events) == 1


@pytest.mark.parametrize("answer,kept", [(["SELECT"], True), (["PREV", "SELECT"], False)])
def test_a_phantom_called_no_move_hands_on_no_lattice(tmp_path: Path, answer: list[str],
                                                      kept: bool) -> None:
    """A first look's lattice is handed to the next looks once its tile is the pioneer, never
    when the players called that tile "Not a move": it was fitted to a phantom (game 5044
    then missed the pioneer on it and built the city a row off)."""
    frames = [minitable.render({(0, 0): (1, 1)}), minitable.render({(0, 0): (1, 1)}, seed=5),
              minitable.render({(0, 0): (1, 1)}, seed=6), minitable.render({(0, 0): (1, 1)}, seed=7)]
    ref = referee(tmp_path, frames, buttons=answer)
    hints: list[Any] = []

    def analyze(game: str, image: np.ndarray, fit: Any, options: Any) -> dict[str, Any]:
        hints.append(options.extra.get("grid"))
        grid = {"pitch_mm": 57.0, "angle_deg": 0.0, "origin_mm": [30.0, 30.0]}
        return dict(minitable.read(image, fit, options), grid=grid)

    ref.analyze_fn = analyze
    ref.run()
    assert len(hints) >= 3 and hints[0] is None
    assert any(h is not None for h in hints) == kept, hints


def test_the_question_on_screen_is_readable_while_it_waits(tmp_path: Path) -> None:
    """Referee.asking holds the question's title and choices while it waits for the
    buttons (what simulated players read), and None again once it is answered."""
    frames = [minitable.render({}), minitable.render({(0, 0): (1, 1)}),
              minitable.render({(0, 0): (1, 1), (0, 1): (2, 2), (1, 0): (3, 3)}),
              minitable.render({(0, 0): (1, 1), (0, 1): (2, 2), (1, 0): (3, 3)}, seed=5)]
    ref = referee(tmp_path, frames)
    seen: list[object] = []

    class Reading:
        def poll(self, timeout: float = 0.0) -> object:
            from firmware.buttons.base import ButtonEvent
            seen.append(ref.asking)
            return ButtonEvent.SELECT if ref.asking is not None else None

    ref.buttons = Reading()  # type: ignore[assignment]
    ref.run()
    asked = [a for a in seen if a is not None]
    assert asked and asked[0] == ("2 tiles at once", ("c2 at B1", "d3 at A2", "Not a move")), asked
    assert ref.asking is None


def test_camera_lost_backs_off_and_comes_back(tmp_path: Path) -> None:
    """An unplugged live camera shows the lost screen, waits 1, 2, 4 s, then the game goes on."""
    frames = [minitable.render({}), minitable.render({(0, 0): (1, 1)}),
              minitable.render({(0, 0): (1, 1), (0, 1): (2, 2)})]
    ref = referee(tmp_path, frames, lost=[5, 6, 7], replay=False)
    shown = []
    show = ref.display.show
    ref.display.show = lambda im: (shown.append(im.tobytes()), show(im))  # type: ignore[method-assign]
    ref.run()
    lost = [e for e in ref.events if e.startswith("camera lost")]
    assert len(lost) == 3
    assert ref.clock.now() > 7.0     # type: ignore[attr-defined]
    from firmware.screens.base import camera_lost_screen
    assert camera_lost_screen(4).tobytes() in shown
    moves = [r for r in load(tmp_path / "journal.jsonl").records if r.kind == "move"]
    assert len(moves) == 2


def test_a_recording_that_cannot_be_read_stops_with_its_error(tmp_path: Path, game6: tuple) -> None:
    """A recording (replay) whose camera fails is not retried for ever: the error surfaces."""
    from firmware.camera.base import CameraError
    _, frames = game6
    ref = referee(tmp_path, frames[:3], lost=[5])
    with pytest.raises(CameraError, match="camera unplugged"):
        ref.run()
    assert ref.journal.closed


@pytest.mark.parametrize("unread", [4, 5])
def test_a_table_the_loop_cannot_make_out_is_said_after_some_looks(tmp_path: Path, unread: int) -> None:
    """Unclear looks in a row (here the markers covered) show the turn screen at first,
    and from the fifth on say what cannot be read; a clear look ends it."""
    from firmware.screens.base import unclear_screen
    covered = np.full_like(minitable.render({}), 128)
    frames = [minitable.render({})] + [covered] * unread + [minitable.render({(0, 0): (1, 1)})]
    ref = referee(tmp_path, frames)
    shown: list[bytes] = []
    show = ref.display.show
    ref.display.show = lambda im: (shown.append(im.tobytes()), show(im))  # type: ignore[method-assign]
    ref.run()
    assert sum(1 for e in ref.events if e.endswith("Unclear markers hidden")) == unread
    said = unclear_screen("markers hidden").tobytes()
    assert shown.count(said) == (1 if unread >= 5 else 0)
    assert summary_from_journal(load(tmp_path / "journal.jsonl").records)["moves"] == 1  # type: ignore[index]


def test_corrupt_frame_is_skipped(tmp_path: Path) -> None:
    """An unreadable frame is logged and skipped; the next one is read."""
    frames = [minitable.render({}), None, minitable.render({(0, 0): (1, 1)})]
    ref = referee(tmp_path, frames)
    ref.run()
    assert "skipped: frame1.jpg: not a readable image; skipping this frame" in ref.events
    assert summary_from_journal(load(tmp_path / "journal.jsonl").records)["moves"] == 1  # type: ignore[index]


def test_resume_restores_the_game_exactly(tmp_path: Path, game6: tuple) -> None:
    """A second run on the same journal resumes the unfinished game and finishes it."""
    placements, frames = game6
    referee(tmp_path, frames[:6]).run()
    half = summary_from_journal(load(tmp_path / "journal.jsonl").records)
    assert half is not None and 0 < half["moves"] < len(placements)
    ref = referee(tmp_path, frames)
    ref.run()
    assert any(e.startswith("resumed town77") for e in ref.events)
    whole = summary_from_journal(load(tmp_path / "journal.jsonl").records)
    other = tmp_path / "straight"
    referee(other, frames).run()
    assert whole == summary_from_journal(load(other / "journal.jsonl").records)


def test_stop_request_closes_the_journal_and_parks_the_display(tmp_path: Path, game6: tuple) -> None:
    """SIGTERM's handler makes the loop leave cleanly: journal closed, parked screen up."""
    _, frames = game6
    ref = referee(tmp_path, frames)
    ref.cfg.max_frames = None
    ref.request_stop()
    assert ref.run() == 0
    assert ref.journal.closed
    from firmware.screens.base import parked_screen
    assert ref.display.last is not None
    assert ref.display.last.tobytes() == parked_screen("Stopped").tobytes()


def test_camera_moved_is_noticed_and_refitted(tmp_path: Path) -> None:
    """A knocked camera (a different view of the same table) is reported, not misread."""
    frames = [minitable.render({}), minitable.render({(0, 0): (1, 1)}),
              minitable.render({(0, 0): (1, 1)}, tilt=30.0),
              minitable.render({(0, 0): (1, 1), (0, 1): (2, 2)}, tilt=30.0)]
    ref = referee(tmp_path, frames)
    ref.run()
    assert "camera or table moved; re-fitted" in ref.events
    moves = [r.data["tile"] for r in load(tmp_path / "journal.jsonl").records if r.kind == "move"]
    assert moves == ["b1", "c2"]


def test_end_game_from_the_menu_records_scores(tmp_path: Path) -> None:
    """MENU > End game > tiles left per player gives an "end" record and the ranking."""
    frames = [minitable.render({}), minitable.render({(0, 0): (1, 1)}),
              minitable.render({(0, 0): (1, 1), (0, 1): (2, 2)})]
    # menu items: Back, P1 leaves, Undo last move, End game
    buttons = ["MENU", "NEXT", "NEXT", "NEXT", "SELECT", "NEXT", "NEXT", "SELECT", "SELECT", "SELECT"]
    ref = referee(tmp_path, frames, buttons=buttons)
    ref.run()
    recs = load(tmp_path / "journal.jsonl").records
    assert recs[-1].kind == "end" and recs[-1].data["tiles_left"] == [2, 0]
    summary = summary_from_journal(recs)
    assert summary is not None and summary["ranking"] == [[1, 1, 0], [0, 2, 2]]


def test_a_cup_put_down_beside_the_new_tile_lets_the_move_stand(tmp_path: Path) -> None:
    """A cup set down next to the tile in the same look is no arm: the move is applied."""
    pioneer = {(0, 0): (1, 1)}
    both = {(0, 0): (1, 1), (0, 1): (2, 2)}
    cx, cy = minitable.cell_centre(0, 1)
    cup = [{"kind": "cup", "at": (cx + 28, cy + 50), "r": 25}]   # between the cells below
    frames = [minitable.render({}), minitable.render(pioneer, seed=1),
              minitable.render(both, cup, seed=2), minitable.render(both, cup, seed=3)]
    ref = referee(tmp_path, frames)
    assert ref.run() == 0
    moves = [r.data for r in load(tmp_path / "journal.jsonl").records if r.kind == "move"]
    assert [m["cell"] for m in moves] == ["A1", "B1"], ref.events


@pytest.mark.parametrize("colours", [{}, {"skin": (128, 143, 133), "sleeve": (40, 40, 90)}],
                         ids=["skin", "skin-about-the-cloths-colour"])
def test_a_still_hand_beside_the_new_tile_still_blocks_it(tmp_path: Path, colours: dict[str, Any]) -> None:
    """A hand resting still by the new tile, its arm to the table's edge, blocks the move;
    so does one whose skin differs from the cloth by less than the guard's threshold, on
    a dark sleeve: the guard's mask holds the sleeve alone, and the arm reaches as far as
    the finer change mask carries it (held-out game 153)."""
    pioneer = {(0, 0): (1, 1)}
    both = {(0, 0): (1, 1), (0, 1): (2, 2)}
    cx, cy = minitable.cell_centre(0, 1)
    hand = [{"kind": "hand", "at": (cx + 10, cy + 22 + 8 + 55), **colours}]
    frames = [minitable.render({}), minitable.render(pioneer, seed=1),
              minitable.render(both, hand, seed=2), minitable.render(both, hand, seed=3)]
    ref = referee(tmp_path, frames)
    ref.run()
    moves = [r.data for r in load(tmp_path / "journal.jsonl").records if r.kind == "move"]
    assert [m["cell"] for m in moves] == ["A1"], ref.events
    assert any("table not clear" in e for e in ref.events), ref.events


def test_the_table_a_resting_hand_uncovers_is_the_table_before_it(tmp_path: Path) -> None:
    """A hand resting by the empty city is a quiet look; once it has gone, the Pioneering
    Tile laid where it rested is applied (checked against the table before the hand)."""
    pinch = [{"kind": "pinch", "at": (12.0, 75.0)}]      # fingers by A1, the arm off the table
    frames = [minitable.render({}), minitable.render({}, pinch, seed=1),
              minitable.render({(0, 0): (1, 1)}, seed=2)]
    ref = referee(tmp_path, frames)
    assert ref.run() == 0
    moves = [r.data for r in load(tmp_path / "journal.jsonl").records if r.kind == "move"]
    assert [m["cell"] for m in moves] == ["A1"], ref.events


def _asked_and_refused(ref: Any, ask: Callable[[Any], Any], refusal: Exception) -> None:
    """Once the game starts, every look's verdict goes through `ask` (given the session's
    own) and every move is refused with `refusal`: a question whose answer the rules
    refuse, without a game whose reader asks one."""
    original_start = ref._watch

    def watch() -> None:
        assert ref.session is not None
        real = ref.session.interpret

        def apply(move: dict) -> object:
            raise refusal

        ref.session.interpret = lambda obs, change=None: ask(real(obs, change))
        ref.session.apply = apply
        original_start()

    ref._watch = watch


def test_a_refused_answer_to_a_question_is_alerted(tmp_path: Path) -> None:
    """Players confirming a reading the rules refuse (a link that really is too short) get
    the illegal-move alert, not a quiet "Refused"; nothing is applied."""
    from firmware.alerts import NullAlerts
    from firmware.games.base import Ask
    from rules.errors import IllegalMove

    frames = [minitable.render({}), minitable.render({(0, 0): (1, 1)}, seed=1),
              minitable.render({(0, 0): (1, 1)}, seed=1)]      # a question waits for two looks
    ref = referee(tmp_path, frames, buttons=["NEXT", "SELECT"])
    ref.alerts = NullAlerts()

    def ask(verdict: Any) -> object:
        if type(verdict).__name__ != "Proposed":
            return verdict
        return Ask("how many?", ({"type": "x", "n": 8}, {"type": "x", "n": 6}),
                   ("red 8: A-B", "red 6: Link too short"), verdict.footprint)

    _asked_and_refused(ref, ask, IllegalMove("red link of 6 clips is shorter than 8 [state]", "TOO_SHORT"))
    shown: list[bytes] = []
    show = ref.display.show
    ref.display.show = lambda im: (shown.append(im.tobytes()), show(im))  # type: ignore[method-assign]
    ref.run()
    assert ref.alerts.history == ["illegal"], (ref.alerts.history, ref.events)
    assert any(e.startswith("illegal: red link of 6 clips") for e in ref.events), ref.events
    from firmware.screens.base import error_screen, invert
    assert invert(error_screen("Illegal move", "Link too short")).tobytes() in shown
    assert not [r for r in load(tmp_path / "journal.jsonl").records if r.kind == "move"]


def test_a_tile_no_option_names_is_picked_from_other_and_alerted_when_illegal(tmp_path: Path) -> None:
    """A question whose options all name the tile wrong ("B1: c3 or d3?" for a b3) offers
    Other...: the session's fuller list, where the players pick the real tile; the rules
    refuse it (shape in the row) and it is alerted, never applied."""
    from firmware.alerts import NullAlerts
    from firmware.games.base import OTHER, OTHER_TITLE, Ask

    bad = {(0, 0): (1, 1), (0, 1): (1, 3)}     # b3 beside the b1 pioneer: same shape in the row
    frames = [minitable.render({}), minitable.render({(0, 0): (1, 1)}), minitable.render(bad),
              minitable.render(bad, seed=4)]
    ref = referee(tmp_path, frames)
    ref.alerts = NullAlerts()
    menus: list[tuple[str, tuple[str, ...]]] = []
    # Other... is the third entry (after the two options); b3 the second tile behind it
    players = _Players(lambda: bool(ref.asking and ref.asking[0].startswith("B1")),
                       ["NEXT", "NEXT", "SELECT", "NEXT", "SELECT"])

    def poll(timeout: float = 0.0) -> object:
        if ref.asking and ref.asking not in menus:
            menus.append(ref.asking)
        return players.poll(timeout)

    ref.buttons.poll = poll  # type: ignore[method-assign]
    original_start = ref._watch

    def watch() -> None:
        assert ref.session is not None
        real = ref.session.interpret

        def ask(obs: Any, change: Any = None) -> object:
            verdict = real(obs, change)
            if type(verdict).__name__ != "Illegal":
                return verdict
            moves = tuple(dict(verdict.move, tile=t) for t in ("c3", "d3"))
            return Ask("B1: c3 or d3?", moves, ("c3 at B1", "d3 at B1"), verdict.footprint)

        ref.session.interpret = ask
        original_start()

    ref._watch = watch
    ref.run()
    assert ("B1: c3 or d3?", ("c3 at B1", "d3 at B1", OTHER, "Not a move")) in menus, menus
    lists = [choices for title, choices in menus if title == OTHER_TITLE]
    assert lists and lists[0][:3] == ("a3 at B1", "b3 at B1", "c0 at B1"), lists
    assert any(e.endswith(": Picked illegal b3 at B1") for e in ref.events), ref.events
    assert ref.alerts.history == ["ok", "illegal"], (ref.alerts.history, ref.events)
    moves = [r.data for r in load(tmp_path / "journal.jsonl").records if r.kind == "move"]
    assert [m["cell"] for m in moves] == ["A1"], moves


def test_a_tile_read_face_down_is_named_from_other_and_alerted_when_illegal(tmp_path: Path) -> None:
    """A new tile read face down is asked about with Other... (and Not a move) instead of
    a bare OK: the players pick the real tile from the list; the rules refuse it (b3
    beside the b1 pioneer: shape in the row) and it is alerted, never applied."""
    from firmware.alerts import NullAlerts
    from firmware.games.base import OTHER, OTHER_TITLE

    down = {(0, 0): (1, 1), (0, 1): "##"}
    frames = [minitable.render({}), minitable.render({(0, 0): (1, 1)}), minitable.render(down),
              minitable.render(down, seed=4)]
    ref = referee(tmp_path, frames)
    ref.alerts = NullAlerts()
    menus: list[tuple[str, tuple[str, ...]]] = []
    # Other... first; behind it a0-a6, b0, b2, then b3
    players = _Players(lambda: bool(ref.asking and ref.asking[0] == "Face-down tile at B1"),
                       ["SELECT"] + ["NEXT"] * 9 + ["SELECT"])

    def poll(timeout: float = 0.0) -> object:
        if ref.asking and ref.asking not in menus:
            menus.append(ref.asking)
        return players.poll(timeout)

    ref.buttons.poll = poll  # type: ignore[method-assign]
    ref.run()
    assert menus[0] == ("Face-down tile at B1", (OTHER, "Not a move")), menus
    lists = [choices for title, choices in menus if title == OTHER_TITLE]
    assert lists and lists[0][:10] == tuple(f"{t} at B1" for t in
                                            ("a0", "a1", "a2", "a3", "a4", "a5", "a6", "b0", "b2", "b3")), lists
    assert any(e.endswith(": Picked illegal b3 at B1") for e in ref.events), ref.events
    assert ref.alerts.history == ["ok", "illegal"], (ref.alerts.history, ref.events)
    moves = [r.data for r in load(tmp_path / "journal.jsonl").records if r.kind == "move"]
    assert [m["cell"] for m in moves] == ["A1"], moves


def test_ok_to_a_question_without_options_tells_the_session_the_players_checked(tmp_path: Path) -> None:
    """OK (select) to a question with nothing to pick ("Stray tile at X") reaches the
    session's checked() with that question: a session can stop asking about a place
    the players looked at; nothing is applied."""
    from firmware.games.base import Ask

    frames = [minitable.render({}), minitable.render({(0, 0): (1, 1)}, seed=1),
              minitable.render({(0, 0): (1, 1)}, seed=1)]
    ref = referee(tmp_path, frames, buttons=["SELECT"])
    asked: list[Any] = []
    seen: list[Any] = []
    original_start = ref._watch

    def ask(verdict: Any) -> object:
        if type(verdict).__name__ != "Proposed":
            return verdict
        asked.append(Ask("Stray tile at row 9 col 9", (), (), verdict.footprint))
        return asked[-1]

    def watch() -> None:
        assert ref.session is not None
        real = ref.session.interpret
        ref.session.interpret = lambda obs, change=None: ask(real(obs, change))
        ref.session.checked = seen.append
        original_start()

    ref._watch = watch
    ref.run()
    assert asked and seen == asked[:1], ref.events
    assert "checked" in ref.events, ref.events
    assert not [r for r in load(tmp_path / "journal.jsonl").records if r.kind == "move"]


def test_an_answer_the_rules_refuse_stands_as_its_alert_on_later_looks(tmp_path: Path) -> None:
    """The same question on later looks (the tile the players named is still there) is
    not asked again: the alert raised by their answer stands, shown but not sounded
    again, until a look agrees with the state."""
    from firmware.alerts import NullAlerts
    from firmware.games.base import Ask
    from rules.errors import IllegalMove

    tile = minitable.render({(0, 0): (1, 1)}, seed=1)
    frames = [minitable.render({})] + [tile] * 5
    ref = referee(tmp_path, frames, buttons=["NEXT", "SELECT"])
    ref.alerts = NullAlerts()

    def ask(verdict: Any) -> object:
        if type(verdict).__name__ in ("NoChange", "Unclear"):
            return verdict
        return Ask("Which tile at A1?", ({"type": "x", "n": 1}, {"type": "x", "n": 2}),
                   ("b1 at A1", "b0 at A1"), verdict.footprint)

    _asked_and_refused(ref, ask, IllegalMove("b0 at A1: a house of the same colour is already in this column"
                                             " [state]", "COLOUR_IN_COLUMN"))
    ref.run()
    looks = [e for e in ref.events if e.startswith("frame ")]
    assert ref.alerts.history == ["illegal"], (ref.alerts.history, looks)
    assert sum(": Ask Which tile at A1?" in e for e in looks) == 1, looks
    assert any(": Standing " in e for e in looks), looks
    assert "question dismissed" not in ref.events, ref.events


def _guard_views(blob: tuple[float, float, float, float] | None) -> tuple[Any, Any, Any]:
    """(referee, the move, current view) on the mini table's guard area: the view has a
    new tile at B1 and, if given, a still blob (x0, y0, x1, y1 in table mm) a few mm from
    it that does not reach the table's edge (no arm)."""
    from firmware.games.base import Proposed
    ref = referee(Path("/nonexistent"), [])
    ref.profile = minitable.PROFILE
    (ox, oy), (w, h) = ref.guard_area()
    k = ref.cfg.motion.guard_px_per_mm
    base = np.full((int(h * k), int(w * k), 3), 120, np.uint8)

    def px(x: float, y: float) -> tuple[int, int]:
        return int((x - ox) * k), int((y - oy) * k)

    cx, cy = minitable.cell_centre(0, 1)
    now = base.copy()
    cv2.rectangle(now, px(cx - 22, cy - 22), px(cx + 22, cy + 22), (40, 40, 220), -1)
    if blob is not None:
        cv2.rectangle(now, px(blob[0], blob[1]), px(blob[2], blob[3]), (170, 200, 230), -1)
    move = Proposed({"type": "place", "cell": "B1"}, "b1 at B1",
                    ((cx - 24, cy - 24, cx + 24, cy + 24),))
    ref.reference, ref.previous_view = base, now
    return ref, move, now


def test_a_still_thing_a_cell_large_by_the_new_tile_is_asked_without_an_arm() -> None:
    """A fist whose arm the guard cannot see (an arm in a lamp's glare is as bright as the
    cloth), or a cup, beside a new tile: the move is asked, never applied; a sliver beside
    it (a tile's rim laid off its cell) lets it stand."""
    from firmware.games.base import Ask, Proposed
    cx, cy = minitable.cell_centre(0, 1)
    ref, move, now = _guard_views((cx - 20, cy + 26, cx + 40, cy + 86))       # 60 x 60 mm
    v = ref._guard(move, now)
    assert isinstance(v, Ask) and v.candidates == (move.move,), v
    ref, move, now = _guard_views((cx - 20, cy + 26, cx + 20, cy + 32))       # 40 x 6 mm
    assert isinstance(ref._guard(move, now), Proposed)


def test_a_question_blocked_by_a_still_thing_is_asked_after_some_still_looks() -> None:
    """Fresh loop games 501 and 558: a question (tiles laid together) beside tiles the game
    had not taken waited for the table to clear, which it never would, to the game's end;
    blocked on `stuck_ask_looks` still looks, it is put to the players (it applies
    nothing)."""
    from firmware.games.base import Ask, Unclear
    cx, cy = minitable.cell_centre(0, 1)
    ref, move, now = _guard_views((cx - 20, cy + 26, cx + 40, cy + 86))       # 60 x 60 mm
    ask = Ask("2 tiles at once", (move.move,), (move.text,), move.footprint)
    got = [ref._guard(ask, now) for _ in range(ref.cfg.stuck_ask_looks)]
    assert all(isinstance(v, Unclear) and v.reason == "table not clear" for v in got[:-1]), got
    assert got[-1] is ask, got


def _apply_b1(ref: Any, now: Any, tmp_path: Path) -> None:
    from firmware.games.town77 import Town77Session
    from firmware.journal import Journal
    ref.journal = Journal(tmp_path)
    ref.session = Town77Session({"players": 2})
    ref.session.apply({"type": "pioneer", "tile": "a0", "cell": "A1"})
    ref.current_view = now
    assert ref._apply({"type": "place", "player": 0, "tile": "b1", "cell": "B1"}, None)


def test_a_move_applied_beside_a_resting_arm_keeps_the_table_under_the_arm(tmp_path: Path) -> None:
    """Dev game 104: C1 was applied while an arm rested on the table away from it, and the
    arm became the table the next move was compared with; when it went, the table it
    uncovered read as a change the size of an arm, and a tile laid beside the next one
    was taken for part of it and lost. The move's table is also kept without the arm
    (the old table under it, the move's cell as it is now), and the next look's change
    map is taken against whichever of the two the view differs from least; a cup (no
    arm) simply becomes table."""
    from firmware.games.base import Proposed
    cx, cy = minitable.cell_centre(0, 1)
    for blob, arm in (((cx + 100, cy + 100, cx + 160, 460.0), True),      # to the table's edge
                      ((cx + 100, cy + 100, cx + 160, cy + 160), False)):  # a cup
        ref, move, now = _guard_views(blob)
        base = ref.reference
        assert isinstance(ref._guard(move, now), Proposed)
        _apply_b1(ref, now, tmp_path / str(arm))
        k = ref.cfg.motion.guard_px_per_mm
        (ox, oy), _ = ref.guard_area()
        hx, hy = int(((blob[0] + blob[2]) / 2 - ox) * k), int((blob[1] + 10 - oy) * k)
        tx, ty = int((cx - ox) * k), int((cy - oy) * k)
        assert ref.reference is now and ref.behind is None
        if not arm:
            assert ref.earlier is None
            continue
        assert (ref.earlier[hy, hx] == base[hy, hx]).all(), "the table under the arm"
        assert (ref.earlier[ty, tx] == now[ty, tx]).all(), "the applied tile"
        gone = now.copy()
        gone[hy - 20:, hx - 20:hx + 20] = base[hy - 20:, hx - 20:hx + 20]
        for view in (gone, now):     # the arm went, or stayed: no change either way
            change = ref._change(view)
            assert change is not None and change.fraction((blob[0], blob[1], blob[2], blob[1] + 40)) == 0.0


def test_a_cup_taken_away_from_beside_the_next_move_lets_it_stand(tmp_path: Path) -> None:
    """Dev game 117: a cup stood by the city when a move was applied, so it was part of the
    accepted table; taken away, the table it uncovered read as a still thing beside the
    next tile, which was blocked to the game's end. The guard also compares with the
    tables the game agreed with before, pixel by pixel; a cup newly put down there is
    still a still thing beside the move (asked)."""
    from firmware.games.base import Ask, Proposed
    cx, cy = minitable.cell_centre(0, 2)
    cup = (cx + 26, cy - 30, cx + 86, cy + 30)                 # just right of C1
    for cup_before in (True, False):
        ref, _, b1 = _guard_views(cup if cup_before else None)
        base = ref.reference
        ref._accept(base)                                      # the table before B1
        _apply_b1(ref, b1, tmp_path / str(cup_before))         # accepted with the cup, if any
        (ox, oy), _ = ref.guard_area()
        k = ref.cfg.motion.guard_px_per_mm

        def px(x: float, y: float) -> tuple[int, int]:
            return int((x - ox) * k), int((y - oy) * k)

        later = b1.copy()
        cv2.rectangle(later, px(cx - 22, cy - 22), px(cx + 22, cy + 22), (40, 220, 40), -1)
        (x0, y0), (x1, y1) = px(cup[0], cup[1]), px(cup[2], cup[3])
        if cup_before:
            later[y0:y1, x0:x1] = base[y0:y1, x0:x1]           # the cup taken away
        else:
            cv2.rectangle(later, (x0, y0), (x1, y1), (170, 200, 230), -1)   # a cup put down
        move = Proposed({"type": "place", "cell": "C1"}, "c2 at C1", ((cx - 24, cy - 24, cx + 24, cy + 24),))
        ref.previous_view = later
        got = ref._guard(move, later)
        assert isinstance(got, Proposed if cup_before else Ask), (cup_before, got)


def test_the_loop_looks_again_at_once_while_tiles_laid_together_wait(tmp_path: Path) -> None:
    """Once the players apply one of two tiles laid together, the loop looks again without
    waiting for the table to change (the other is on the table already)."""
    from test_grid_change import _change, _obs
    from firmware.games.base import Ask
    ref, move, now = _guard_views(None)
    _apply_b1(ref, now, tmp_path)
    ref.last_look_preview = np.zeros((4, 4), np.uint8)
    frame = _obs((0, 0, "s1", "c1"), (0, 1, "s2", "c2"), (1, 0, "s3", "c3"), (1, 1, "s4", "c4"))
    v = ref.session.interpret(frame, change=_change((1, 0), (1, 1)))
    assert isinstance(v, Ask)
    assert ref._apply(next(m for m in v.candidates if m["cell"] == "A2"), None)
    assert ref.last_look_preview is None


def test_the_unclear_screen_says_the_short_reason_and_the_log_keeps_the_detail(tmp_path: Path) -> None:
    """A reader's long error goes to the log whole; the screen shows the Unclear's short reason."""
    from firmware.screens.base import unclear_screen
    from vision.api import ReadError
    blank = minitable.render({})
    frames = [blank] + [blank.copy() for _ in range(5)] + [minitable.render({(0, 0): (1, 1)})]
    unreadable = {id(f) for f in frames[1:6]}

    def analyze(game: str, image: Any, fit: Any, options: Any) -> Any:
        if id(image) in unreadable:
            raise ReadError("glare over A3 (62% of the cell); shade the lamp")
        return minitable.loop_analyze(game, image, fit, options)

    ref = referee(tmp_path, frames)
    ref.analyze_fn = analyze
    shown: list[bytes] = []
    show = ref.display.show
    ref.display.show = lambda im: (shown.append(im.tobytes()), show(im))  # type: ignore[method-assign]
    ref.run()
    assert any(e.endswith("Unclear unreadable: glare over A3 (62% of the cell); shade the lamp")
               for e in ref.events)
    assert shown.count(unclear_screen("table unreadable").tobytes()) == 1


@pytest.mark.parametrize("answer,tiles", [(["SELECT"], ["b1", "c2"]), (["PREV", "SELECT"], ["b1"])])
def test_a_tile_read_where_nothing_changed_is_asked_once(tmp_path: Path, answer: list[str],
                                                         tiles: list[str]) -> None:
    """A tile the reader sees beside the city where the pixels did not change (too faint
    for the change map) is asked before the table is agreed on; "Not a move" reaches the
    session, so the same tile is not asked at every look after."""
    frames = [minitable.render({}), minitable.render({(0, 0): (1, 1)})] + \
        [minitable.render({(0, 0): (1, 1)}, seed=s) for s in (5, 6, 7, 8)]
    ref = referee(tmp_path, frames, buttons=answer)
    centre = list(minitable.cell_centre(0, 0))
    grid = {"pitch_mm": minitable.PITCH, "angle_deg": 0.0, "origin_mm": centre}

    def analyze(game: str, image: np.ndarray, fit: Any, options: Any) -> dict[str, Any]:
        got = minitable.read(image, fit, options)
        if any(r.kind == "move" for r in ref.journal.records):
            got["tiles"].append({"row": 1, "col": 0, "face_down": False, "shape": 2, "colour": 2,
                                 "centre_mm": list(minitable.cell_centre(1, 0))})
        return dict(got, grid=grid)

    ref.analyze_fn = analyze
    ref.run()
    moves = [r.data for r in load(tmp_path / "journal.jsonl").records if r.kind == "move"]
    assert [m["tile"] for m in moves] == tiles
    assert sum(": Ask c2 at A2?" in e for e in ref.events) == 1, ref.events
