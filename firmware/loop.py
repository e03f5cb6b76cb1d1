"""The referee loop: watch the table, read it when it is still, judge, show, journal.

menu -> setup -> watching -> (verdict | alert | question) -> ... -> end -> menu

One frame's path: camera preview -> MotionDetector (firmware.motion) -> still long
enough and changed since the last look -> capture_still -> table fit (markers found
again every time, first near their last place, the whole frame when one is not there; a
shift means the camera or table moved) -> the game's reader (handed its last lattice) ->
foreign-object guard -> GameSession.interpret -> verdict on the display (and the move
through the rules into the journal).

Time comes from an injected Clock, so tests and replays never sleep: a recorded camera
(frames:DIR, scripted synthetic scenes) runs on a virtual clock as fast as the CPU goes,
and buttons are only asked when an answer is needed (so a button script lines up with
the recording however fast it plays).
"""

from __future__ import annotations

import functools
import logging
import signal
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterator, Protocol, TypeVar

import cv2
import numpy as np
from numpy.typing import NDArray
from PIL import Image

from calibration.geometry import (TableFit, TableNotFound, detect_markers, fit_from_markers,
                                  lens_at_frame_size, locate_table, rectify)
from calibration.profile import TableProfile, default_profile
from calibration.tracking import FULL_SEARCH_SIDE, track_table
from firmware.buttons.base import ButtonEvent, Buttons
from firmware.camera.base import CameraError, EndOfStream, Frame
from firmware.display.base import Display
from firmware.games import base as games
from firmware.games.base import (OTHER, OTHER_TITLE, Ask, GameSession, Illegal, NoChange, Proposed, Unclear,
                                 Verdict)
from firmware.journal import Journal, last_game, unfinished_game
from firmware.motion import (ChangeMap, MotionConfig, MotionDetector, arm_reach, change_mask,
                             foreign_change, large_parts, normalise, normalised_difference, reaching_in,
                             table_behind, touches)
from firmware.screens import base as scr
from rules.errors import IllegalMove, RulesError
from vision.api import AnalyzeOptions, ReadError, get_reader

log = logging.getLogger("tableref.loop")

Analyze = Callable[[str, NDArray[np.uint8], TableFit, AnalyzeOptions], dict[str, Any]]


class Clock(Protocol):
    def now(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


class RealClock:
    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


class VirtualClock:
    """Time that only moves when the loop waits: replays run at full speed."""

    def __init__(self, start: float = 0.0) -> None:
        self.t = start

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += max(0.0, seconds)


class Alerts(Protocol):
    """firmware.alerts: buzzer and LED patterns (non-blocking)."""

    def alert_illegal(self) -> None: ...

    def alert_ok(self) -> None: ...


class NoAlerts:
    def alert_illegal(self) -> None:
        pass

    def alert_ok(self) -> None:
        pass


ENOUGH_MARKERS = 3
"""Markers a fit needs to pin the table (one or two leave its pose loose: a fit from one
blurred marker moved 6-84 mm at the far corner between looks of a still camera); fewer
found by the reduced whole-frame search send it to full size. A cup on one of four
markers does not: three pin the table, and tracking finds the fourth when it is back."""


@dataclass
class LoopConfig:
    motion: MotionConfig = field(default_factory=MotionConfig)
    preview_interval: float = 0.1      # seconds between preview frames
    look_change: float = 0.0005        # preview change since the last look that warrants a look
    look_pixel_threshold: int = 8      # grey levels: a tile as bright as the cloth still counts
    retry_first: float = 1.0           # camera back-off: 1, 2, 4 ... retry_max seconds
    retry_max: float = 30.0
    flash_times: int = 3               # inverted flashes of an illegal-move alert
    flash_period: float = 0.25
    stuck_looks: int = 3               # blocked stable looks before asking the players
    stuck_ask_looks: int = 6           # blocked stable looks before a question is asked anyway
    unclear_looks: int = 5             # unclear looks in a row before the screen says why
    guard_margin_mm: float = 15.0      # foreign change this close to the move blocks it
    arm_bridge_mm: float = 12.0        # gaps bridged when tracing a change to the table's edge
    guard_blob_cells: float = 1.0      # a still thing this many move cells large by the move: ask
    behind_grow_mm: float = 6.0        # rim kept from the old table around a still thing a move leaves
    tables_kept: int = 6               # accepted tables the guard remembers (a cup taken away)
    moved_mm: float = 4.0              # marker shift that means "camera or table moved"
    hidden_marker_mm: float = 1.5      # seen markers this close to the last fit: others are hidden
    replay: bool = False               # recorded camera: ask buttons only when needed
    max_frames: int | None = None      # stop after this many analysed frames
    resume_timeout: float = 10.0       # resume an unfinished game when nobody answers
    prompt_timeout: float = 120.0      # a question nobody answers is dismissed
    linger_seconds: float = 0.0        # after a recording ends, keep answering buttons
    auto_dismiss: bool = False         # show questions but answer none (unattended demo)
    verdict_seconds: float = 1.5       # how long an accepted move's screen stays up
    fit_max_side: int = 1200           # marker search size (0: calibration's own default)
    track_markers: bool = True         # look for each marker near its last place first
    early_look: bool = True            # read a still taken before the still period ends
    early_settle: float = 0.4          # least stillness (s) before such a still is taken


@dataclass
class Look:
    """What one still frame gave: kept to compare the next look with."""

    view: NDArray[np.uint8]


_Kept = TypeVar("_Kept", NDArray[np.uint8], NDArray[np.uint16])


def _recall(cache: list[tuple[tuple[NDArray[np.uint8], ...], _Kept]],
            key: tuple[NDArray[np.uint8], ...], keep: int, make: Callable[[], _Kept]) -> _Kept:
    """The result kept for these very arrays (by identity: views are never changed in
    place), else make() it and keep it among the last `keep` results."""
    for k, value in cache:
        if len(k) == len(key) and all(x is y for x, y in zip(k, key)):
            return value
    value = make()
    cache[:] = [(key, value)] + cache[:keep - 1]
    return value


# what judge() changes: an early look made void by motion puts it back
_GUARD_MEMORY = ("fit", "_full_markers", "grid_hint", "previous_view", "current_view", "previous_image",
                 "reference", "earlier", "blocked_looks", "behind", "accepted")


class Stop(Exception):
    """SIGTERM (or the end of a replay): leave the loop cleanly."""


class Referee:
    """The device: one camera, one display, three buttons, one journal."""

    def __init__(self, camera: Any, display: Display, buttons: Buttons, journal: Journal, *,
                 clock: Clock | None = None, config: LoopConfig | None = None,
                 game: str | None = None, profile: TableProfile | None = None,
                 analyze: Analyze | None = None, alerts: Alerts | None = None,
                 reopen_camera: Callable[[], Any] | None = None,
                 preset: dict[str, Any] | None = None, source: str = "") -> None:
        self.camera = camera
        self.display = display
        self.buttons = buttons
        self.journal = journal
        self.clock: Clock = clock or RealClock()
        self.cfg = config or LoopConfig()
        self.fixed_game = game
        self.fixed_profile = profile
        self.analyze_fn: Analyze = analyze or _default_analyze
        self.alerts: Alerts = alerts or NoAlerts()
        self.reopen_camera = reopen_camera
        self.preset = dict(preset or {})   # setup answers given on the command line
        self.source = source               # camera spec, kept in game_start
        self.motion = MotionDetector(self.cfg.motion)
        self.session: GameSession | None = None
        self.profile: TableProfile | None = None
        self.fit: TableFit | None = None
        self.reference: NDArray[np.uint8] | None = None   # guard view of the last accepted table
        # the last few accepted tables, newest first, with their normalised views
        self.accepted: tuple[tuple[NDArray[np.uint8], NDArray[np.uint16]], ...] = ()
        # an accepted table without what rests on the last one: the table before a quiet
        # look took in a cup, or the last move's table without an arm resting away from it
        self.earlier: NDArray[np.uint8] | None = None
        # the table the move the guard just let through leaves: its view with an arm
        # resting away from the move kept out (motion.table_behind)
        self.behind: NDArray[np.uint8] | None = None
        self._full_markers: set[int] = set()      # the markers of the last fit that saw them all
        self._search_side = 0                     # marker search size the last full search needed
        # the last few ((a, b), difference(a, b)): one look compares its view with the last
        # look's, the last accepted table's and the one before it
        self._differences: list[tuple[tuple[NDArray[np.uint8], ...], NDArray[np.uint8]]] = []
        self._normals: list[tuple[tuple[NDArray[np.uint8], ...], NDArray[np.uint16]]] = []   # ((view,), normalise(view))
        self.previous_view: NDArray[np.uint8] | None = None
        self.current_view: NDArray[np.uint8] | None = None
        self.previous_image: NDArray[np.uint8] | None = None
        self.grid_hint: dict[str, Any] | None = None
        self.last_look_preview: NDArray[np.uint8] | None = None
        self.blocked_looks = 0
        self.unclear_run = 0               # unclear verdicts delivered in a row
        self.frames = 0
        self.skip_until_frame = -1
        self.stopping = False
        self.ended_stream = False
        self.events: list[str] = []        # what happened, for tests and benches
        self.timings: list[float] = []     # still-period end -> verdict on screen, seconds
        self._moved_since_look = True
        # an early look waiting for the still period to end: its verdict and frame, the
        # guard's memory from before it (restored when motion makes it void), the period's end
        self._early: tuple[Verdict, Frame, dict[str, Any], float] | None = None
        self._look_costs: list[float] = []   # the last few looks' capture-to-verdict seconds
        # the last illegal verdict, while it stands: the players may call it a misreading
        # (MENU > Misread? Fix) and pick what the tile really is
        self.misread: Illegal | None = None
        # the alerts the players saw and left on the table (a misread they could not fix):
        # not sounded again on every later look, until a look agrees with the state
        self.standing: set[tuple[tuple[str, str], ...]] = set()
        # questions answered with a tile the rules refuse, and that alert: the same
        # question on a later look is the same tile still there, its alert standing (asked
        # again, the players would pick it again, or tire and pick a legal one)
        self.picked: dict[tuple[str, tuple[str, ...]], Illegal] = {}
        self._picked_alert: Illegal | None = None    # the alert the last answer raised
        # the question or menu on the screen, (title, choices), while it waits for the
        # buttons: what a player reads (tests and the benches' simulated players use it)
        self.asking: tuple[str, tuple[str, ...]] | None = None
        self.final_summary: dict[str, Any] | None = None
        self.already_done = False
        self._shown: bytes | None = None
        self._first_shown_at: float | None = None   # the first show() since a verdict was acted on
        # when an accepted move's screen gives way to the status screen; the loop watches
        # the table meanwhile (the next tile may already be down)
        self._status_at: float | None = None

    # -- plumbing ------------------------------------------------------------------------
    def request_stop(self, *_: Any) -> None:
        self.stopping = True

    def install_signal_handlers(self) -> None:
        signal.signal(signal.SIGTERM, self.request_stop)

    def show(self, image: Image.Image, hold: float = 0.0) -> None:
        """Show a screen; the same picture twice is not sent again (I2C time, PNG spam).
        With `hold`, the status screen does not replace it for that many seconds."""
        if self._first_shown_at is None:
            self._first_shown_at = self.clock.now()
        self._status_at = self.clock.now() + hold if hold > 0 else None
        data = image.tobytes()
        if data == self._shown:
            return
        self._shown = data
        self.display.show(image)

    def _show_status(self) -> None:
        """The game's status screen, once a move's screen has been up its time."""
        assert self.session is not None
        if self._status_at is None or self.clock.now() >= self._status_at:
            self.show(self.session.status_screen())

    def note(self, text: str) -> None:
        self.events.append(text)
        log.info(text)

    def _check_stop(self) -> None:
        if self.stopping:
            raise Stop()

    def button(self, timeout: float) -> ButtonEvent | None:
        """One button event; time passes on the clock either way."""
        self._check_stop()
        if isinstance(self.clock, RealClock):
            ev = self.buttons.poll(timeout)
        else:
            ev = self.buttons.poll(0.0)
            if ev is None:
                self.clock.sleep(timeout)
        self._check_stop()
        return ev

    def ask_button(self, timeout: float) -> ButtonEvent | None:
        """Wait for an answer: in a replay the next scripted event or None at once."""
        if self.cfg.replay:
            return self.button(0.0)
        deadline = self.clock.now() + timeout
        while self.clock.now() < deadline:
            ev = self.button(min(0.2, max(0.0, deadline - self.clock.now())))
            if ev is not None:
                return ev
        return None

    # -- the whole run ------------------------------------------------------------------------
    def run(self) -> int:
        try:
            if self.journal.problem:
                self.note(self.journal.problem)
            self._boot()
            if self.already_done:
                return 0
            while True:
                if self.session is None:
                    if not self._choose_and_setup():
                        return 0
                self._watch()
                if self.ended_stream or (self.cfg.max_frames is not None
                                         and self.frames >= self.cfg.max_frames):
                    return 0
                if self.session is not None and self.session.is_over():
                    if self._status_at is not None:    # the last move's screen, its time
                        self.clock.sleep(max(0.0, self._status_at - self.clock.now()))
                    self._end_game()   # the game ended itself: scores, then the menu
                    self.session = None
        except Stop:
            return 0
        finally:
            self.shutdown()

    def shutdown(self) -> None:
        """Journal closed, camera released, a parked message on the display."""
        try:
            self.journal.close()
        finally:
            try:
                self.show(scr.parked_screen("Stopped"))
            except Exception:  # a dead display must not hide the journal being closed
                pass
            for thing in (self.camera, self.buttons):
                try:
                    thing.close()
                except Exception:
                    pass

    # -- start: resume or choose ---------------------------------------------------------------
    def _boot(self) -> None:
        game = unfinished_game(self.journal.records)
        if game is None:
            done = last_game(self.journal.records)
            if self.cfg.replay and done and self.source and \
                    done[0].data.get("source") == self.source:
                # a restarted replay whose game already ended: nothing left to referee
                self.note("this recording was already refereed to the end")
                self.already_done = True
            return
        start = game[0].data
        if self.fixed_game and start.get("game") != self.fixed_game:
            return
        session = self._rebuild(game)
        if session is None:
            return
        if not self.fixed_game:
            self.show(scr.confirm_screen(f"{start.get('game')}, {len(session.moves)} moves",
                                         "Resume game?", yes="Resume", no="New"))
            ev = self.ask_button(self.cfg.resume_timeout)
            if ev is ButtonEvent.PREV:
                self.journal.append("end", {"abandoned": True})
                return
        self.session = session
        self.profile = self._profile_for(session.game)
        frames = [int(m["frame"]) for m in session.moves if isinstance(m.get("frame"), int)]
        self.skip_until_frame = max(frames) if frames else -1
        self.note(f"resumed {session.game} after {len(session.moves)} moves")

    def _rebuild(self, records: list[Any]) -> GameSession | None:
        try:
            session = games.kind(str(records[0].data["game"])).make(
                dict(records[0].data.get("options", {})))
            for r in records[1:]:
                if r.kind in ("move", "end"):
                    session.apply(dict(r.data))
                elif r.kind == "undo":
                    session.undo()
            return session
        except (KeyError, ImportError, RulesError, ValueError, TypeError) as e:
            self.note(f"journal: cannot restore the last game ({e}); starting fresh")
            return None

    def _profile_for(self, game: str) -> TableProfile:
        return self.fixed_profile or default_profile(game)

    def _choose_and_setup(self) -> bool:
        kinds = games.kinds()
        if self.fixed_game:
            chosen = [k for k in kinds if k.name == self.fixed_game]
            if not chosen:
                raise games_error(self.fixed_game, kinds)
            kind = chosen[0]
        else:
            index = 0
            while True:
                self.show(scr.game_menu_screen([k.title for k in kinds], index))
                ev = self.ask_button(self.cfg.prompt_timeout)
                if ev is None:
                    if self.cfg.replay:
                        return False
                    continue
                if ev is ButtonEvent.NEXT:
                    index = (index + 1) % len(kinds)
                elif ev is ButtonEvent.PREV:
                    index = (index - 1) % len(kinds)
                elif ev is ButtonEvent.SELECT:
                    break
            kind = kinds[index]
        options: dict[str, Any] = {}
        for s in kind.settings:
            if s.key in self.preset:
                if self.preset[s.key] not in s.choices:
                    raise setting_error(kind.title, s.key, self.preset[s.key], s.choices)
                options[s.key] = self.preset[s.key]
            else:
                options[s.key] = self._choose_value(s.title, s.choices, s.default)
        self.session = kind.make(options)
        self.profile = self._profile_for(kind.name)
        self.journal.append("game_start", {"game": kind.name, "options": options,
                                           "source": self.source})
        self.reference = self.earlier = None
        self.accepted = ()
        self.standing.clear()
        self.picked.clear()
        self.note(f"new game {kind.name} {options}")
        return True

    def _choose_value(self, title: str, choices: tuple[Any, ...], default: Any,
                      screen: Callable[[Any], Image.Image | None] | None = None) -> Any:
        i = choices.index(default) if default in choices else 0
        while True:
            custom = screen(choices[i]) if screen is not None else None
            self.show(custom or scr.number_screen(title, choices[i], "SELECT = OK"))
            ev = self.ask_button(self.cfg.prompt_timeout)
            if ev is None or ev is ButtonEvent.SELECT:
                return choices[i]
            if ev is ButtonEvent.NEXT:
                i = (i + 1) % len(choices)
            elif ev is ButtonEvent.PREV:
                i = (i - 1) % len(choices)

    # -- watching ----------------------------------------------------------------------------
    def _watch(self) -> None:
        assert self.session is not None
        self._show_status()
        self.motion.reset(self.clock.now())
        backoff = self.cfg.retry_first
        while self.session is not None and not self.session.is_over():
            self._check_stop()
            if self.cfg.max_frames is not None and self.frames >= self.cfg.max_frames:
                return
            if self._status_at is not None and self.clock.now() >= self._status_at:
                self._show_status()
            if not self.cfg.replay:
                ev = self.button(0.0)
                if ev is not None:
                    self._drop_early("a button")    # the players changed something: read again
                    self._on_button(ev)
                    continue
            try:
                preview = self.camera.capture_preview()
                backoff = self.cfg.retry_first
            except EndOfStream:
                self._end_of_stream()
                return
            except CameraError as e:
                if _is_unreadable(e):
                    self.note(f"skipped: {e}")
                    continue
                if self.cfg.replay or type(e).__name__ == "CameraSpecError":
                    raise   # a recording that cannot be read will not come back: say so
                backoff = self._camera_lost(e, backoff)
                continue
            now = self.clock.now()
            state = self.motion.update(preview, now)
            if state.moving:
                self._moved_since_look = True
                self._drop_early("motion")
            try:
                if self._early is not None:
                    if self.motion.is_still(now):
                        verdict, frame, _, still_end = self._early
                        self._early = None
                        self._deliver(verdict, frame, still_end)
                        if self.session is None:
                            return
                        continue
                elif (self._moved_since_look or self._changed_since_look(preview)) and \
                        (self.motion.is_still(now) or self._early_due(now)):
                    self._moved_since_look = False
                    self._look(preview, self._still_end(now))
                    if self.session is None:
                        return
                    continue
            except EndOfStream:
                self._end_of_stream()
                return
            self.clock.sleep(self.cfg.preview_interval)

    def _still_end(self, now: float) -> float:
        """When the still period ends: still_seconds after the last motion, or now for a
        look at a table that was still already (a look again after an unclear one)."""
        last = self.motion.last_motion
        return now if last is None else max(now, last + self.cfg.motion.still_seconds)

    def _early_due(self, now: float) -> bool:
        """Time to take an early still: the table has been still for at least
        `early_settle` s and the look would end about when the still period does.

        The still period is a debounce: a still taken during it is the table the period's
        end would show as long as the preview stream sees no motion until then (the
        motion check runs on every preview while the look waits), and reading it while
        waiting puts the verdict on screen as the period ends, not a look's time later.
        On a slower Pi the lead grows with the measured look time, up to the settle limit."""
        last = self.motion.last_motion
        if not self.cfg.early_look or self.cfg.replay or last is None:
            return False
        still = self.cfg.motion.still_seconds
        costs = sorted(self._look_costs)
        cost = costs[len(costs) // 2] if costs else still
        lead = min(still - self.cfg.early_settle, 1.5 * cost)
        return lead > 0 and now - last >= still - lead

    def _changed_since_look(self, preview: NDArray[np.uint8]) -> bool:
        if self.cfg.replay:
            return True   # every recorded frame is a moment of the game: look at each
        if self.last_look_preview is None or self.last_look_preview.shape != preview.shape:
            return True
        d = cv2.absdiff(preview, self.last_look_preview)
        frac = float(np.count_nonzero(d > self.cfg.look_pixel_threshold)) / d.size
        return frac > self.cfg.look_change

    def _camera_lost(self, error: Exception, backoff: float) -> float:
        self.note(f"camera lost: {error}")
        self.show(scr.camera_lost_screen(backoff))
        waited = 0.0
        while waited < backoff:
            step = min(0.5, backoff - waited)
            if self.cfg.replay:
                self.clock.sleep(step)
            else:
                ev = self.button(step)
                if ev is ButtonEvent.MENU:
                    self._on_button(ev)
            waited += step
            self._check_stop()
        if self.reopen_camera is not None:
            try:
                self.camera.close()
            except Exception:
                pass
            try:
                self.camera = self.reopen_camera()
            except CameraError as e:
                self.note(f"camera still lost: {e}")
        self.motion.reset(self.clock.now())
        return min(self.cfg.retry_max, backoff * 2)

    def _end_of_stream(self) -> None:
        """A recording ended: answer what the button script still holds, then stop."""
        self.ended_stream = True
        self.note("end of the recording")
        if self.session is not None and self._status_at is not None:
            self.show(self.session.status_screen())
        deadline = self.clock.now() + self.cfg.linger_seconds
        if self.cfg.linger_seconds > 0 and self.session is not None:
            self.show(scr.text_screen("Recording over", ["MENU (long", "SELECT) to end"]))
        while self.session is not None and not self.session.is_over():
            ev = self.button(0.0 if self.cfg.linger_seconds <= 0 else 0.2)
            if ev is None:
                if self.clock.now() >= deadline:
                    return
                continue
            self._on_button(ev)

    # -- one look at a still table ----------------------------------------------------------
    def _look(self, preview: NDArray[np.uint8], still_end: float) -> None:
        assert self.session is not None and self.profile is not None
        self.last_look_preview = preview.copy()
        try:
            frame: Frame = self.camera.capture_still()
        except EndOfStream:
            raise
        except CameraError as e:
            self.note(f"skipped: {e}")
            return
        if frame.index <= self.skip_until_frame - 1:
            return   # resumed replay: this frame was judged before the restart
        self.frames += 1
        before = {name: getattr(self, name) for name in _GUARD_MEMORY}
        started = self.clock.now()
        verdict = self.judge(frame.image)
        self._look_costs = (self._look_costs + [self.clock.now() - started])[-9:]
        if isinstance(verdict, Unclear):
            self.last_look_preview = None   # look again once still, even if nothing moves
        if self.motion.is_still(self.clock.now()):
            self._deliver(verdict, frame, still_end)
        else:
            self._early = (verdict, frame, before, still_end)

    def _deliver(self, verdict: Verdict, frame: Frame, still_end: float) -> None:
        """Act on a look's verdict once the still period has ended."""
        self._first_shown_at = None
        self._act(verdict, frame)
        at = self._first_shown_at if self._first_shown_at is not None else self.clock.now()
        self.timings.append(at - still_end)

    def _drop_early(self, why: str) -> None:
        """Motion (or a button) came before the still period ended: the early look never
        happened, and leaves no trace in the guard's memory."""
        if self._early is None:
            return
        self.note(f"early look void: {why}")
        for name, value in self._early[2].items():
            setattr(self, name, value)
        self._early = None
        self.last_look_preview = None

    def judge(self, image: NDArray[np.uint8]) -> Verdict:
        """The verdict for one still frame (changes nothing but the guard's memory)."""
        assert self.session is not None and self.profile is not None
        if image is None or image.ndim != 3 or image.size == 0:
            return Unclear("bad frame")
        try:
            fit = self._locate(image)
        except TableNotFound:
            return Unclear("markers hidden")
        except (cv2.error, ValueError, np.linalg.LinAlgError) as e:
            return Unclear(f"markers unusable: {e.__class__.__name__}", "markers unusable")
        fit = self._unless_hidden(fit)
        moved = self._table_moved(fit)
        self.fit = fit
        if moved:
            self.note("camera or table moved; re-fitted")
            self.show(scr.camera_moved_screen())
        try:
            # a lattice to start from (table mm) spares the reader its lattice search: the
            # one the game's pieces were seen on, else the reader's own last one
            hint = self.session.lattice_hint() or (self.grid_hint if self.session.reader_lattice_ok() else None)
            extra = dict(self.session.reader_extra())
            if hint is not None:
                extra["grid"] = hint
            obs = self.analyze_fn(self.session.game, image, fit,
                                  AnalyzeOptions(self.profile, extra=extra, previous=self.previous_image))
        except ReadError as e:
            return Unclear(f"unreadable: {e}", "table unreadable")
        except Exception as e:  # noqa: BLE001  a reader bug must not stop the evening
            log.debug("reader failed", exc_info=True)
            return Unclear(f"reader failed: {e.__class__.__name__}", "reader failed")
        view = self._guard_view(image, fit)
        try:
            verdict = self.session.interpret(obs, change=self._change(view))
        except (RulesError, KeyError, TypeError, ValueError) as e:
            return Unclear(f"observation not understood: {e.__class__.__name__}",
                           "reading not understood")
        verdict = self._guard(verdict, view)
        if not isinstance(verdict, Unclear) and (self.session.moves or isinstance(verdict, Proposed)) \
                and isinstance(obs, dict) and isinstance(obs.get("grid"), dict) and \
                any(not t.get("face_down") for t in obs.get("tiles") or () if isinstance(t, dict)):
            # only a look the guard let through hands its lattice on: a hand over the city
            # bends the lattice of that look, and the next look would start from it (a
            # look without a hint searches the whole lattice: about 0.9 s instead of 0.13);
            # a lattice fitted to a bare table is the grain's, not the tiles', and so is one
            # fitted to a game's empty table with a phantom on it (game 5044: the pioneer
            # went unread on the phantom's lattice and the city was built a row off)
            self.grid_hint = obs["grid"]
        self.previous_view = view
        self.current_view = view
        self.previous_image = image
        return verdict

    def _locate(self, image: NDArray[np.uint8]) -> TableFit:
        """The table fit. The table hardly ever moves between looks, so each marker is
        first looked for in a small window where the last fit puts it (a few ms); the
        whole frame is searched (at <= fit_max_side px, corners refined at full size:
        a quarter of the time and memory of a full-size search at 2304x1296) on the
        first look, or when a marker the last fit saw is not in its window (camera or
        table moved, a hand on a marker). Both ways re-measure the corners from the
        markers' edges, so a tracked fit is the fit the full search would give.
        Where the reduced search finds fewer than ENOUGH_MARKERS of the table's, the
        frame is searched again at full size, and that size is kept for tracking when it
        finds more: small blurred markers (a wide lens high above a table) lose their
        bits when shrunk (bench Challenge game 186: one marker of four at 1200 px, three
        at full size; the one-marker fit jumped 6-84 mm between looks, "camera moved" on
        each)."""
        assert self.profile is not None
        side = self._search_side or self.cfg.fit_max_side or FULL_SEARCH_SIDE
        if self.cfg.track_markers and self.fit is not None and self.profile.markers:
            tracked = track_table(image, self.profile, self.fit, max_side=side)
            if tracked is not None:
                return tracked
        if self.cfg.fit_max_side and self.profile.markers:
            profile = lens_at_frame_size(self.profile, image)
            ids = {m.id for m in profile.markers}
            found = detect_markers(image, profile.dictionary, max_side=self.cfg.fit_max_side)
            self._search_side = 0
            enough = min(len(ids), ENOUGH_MARKERS)
            if len(ids & set(found)) < enough and self.cfg.fit_max_side < max(image.shape[:2]):
                full = detect_markers(image, profile.dictionary, max_side=FULL_SEARCH_SIDE)
                if len(ids & set(full)) > len(ids & set(found)):
                    found, self._search_side = full, FULL_SEARCH_SIDE
            if ids & set(found):
                return fit_from_markers(found, profile, image)
        return locate_table(image, self.profile)

    def _unless_hidden(self, fit: TableFit) -> TableFit:
        """The last fit's mapping when this one saw fewer markers than the last full fit
        and the markers it saw are where the last fit puts them: a hand or a cup over a
        marker has not moved the table, and a fit from the markers left over is a worse fit
        (a few mm off at the far corner, which read as "camera moved" twice, once as the
        hand came and once as it went). It says which markers were seen, so the next look
        tracks those and does not search the whole frame for the hidden one."""
        last = self.fit
        if fit.source != "markers" or not set(fit.markers_seen) < self._full_markers:
            self._full_markers = set(fit.markers_seen) if fit.source == "markers" else set()
            return fit
        if last is None or self.profile is None or last.source != "markers":
            return fit
        corners = np.array([c for m in self.profile.markers if m.id in fit.markers_seen
                            for c in m.corners_mm()], dtype=np.float64).reshape(-1, 2)
        if _shift_mm(fit, last, corners) > self.cfg.hidden_marker_mm:
            self._full_markers = set(fit.markers_seen)
            return fit
        return replace(last, markers_seen=fit.markers_seen)

    def _table_moved(self, fit: TableFit) -> bool:
        if self.fit is None or self.profile is None:
            return False
        ox, oy = self.profile.area_origin_mm
        w, h = self.profile.area_size_mm
        corners = np.array([[ox, oy], [ox + w, oy], [ox + w, oy + h], [ox, oy + h]], dtype=np.float64)
        return _shift_mm(self.fit, fit, corners) > self.cfg.moved_mm

    def guard_area(self) -> tuple[tuple[float, float], tuple[float, float]]:
        """The guard watches the whole marked table, not just the play area, so an arm
        reaching in from the edge is seen even when the hand is over one cell."""
        assert self.profile is not None
        ox, oy = self.profile.area_origin_mm
        w, h = self.profile.area_size_mm
        xs = [m.centre_mm[0] for m in self.profile.markers] + [ox, ox + w]
        ys = [m.centre_mm[1] for m in self.profile.markers] + [oy, oy + h]
        return (min(xs), min(ys)), (max(xs) - min(xs), max(ys) - min(ys))

    def _guard_view(self, image: NDArray[np.uint8], fit: TableFit) -> NDArray[np.uint8]:
        origin, size = self.guard_area()
        return rectify(image, fit, origin, size, self.cfg.motion.guard_px_per_mm,
                       interpolation=cv2.INTER_AREA)

    def _change(self, view: NDArray[np.uint8]) -> ChangeMap | None:
        """What changed since the last accepted table (None when there is none to compare
        with: after a start, a restart or an undo the reader alone decides)."""
        if (self.session is None or not self.session.uses_change or self.reference is None
                or self.reference.shape != view.shape):
            return None
        # the last accepted table, or the one without what rested on it then (an arm by
        # the last move, a cup put down since): whichever this view differs from least
        maps = [ChangeMap.between(t, view, self.guard_area()[0], self.cfg.motion.guard_px_per_mm,
                                  self.cfg.motion.change_threshold, self._difference(t, view))
                for t in (self.reference, self.earlier) if t is not None and t.shape == view.shape]
        return min(maps, key=lambda m: int(np.count_nonzero(m.mask)))

    def _difference(self, a: NDArray[np.uint8], b: NDArray[np.uint8]) -> NDArray[np.uint8]:
        """difference(a, b), once per pair of views: the change map, the guard's stillness
        check and its checks against the last accepted tables threshold the same few pairs."""
        return _recall(self._differences, (a, b), 3,
                       lambda: normalised_difference(self._normalised(a), self._normalised(b)))

    def _normalised(self, view: NDArray[np.uint8]) -> NDArray[np.uint16]:
        return _recall(self._normals, (view,), 4, lambda: normalise(view))

    def _foreign(self, a: NDArray[np.uint8], b: NDArray[np.uint8], footprint: Any) -> float:
        return self._foreign_mask(a, b, footprint)[0]

    def _foreign_mask(self, a: NDArray[np.uint8], b: NDArray[np.uint8],
                      footprint: Any) -> tuple[float, NDArray[np.uint8]]:
        return foreign_change(a, b, footprint, self.guard_area()[0],
                              self.cfg.motion.guard_px_per_mm, self.cfg.motion.guard_threshold,
                              self._difference(a, b))

    def _guard(self, verdict: Verdict, view: NDArray[np.uint8]) -> Verdict:
        """Hands, arms and cups never become moves.

        Change since the last accepted table outside the move's footprint blocks the
        move; a question waits until two looks agree (hands do not hold still); a move
        with no accepted table to compare with (after a restart or an undo) needs two
        agreeing looks; a still thing a cell large beside the move with no arm (a cup, or a
        fist whose arm a lamp's glare hides) makes it a question at once; a block that
        stays for `stuck_looks` looks becomes a question, and a question blocked for
        `stuck_ask_looks` looks is asked as it is.
        """
        footprint = getattr(verdict, "footprint", ())
        limit = self.cfg.motion.guard_fraction
        self.behind = None
        stable = self.previous_view is not None and \
            self._foreign(self.previous_view, view, ()) <= limit
        if isinstance(verdict, Unclear):
            self.blocked_looks = 0
            return verdict
        if isinstance(verdict, NoChange):
            # the table agrees with the game: whatever else lies there is background now
            # (a cup put down, a hand resting); it can only block later moves, never make one
            self.blocked_looks = 0
            if self.reference is not None and self.reference.shape == view.shape and \
                    self._foreign(self.reference, view, ()) > limit:
                self.earlier = self.reference     # the table before something was left on it
            self.reference = view
            self._accept(view)
            return verdict
        if isinstance(verdict, Ask) and not stable:
            return Unclear("waiting for the table to settle")
        if self.reference is None:
            return verdict if stable else Unclear("taking a second look")
        # against the last accepted table, then the one before it: a quiet look takes
        # whatever lies on the table as background, a hand resting by the city too, and
        # when the hand has gone the table it uncovers is the earlier one plus the move
        foreign: float | None = None            # the first table compared, for the screen
        still_thing = False                     # blocked by a still thing by the move, no arm
        for reference in self._accepted_tables(view):
            if reference is None or reference.shape != view.shape:
                continue
            foreign_here, mask = self._foreign_mask(reference, view, footprint)
            if foreign_here <= limit:
                self.blocked_looks = 0
                return verdict
            origin, ppm, margin = self.guard_area()[0], self.cfg.motion.guard_px_per_mm, \
                self.cfg.guard_margin_mm
            arms = reaching_in(mask, ppm, self.cfg.arm_bridge_mm)
            # the finer change mask: how far an arm reaches, and the table left behind it
            extent = change_mask(reference, view, self.cfg.motion.change_threshold,
                                 self._difference(reference, view)) \
                if stable and footprint and np.any(arms) else None
            if stable and footprint and not touches(arm_reach(arms, extent), footprint, origin, ppm,
                                                    margin):
                # a hand whose arm the guard cannot see (an arm in a lamp's glare is as
                # bright as the cloth) is a still thing the size of a cell by the move,
                # and so is a cup put down beside a new tile: the players tell them apart
                if not touches(large_parts(mask, self._cell_px(footprint)), footprint, origin, ppm,
                               margin):
                    self.blocked_looks = 0
                    # small still changes near the move (a tile's rim laid off its cell,
                    # its shadow) or still things away from it: the move stands. An arm
                    # resting away from it will go, so the table the move leaves is the
                    # old one under the arm (a cup stays, and is table from now on)
                    if extent is not None:
                        self.behind = table_behind(reference, view, arms, extent, footprint,
                                                   origin, ppm, round(self.cfg.behind_grow_mm * ppm))
                    return verdict
                still_thing = True
            if foreign is None:
                foreign = foreign_here
        self.blocked_looks = self.blocked_looks + 1 if stable else 0
        if isinstance(verdict, Proposed) and (still_thing or self.blocked_looks >= self.cfg.stuck_looks):
            # a still thing will not go away by waiting; a blocking hand that stays is asked too
            self.blocked_looks = 0
            return Ask(f"{verdict.text}?", (verdict.move,), (verdict.text,), footprint)
        if isinstance(verdict, Ask) and self.blocked_looks >= self.cfg.stuck_ask_looks:
            # a question blocked by a still change is put to the players all the same: it
            # applies nothing by itself, and waiting for the table to clear would wait for
            # ever where the block is tiles the game has not taken (fresh loop games 501,
            # 558). Later than a blocked move: asked after three looks, a question about a
            # table still being misread was answered on the misreading (games 509, 512)
            self.blocked_looks = 0
            return verdict
        return Unclear(f"table not clear ({100 * (foreign or 0.0):.1f}% changed)", "table not clear")

    def _accept(self, view: NDArray[np.uint8]) -> None:
        self.accepted = ((view, self._normalised(view)),) + self.accepted[: self.cfg.tables_kept - 1]

    def _accepted_tables(self, view: NDArray[np.uint8]) -> Iterator[NDArray[np.uint8] | None]:
        """The tables a move is checked against, in turn; the last one is only made when
        the others block it (most moves stand against the first)."""
        yield self.reference
        yield self.earlier
        yield self._as_it_was(view)

    def _as_it_was(self, view: NDArray[np.uint8]) -> NDArray[np.uint8] | None:
        """The table as the game last agreed with it, pixel by pixel: from each remembered
        accepted table, the pixels nearest this view's. A cup that stood by the city when a
        move was accepted, and was taken away since, uncovers a table an older look agreed
        with; a hand, a cup put down or a tile laid matches none of them."""
        kept = [(t, n) for t, n in self.accepted if t.shape == view.shape]
        if len(kept) < 2:
            return None
        now = self._normalised(view)
        diffs = np.stack([normalised_difference(n, now) for _, n in kept])
        pick = np.argmin(diffs, axis=0)
        tables = np.stack([t for t, _ in kept])
        return np.asarray(np.take_along_axis(tables, pick[None, :, :, None], axis=0)[0], dtype=np.uint8)

    def _cell_px(self, footprint: Any) -> float:
        """Guard-view pixels of `guard_blob_cells` of the move's largest cell."""
        area = max(((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in footprint), default=0.0)
        return self.cfg.guard_blob_cells * float(area) * self.cfg.motion.guard_px_per_mm ** 2

    # -- acting on a verdict ------------------------------------------------------------------
    def _act(self, verdict: Verdict, frame: Frame) -> None:
        assert self.session is not None
        if isinstance(verdict, Ask) and _ask_key(verdict) in self.picked:
            verdict = self.picked[_ask_key(verdict)]    # answered before: its alert stands
        standing = isinstance(verdict, Illegal) and _alert_key(verdict) in self.standing
        self.note(f"frame {frame.index}: {'Standing' if standing else type(verdict).__name__} "
                  f"{getattr(verdict, 'text', getattr(verdict, 'short', ''))}")
        if not isinstance(verdict, Unclear):
            # a hand over the table leaves the alert standing; any other reading replaces it
            self.misread = verdict if isinstance(verdict, Illegal) else None
            self.unclear_run = 0
        if isinstance(verdict, NoChange):
            self.standing.clear()       # the table agrees with the state: nothing alerted lies on it
            self.picked.clear()
            self._show_status()
        elif isinstance(verdict, Illegal) and standing:
            # the same piece alerted before and left where it was: shown, not sounded again
            self.show(self._illegal_screen(verdict))
        elif isinstance(verdict, Proposed):
            self._apply(verdict.move, frame)
            self.alerts.alert_ok()
        elif isinstance(verdict, Illegal):
            self._alert(verdict)
        elif isinstance(verdict, Ask):
            self._question(verdict, frame)
        elif isinstance(verdict, Unclear):
            self.unclear_run += 1
            if self.unclear_run >= self.cfg.unclear_looks:
                # the loop keeps looking at a table it cannot make out (a tile it cannot
                # read, a cup by the city): the players are told why rather than left
                # watching the turn screen while their move goes unseen
                self.show(scr.unclear_screen(verdict.headline))
            else:
                self._show_status()

    def _apply(self, move: dict[str, Any], frame: Frame | None, source: str | None = None,
               answer: str | None = None) -> bool:
        """Apply a move. `answer` is the label of the players' choice in a question: a
        choice the rules refuse is then alerted, not merely refused."""
        assert self.session is not None
        m = dict(move)
        if frame is not None:
            m["frame"] = frame.index
        if source:
            m["source"] = source
        try:
            applied = self.session.apply(m)
        except RulesError as e:
            if answer is not None and isinstance(e, IllegalMove):
                # the players confirmed what the camera saw, and the rules refuse it (a link
                # that really is too short): an illegal move, alerted like one seen
                if frame is not None:
                    self.note(f"frame {frame.index}: Picked illegal {answer}")
                self._picked_alert = Illegal(m, answer.split(": ", 1)[-1], str(e))
                self._alert(self._picked_alert)
                return False
            self.note(f"refused: {e}")
            self.show(scr.error_screen("Refused", str(e).split("[")[0][:40]))
            return False
        self.journal.append("move", m)
        self.misread = None
        # the table now, and without an arm resting away from the move (it may go)
        self.reference, self.earlier, self.behind = self.current_view, self.behind, None
        if self.reference is not None:
            self._accept(self.reference)
        self.note(f"applied {applied.text}")
        if self.session.more_to_read():
            self.last_look_preview = None   # the others of tiles laid together: look again now
        shown = _optional_screen(self.session, "applied_screen", m)
        if shown is not None:
            self.show(shown, hold=self.cfg.verdict_seconds)
        else:
            self.show(self.session.status_screen())
        return True

    def _illegal_screen(self, verdict: Illegal) -> Image.Image:
        """The game's screen for an illegal move, or the plain one when it has none."""
        assert self.session is not None
        return _optional_screen(self.session, "illegal_screen", verdict) or \
            scr.error_screen("Illegal move", verdict.short)

    def _alert(self, verdict: Illegal) -> None:
        self.note(f"illegal: {verdict.message}")
        self.standing.add(_alert_key(verdict))
        self.alerts.alert_illegal()
        screen = self._illegal_screen(verdict)
        for _ in range(self.cfg.flash_times):
            self.show(screen)
            self.clock.sleep(self.cfg.flash_period)
            self.show(scr.invert(screen))
            self.clock.sleep(self.cfg.flash_period)
        self.show(screen)

    def _question(self, verdict: Ask, frame: Frame) -> None:
        assert self.session is not None
        if self.cfg.auto_dismiss:
            self.show(scr.confirm_screen(verdict.text, "Check table", yes="OK", no="Undo"))
            self.clock.sleep(1.0)
            self.note("question dismissed (nobody to ask)")
            self._show_status()
            return
        # when every option is wrong, "Other..." opens the session's fuller list (a misread
        # option taken as the best of bad ones was applied, or an illegal tile never alerted);
        # a tile the camera could not read has that list alone
        others = self.session.others(verdict)
        labels = list(verdict.labels) + ([OTHER] if others else []) + ["Not a move"]
        menu = bool(verdict.candidates or others)
        index = 0
        while True:
            if menu:
                self.show(scr.menu_screen(verdict.text, labels, index))
            else:
                self.show(scr.confirm_screen(verdict.text, "Check table", yes="OK", no="Undo"))
            self.asking = (verdict.text, tuple(labels) if menu else ())
            ev = self.ask_button(self.cfg.prompt_timeout)
            self.asking = None
            if ev is None:
                self.note("question dismissed")
                break
            if menu:
                if ev is ButtonEvent.NEXT:
                    index = (index + 1) % len(labels)
                elif ev is ButtonEvent.PREV:
                    index = (index - 1) % len(labels)
                elif ev is ButtonEvent.SELECT:
                    move: dict[str, Any] | None = None
                    if index < len(verdict.candidates):
                        move, label = verdict.candidates[index], labels[index]
                    elif others and index == len(verdict.candidates):
                        pick = self._pick(OTHER_TITLE, [a.label for a in others])
                        if pick is None:
                            self.note("question dismissed")
                            break
                        move, label = others[pick].move, others[pick].label
                    if move is not None:
                        self._picked_alert = None
                        if not self._apply(move, frame, "confirmed", label) and self._picked_alert is not None:
                            self.picked[_ask_key(verdict)] = self._picked_alert
                    elif self.reference is None and self.current_view is not None:
                        # "Not a move" with no table agreed yet (a game's first look): the
                        # players say this table holds no move, so it is the background
                        self.reference = self.current_view
                        self._accept(self.current_view)
                        self.session.not_a_move(verdict)
                        self.note("not a move: the table as it is agreed")
                    else:
                        self.session.not_a_move(verdict)
                        self.note("not a move")
                    break
                elif ev in (ButtonEvent.BACK, ButtonEvent.MENU):
                    break
            else:
                if ev is ButtonEvent.PREV or ev is ButtonEvent.UNDO:
                    self._undo()
                elif ev is ButtonEvent.SELECT:
                    self.session.checked(verdict)
                    self.note("checked")
                break
        self._show_status()

    # -- buttons while watching ---------------------------------------------------------------
    def _on_button(self, ev: ButtonEvent) -> None:
        if self.session is None:
            return
        if ev is ButtonEvent.UNDO:
            self._undo()
        elif ev is ButtonEvent.MENU:
            self._menu()
        else:
            self.show(self.session.status_screen())   # a player asked for it

    def _undo(self) -> None:
        """Take back the last move, then offer what it could have been (a misread)."""
        assert self.session is not None
        last = self.session.undo()
        if last is None:
            self.show(scr.text_screen("Undo", ["Nothing", "to undo"]))
            return
        self.journal.append("undo", {"move": last})
        self.misread = None
        self.reference = self.earlier = None
        self.accepted = ()
        self.last_look_preview = None
        self.note(f"undone {last}")
        fixes = self.session.fixes(last)
        if not fixes:
            self._show_status()
            return
        index = self._pick("Undone. Fix?", ["Leave undone"] + [a.label for a in fixes])
        if index:
            self._apply(fixes[index - 1].move, None, "fix")
        self._show_status()

    def _pick(self, title: str, items: list[str]) -> int | None:
        """A menu driven by the buttons: the index SELECTed, or None when dismissed
        (BACK, MENU or no answer in time)."""
        index = 0
        while True:
            self.show(scr.menu_screen(title, items, index))
            self.asking = (title, tuple(items))
            ev = self.ask_button(self.cfg.prompt_timeout)
            self.asking = None
            if ev is None or ev in (ButtonEvent.BACK, ButtonEvent.MENU):
                return None
            if ev is ButtonEvent.NEXT:
                index = (index + 1) % len(items)
            elif ev is ButtonEvent.PREV:
                index = (index - 1) % len(items)
            elif ev is ButtonEvent.SELECT:
                return index

    def _menu(self) -> None:
        assert self.session is not None
        fixes = self.session.fixes(self.misread.move) if self.misread is not None else []
        entries: list[tuple[str, Callable[[], object]]] = [("Back", lambda: None)]
        entries += [(a.label, functools.partial(self._apply, a.move, None, "button"))
                    for a in self.session.actions()]
        if fixes:
            # after the game's own entries, which keep their places whatever was alerted
            entries.append(("Misread? Fix", lambda: self._fix_misread(fixes)))
        entries += [("Undo last move", self._undo), ("End game", self._end_game)]
        index = self._pick("Menu", [label for label, _ in entries])
        if index is not None:
            entries[index][1]()
            if entries[index][0] == "End game":
                return      # its result (or why it cannot end) stays on the screen
        if self.session is not None:
            self._show_status()

    def _fix_misread(self, fixes: list[games.Action]) -> None:
        """The alerted move was a misreading: the players pick what is really there, and
        that (legal) move is applied as theirs."""
        index = self._pick("It really is", [a.label for a in fixes])
        if index is not None:
            self._apply(fixes[index].move, None, "fix")

    def _end_game(self) -> None:
        assert self.session is not None
        answers: dict[str, Any] = {}
        session = self.session
        for q in self.session.end_questions():
            def screen(value: Any, key: str = q.key) -> Image.Image | None:
                return _optional_screen(session, "question_screen", key, value)
            answers[q.key] = self._choose_value(q.title, q.choices, q.default, screen)
        move = self.session.finish(answers)
        try:
            self.session.apply(move)
        except RulesError as e:
            self.show(scr.error_screen("Cannot end", str(e)[:40]))
            return
        self.journal.append("end", move)
        self.note(f"game over: {self.session.summary()}")
        self.show(self.session.result_screen())
        self.final_summary = self.session.summary()
        self.ask_button(self.cfg.prompt_timeout)
        self.session = None


def games_error(name: str, kinds: list[games.GameKind]) -> Exception:
    from firmware.cli import UserError
    return UserError(f"game '{name}' has no device adapter yet; choose one of: "
                     + ", ".join(k.name for k in kinds))


def _optional_screen(session: Any, name: str, *args: Any) -> Image.Image | None:
    """A game's own screen for this moment, when its session offers one."""
    fn = getattr(session, name, None)
    if fn is None:
        return None
    try:
        image = fn(*args)
    except (RulesError, KeyError, ValueError, TypeError):
        return None
    return image if isinstance(image, Image.Image) else None


def setting_error(title: str, key: str, value: Any, choices: tuple[Any, ...]) -> Exception:
    from firmware.cli import UserError
    return UserError(f"--{key} {value}: {title} takes {choices[0]} to {choices[-1]}")


def _is_unreadable(e: Exception) -> bool:
    return type(e).__name__ == "UnreadableFrame"


def _shift_mm(a: TableFit, b: TableFit, points_mm: NDArray[np.float64]) -> float:
    """How far (table mm, worst point) fit `b` puts the image pixels where fit `a` puts
    `points_mm`: how much the table moved between them (infinite when either cannot map)."""
    try:
        back = b.to_table(a.to_image(points_mm))
    except cv2.error:
        return float("inf")
    return float(np.max(np.linalg.norm(back - points_mm, axis=1)))


def _ask_key(verdict: Ask) -> tuple[str, tuple[str, ...]]:
    """A question as the players see it: its title and its choices."""
    return verdict.text, tuple(verdict.labels)


def _alert_key(verdict: Illegal) -> tuple[tuple[str, str], ...]:
    """What an alert is about: its move's piece and place, not whose turn it came on or
    the look that saw it."""
    return tuple(sorted((str(k), str(v)) for k, v in verdict.move.items()
                        if k not in ("frame", "source", "player")))


def _default_analyze(game: str, image: NDArray[np.uint8], fit: TableFit,
                     options: AnalyzeOptions) -> dict[str, Any]:
    return get_reader(game).analyze(image, fit, options)


def summary_from_journal(journal_records: list[Any]) -> dict[str, Any] | None:
    """The last game's state and scores, rebuilt from the journal (resume tests use it)."""
    game = last_game(journal_records)
    if not game:
        return None
    session = games.kind(str(game[0].data["game"])).make(dict(game[0].data.get("options", {})))
    for r in game[1:]:
        if r.kind in ("move", "end"):
            session.apply(dict(r.data))
        elif r.kind == "undo":
            session.undo()
    return session.summary()
