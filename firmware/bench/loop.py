"""`tableref bench --game loop`: the device loop's figures for docs/benchmarks.md.

- motion check: time per low-resolution (320x180) preview frame;
- verdict latency: still period ending -> verdict on the screen, full-resolution frames,
  with the time split into marker fit, reader and the loop's own work;
- peak resident memory of `tableref run` over a whole synthetic game (a fresh process);
- occlusion: synthetic games with hands, pinching fingers and cups between moves,
  counting moves invented and missed;
- resume: SIGKILL at random points of scripted games of each finished game (Town 77,
  the Town 77 Challenge, Paperclip Railways), restart, same final state and scores;
- bad input: 10,000 generated bad inputs, 0 crashes.

Occlusion, resume and bad input judge the LOOP (guard, journal, restart), not a reader.
Occlusion, bad input and the Town 77 resume run on the mini table of the loop tests
(tests/firmware/minitable.py: real ArUco markers and pixels, colour-coded tiles read from
pixels, hands and cups the reader misreads on purpose); the Challenge and Railways resume
games are vision.synth frames read by their recorded true readings
(tests/firmware/resume_games.py). Latency and memory run the real pipeline: vision.synth
frames and the game's own reader at the requested resolution.

The resume part alone: `python -m firmware.bench.loop resume [SEED]`.
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import cv2
import numpy as np
from numpy.typing import NDArray

from firmware.bench.common import md_table, median, verdict
from firmware.games.base import MISSING, OTHER, OTHER_TITLE

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests" / "firmware"


def _mini() -> Any:
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))
    import minitable  # noqa: PLC0415
    return minitable


# --- motion ------------------------------------------------------------------------------

def bench_motion(seed: int, frames: int = 3000) -> dict[str, float]:
    from firmware.motion import MotionDetector
    rng = np.random.default_rng(seed)
    base = cv2.GaussianBlur(rng.integers(0, 255, (180, 320), dtype=np.uint8), (9, 9), 0)
    seq = []
    for i in range(16):
        f = np.clip(base.astype(np.int16) + rng.integers(-3, 4, base.shape), 0, 255).astype(np.uint8)
        if i % 4 == 0:
            cv2.circle(f, (20 * i, 90), 35, (200,), -1)  # a hand passing
        seq.append(f)
    det = MotionDetector()
    for i in range(50):
        det.update(seq[i % 16], i * 0.1)
    times = []
    for i in range(frames):
        f = seq[i % 16]
        t = time.perf_counter()
        det.update(f, i * 0.1)
        times.append(time.perf_counter() - t)
    return {"median_ms": 1000 * median(times), "p99_ms": 1000 * float(np.percentile(times, 99)),
            "mean_ms": 1000 * float(np.mean(times))}


# --- synthetic full-resolution game with the real pipeline ----------------------------------

def real_game_frames(seed: int, moves: int, resolution: tuple[int, int]) -> list[NDArray[np.uint8]]:
    """A legal Town 77 game rendered by vision.synth (fixed style and table), with a hand
    over the table between some moves."""
    return real_game(seed, moves, resolution)[0]


def real_game(seed: int, moves: int, resolution: tuple[int, int], cups: bool = False,
              illegal: float = 0.0, labels: list[str] | None = None, hands: bool = True,
              tiles: list[tuple[int, int]] | None = None,
              tried: dict[int, tuple[tuple[int, int], tuple[int, int]]] | None = None
              ) -> tuple[list[NDArray[np.uint8]], list[tuple[int, int]]]:
    """(frames, the cells placed in order) of a legal Town 77 game rendered by
    vision.synth in a random environment: a hand over the table between some moves,
    and with `cups` a cup put down on the table that stays for a few moves.

    With `illegal` > 0, before that share of the moves a tile is first laid where the
    rules forbid it (touching the city, sharing a shape or a colour with its row or
    column), then taken back. `labels` receives one word per frame: empty, legal,
    illegal, back (the illegal tile taken back) or hand; `tiles` the (shape, colour) of
    each tile placed, in order; `tried` the illegal tiles by frame index: ((row, col),
    (shape, colour))."""
    def mark(label: str) -> None:
        if labels is not None:
            labels.append(label)

    from calibration.profile import default_profile
    from rules.town77.city import City
    from rules.town77.placement import line_mistakes, random_placement
    from rules.town77.tiles import ALL_TILES
    from vision.synth import render_scene
    from vision.synth.occluders import random_cup, random_hand
    from vision.synth.randomize import random_environment
    from vision.synth.town77 import cell_centre, city_scene, random_style

    prof = default_profile("town77")
    rng = random.Random(seed)
    # hands and cups draw from their own generator, so a game with them places the same
    # tiles as the game without them and the two can be compared move by move
    orng = random.Random(seed + 7919)
    style = random_style(seed, prof)
    env = random_environment(random.Random(seed), resolution, prof)
    env["profile"] = prof.name
    bag = list(ALL_TILES)
    rng.shuffle(bag)
    first = bag.pop()
    if tiles is not None:
        tiles.append((first.shape, first.colour))
    city = City.with_pioneer(first)
    cells = [{"row": 0, "col": 0, "shape": first.shape, "colour": first.colour}]
    placed = [(0, 0)]
    frames = [render_scene(city_scene([], style, env, seed)).image]
    frames.append(render_scene(city_scene(cells, style, env, seed + 1)).image)
    mark("empty")
    mark("legal")
    cup: dict[str, Any] | None = None
    cup_left = 0
    while len(cells) < moves:
        pick = random_placement(city, bag, rng)
        if pick is None:
            break
        t, cell = pick
        bag.remove(t)
        if cups and cup is None and orng.random() < 0.3:
            # players put cups down beside the city, not on it or where the next tile goes
            near = [cell_centre(style, c["row"], c["col"]) for c in cells]
            near.append(cell_centre(style, cell.row, cell.col))
            for _ in range(30):
                c = random_cup(orng, prof)
                gap = c["radius_mm"] + style["pitch_mm"]
                if all(math.dist(c["centre_mm"], p) > gap for p in near):
                    cup, cup_left = c, orng.randint(1, 3)
                    break
        still = [cup] if cup is not None else []
        if illegal > 0 and rng.random() < illegal:
            mistakes = line_mistakes(city, bag)   # tried before the legal tile goes down
            if mistakes:
                bt, bc = mistakes[rng.randrange(len(mistakes))]
                wrong = list(cells) + [{"row": bc.row, "col": bc.col, "shape": bt.shape,
                                         "colour": bt.colour, "serial": 1}]
                frames.append(render_scene(city_scene(wrong, style, env, seed + 300 + len(cells),
                                                      still)).image)
                mark("illegal")
                if tried is not None:
                    tried[len(frames) - 1] = ((bc.row, bc.col), (bt.shape, bt.colour))
                frames.append(render_scene(city_scene(list(cells), style, env, seed + 400 + len(cells),
                                                      still)).image)
                mark("back")
        if hands and orng.random() < 0.5:
            frames.append(render_scene(city_scene(list(cells), style, env, seed + 100 + len(cells),
                                                  [random_hand(orng, prof)] + still)).image)
            mark("hand")
        city = city.with_tile(cell, t)
        if tiles is not None:
            tiles.append((t.shape, t.colour))
        cells.append({"row": cell.row, "col": cell.col, "shape": t.shape, "colour": t.colour})
        placed.append((cell.row, cell.col))
        frames.append(render_scene(city_scene(list(cells), style, env, seed + 200 + len(cells),
                                              still)).image)
        mark("legal")
        if cup is not None:
            cup_left -= 1
            if cup_left <= 0:
                cup = None
    return frames, placed


# seconds the table stays as it is after a game's last tile: the players then end the
# game on the device (MENU, End game, tiles left in each hand), which takes longer
END_HOLD = 10.0


class PacedCamera:
    """Frames shown like a live camera: each for `period` seconds, whether or not anyone
    captures it; a hand frame is also shown half-way to give motion.

    The frames advance with the loop's waits and a fixed `look_cost` per still captured,
    not with the real time its work took: which frames the loop sees then does not
    depend on how loaded the machine is (under load a slow look let the next move go by
    unseen, so the moves missed changed from run to run); the latency is still measured
    in real time.

    After the last frame's period the table stays as it is for `hold` seconds more: a
    game does not end the moment its last tile is down (the players then end it on the
    device), and a recording cut there would lose a last move the loop is still looking
    at or asking about. `on_hold` is called once when that time starts."""

    def __init__(self, frames: list[NDArray[np.uint8]], clock: Any, period: float = 3.0,
                 look_cost: float = 0.5, hold: float = 0.0,
                 on_hold: Callable[[], None] | None = None) -> None:
        self.frames = frames
        self.clock = clock
        self.period = period
        self.t0: float | None = None
        self.index = 0
        self.look_cost = look_cost
        self.looks = 0
        self.hold = hold
        self.on_hold = on_hold

    def _now(self) -> float:
        return float(self.clock.offset) + self.look_cost * self.looks

    def _current(self) -> NDArray[np.uint8]:
        from firmware.camera.base import EndOfStream
        if self.t0 is None:
            self.t0 = self._now()
        t = self._now() - self.t0
        i = int(t / self.period)
        if i >= len(self.frames):
            if t >= len(self.frames) * self.period + self.hold:
                raise EndOfStream("end of the paced frames")
            if self.on_hold is not None:
                self.on_hold()
                self.on_hold = None
            i = len(self.frames) - 1
            t = i * self.period + self.period     # the last frame, held still
        self.index = i
        frame = self.frames[i]
        phase = t - i * self.period
        if i > 0 and phase < 0.5:        # an arm sweeping out of view: motion
            h, w = frame.shape[:2]
            x = int(w * phase / 0.5)
            frame = frame.copy()
            frame[h // 3: h // 3 + h // 6, max(0, x - w // 8): x] = (90, 120, 170)
        return frame

    def start(self) -> None:
        pass

    def capture_preview(self) -> NDArray[np.uint8]:
        from firmware.camera.base import preview_from_still
        return preview_from_still(self._current())

    def capture_still(self) -> Any:
        from firmware.camera.base import Frame
        img = self._current()
        self.looks += 1
        return Frame(img, self.clock.now(), self.index, "paced")

    def close(self) -> None:
        pass


def standing_moves(ref: Any) -> list[dict[str, Any]]:
    """The moves the referee's game holds now: applied and not undone (its journal also
    keeps the moves the players undid)."""
    return [dict(m) for m in getattr(ref.session, "moves", None) or []]


class Players:
    """Players at the table who answer the device truthfully, through the buttons only.

    They read what the screen asks (`Referee.asking`) and know what they laid: the tiles
    placed up to the frame on the table (`placed`, `tiles` and the frames' `labels` from
    real_game). A question about new tiles gets the option naming a tile they really
    laid and the device has not taken, the one tried where the rules forbid it included
    (`wrong`: "B1: f1 or c1?" is answered with the tile laid, legal or not), or, when
    every option names it with a name they know is another's, Other... and the tile laid
    from that list (games.base.OTHER_TITLE), as for a question with Other... alone (a
    tile the device could not read) about a cell where they laid a tile it has not taken;
    an alert on a tile they laid legally gets
    MENU > Misread? Fix and the real tile; "X missing: put it back" (games.base.MISSING)
    about the device's last move, where they know no tile of theirs lies (one they took
    back, read as a move), gets Undo and the move left undone; anything else is answered
    OK or dismissed.
    The device's names for shapes and colours are its own (group ids numbered as met),
    so the players learn them from the moves it took, as people would from the screen;
    a name it gave another shape or colour is not that of one it has not named yet.
    """

    def __init__(self, camera: "PacedCamera", placed: list[tuple[int, int]],
                 tiles: list[tuple[int, int]], labels: list[str],
                 wrong: dict[int, tuple[tuple[int, int], tuple[int, int]]] | None = None, *,
                 sleep: Callable[[float], None]) -> None:
        self.camera, self.placed, self.tiles, self.labels = camera, placed, tiles, labels
        self.wrong = wrong or {}
        self.sleep = sleep
        self.ref: Any = None
        self.plan: list[Any] = []
        self.fixing: Any = None          # the alert being fixed
        self.fixed: set[str] = set()     # alerts already handled (by message)
        self.answered = 0
        self.fixes = 0
        self.undos = 0
        self.alerted: dict[str, int] = {}   # cell -> the frame the device's alert there was seen on

    @staticmethod
    def _name(rc: tuple[int, int]) -> str:
        return "ABCDEFG"[rc[1]] + str(rc[0] + 1)

    def _laid(self) -> dict[str, tuple[int, int]]:
        """The tiles on the table now: cell name -> true (shape, colour)."""
        n = sum(1 for lab in self.labels[: self.camera.index + 1] if lab == "legal")
        return {self._name(rc): t for rc, t in zip(self.placed[:n], self.tiles[:n])}

    def _tried(self) -> dict[str, tuple[int, int]]:
        """The tiles on the table now, with the one tried where the rules forbid it (laid
        since the last legal tile, whether or not taken back yet): the players know what
        they laid, and name it when asked which tile it is. Not once the device alerted
        it and they took it back: a question about its cell then is about something else
        (dev alerts game 7030: "c2 at A2?" on the table with c0 taken back after its
        alert was answered with c0 again, an alert on an empty cell)."""
        laid = self._laid()
        now = min(self.camera.index, len(self.labels) - 1)
        for i in range(now, -1, -1):
            if self.labels[i] == "legal":
                break
            if self.labels[i] == "illegal" and i in self.wrong:
                rc, tile = self.wrong[i]
                if not (now > i and self.alerted.get(self._name(rc), -1) >= i):
                    laid.setdefault(self._name(rc), tile)
                break
        return laid

    def _names(self) -> tuple[dict[int, int], dict[int, int]]:
        """The device's shape and colour indices for the true ones, learnt from the
        moves it applied and that stand, and the names it merged (true index -> device
        index)."""
        laid = {self._name(rc): t for rc, t in zip(self.placed, self.tiles)}
        shapes: dict[int, int] = {}
        colours: dict[int, int] = {}
        for d in standing_moves(self.ref):
            r = d.get("rename")
            if isinstance(r, dict):
                # a name the device gave twice, merged: the screens show the tiles so now
                names = shapes if r.get("axis") == "shape" else colours
                for true, said in list(names.items()):
                    if said == r.get("from"):
                        names[true] = int(r["to"])
            if "tile" in d and str(d.get("cell")) in laid:
                t, tok = laid[str(d["cell"])], str(d["tile"])
                shapes[t[0]] = "abcdefg".index(tok[0])
                colours[t[1]] = int(tok[1])
        return shapes, colours

    def _best(self, options: list[str], laid: dict[str, tuple[int, int]]) -> int | None:
        """The option "<token> at <cell>" for a tile really laid and not yet applied,
        the one whose token agrees most with what the players know of its names."""
        return self._judge(options, laid)[0]

    def _judge(self, options: list[str], laid: dict[str, tuple[int, int]]) -> tuple[int | None, bool]:
        """_best, and whether it may be right (no name in it is known to be another's)."""
        applied = {str(m.get("cell")) for m in standing_moves(self.ref)}
        shapes, colours = self._names()

        def agrees(names: dict[int, int], true: int, said: int) -> int:
            # the device's name for it known: 1 if said, else -1 (seen to be wrong); not
            # known yet: a name it gave another shape (colour) is not this one (-1), an
            # unused one may be (0)
            if true in names:
                return 1 if names[true] == said else -1
            return -1 if said in names.values() else 0

        # an option that names the tile with a name they know is another's is taken only
        # when every option does (people do not confirm a reading they can see is wrong
        # while another may be right)
        best, best_score = None, (False, -3)
        for i, text in enumerate(options):
            tok, _, cell = text.partition(" at ")
            if cell not in laid or cell in applied or len(tok) != 2 or not tok[1].isdigit():
                continue
            parts = (agrees(shapes, laid[cell][0], "abcdefg".find(tok[0])),
                     agrees(colours, laid[cell][1], int(tok[1])))
            score = (min(parts) >= 0, sum(parts))
            if score > best_score:
                best, best_score = i, score
        return best, best_score[0]

    def _unread_here(self, title: str, tried: dict[str, tuple[int, int]]) -> bool:
        """Whether a cell the question names holds a tile they laid that the device has
        not taken ("E1: cannot read the tile")."""
        applied = {str(m.get("cell")) for m in standing_moves(self.ref)}
        return any(c in tried and c not in applied for c in re.findall(r"\b[A-G][1-7]\b", title))

    def _press(self, index: int, last: str = "SELECT") -> None:
        from firmware.buttons.base import ButtonEvent
        self.plan = [ButtonEvent.NEXT] * index + [ButtonEvent[last]]

    def poll(self, timeout: float = 0.0) -> Any:
        from firmware.buttons.base import ButtonEvent
        ref = self.ref
        if ref.misread is not None:
            self.alerted[str(ref.misread.move.get("cell"))] = self.camera.index
        if self.plan:
            return self.plan.pop(0)
        laid = self._laid()
        if ref.asking is None:
            alert = ref.misread
            if alert is not None and alert.message not in self.fixed and \
                    str(alert.move.get("cell")) in laid:
                self.fixed.add(alert.message)      # a legal tile alerted: a misreading
                self.fixing = alert
                return ButtonEvent.MENU
            if timeout > 0:
                self.sleep(timeout)
            return None
        title, choices = ref.asking
        if title == "Menu":
            if self.fixing is not None and "Misread? Fix" in choices:
                self._press(choices.index("Misread? Fix"))
            else:
                return ButtonEvent.BACK
        elif title == "It really is":
            pick = self._best(list(choices), laid)
            self.fixing = None
            if pick is None:
                return ButtonEvent.BACK
            self.fixes += 1
            self._press(pick)
        elif title == "Undone. Fix?":
            return ButtonEvent.BACK                         # leave it undone
        elif title == OTHER_TITLE:
            pick = self._best(list(choices), self._tried())
            if pick is None:
                return ButtonEvent.BACK
            self._press(pick)
        elif choices:
            tried = self._tried()
            pick, sure = self._judge(list(choices[:-1]), tried)     # the last is "Not a move"
            self.answered += 1
            if pick is not None and not sure and OTHER in choices:
                pick = choices.index(OTHER)        # every option names it wrong: the fuller list
            elif choices[0] == OTHER and self._unread_here(title, tried):
                pick = 0                           # their tile, unread: the fuller list
            self._press(len(choices) - 1 if pick is None else pick)
        else:
            self.answered += 1
            gone = title.removesuffix(MISSING)
            moves = getattr(ref.session, "moves", None) or []
            if gone != title and gone not in laid and moves and str(moves[-1].get("cell")) == gone:
                self.undos += 1                             # they took that tile back
                return ButtonEvent.PREV                     # "Undo"
            return ButtonEvent.SELECT                       # "Check table": OK
        return self.plan.pop(0)

    def close(self) -> None:
        pass


class _TimingClock:
    """Real time for work, virtual time for waits: latency without sleeping through stills."""

    def __init__(self) -> None:
        self.offset = 0.0

    def now(self) -> float:
        return time.perf_counter() + self.offset

    def sleep(self, seconds: float) -> None:
        self.offset += max(0.0, seconds)

    def charge(self) -> None:
        """After a look: its real time has already passed on this clock."""


class _ChargedClock(_TimingClock):
    """Virtual time throughout, each look charged a fixed time: the loop's decisions that
    read the clock (the still period, early looks, the players' answers) then do not
    depend on how fast the reader ran on this machine, or how loaded it was, so two
    codes are compared on the same looks. Its latencies are not real times."""

    def __init__(self, look_seconds: float) -> None:
        super().__init__()
        self.look_seconds = look_seconds

    def now(self) -> float:
        return self.offset

    def charge(self) -> None:
        self.offset += self.look_seconds


def bench_latency(frames: list[NDArray[np.uint8]], analyze: Any = None,
                  players: tuple[Any, ...] | None = None,
                  look_seconds: float | None = None, hold: float = 0.0,
                  game: str = "town77", preset: dict[str, Any] | None = None,
                  make_players: Callable[["PacedCamera", Callable[[float], None]], Any] | None = None
                  ) -> dict[str, Any]:
    """Run the loop (live mode, timing clock) over full-resolution frames; time each look
    from the still period ending to the first screen shown after it (the loop's own
    `timings`), and each look's work (`look`: capture to verdict, which an early look does
    while the still period runs out). The frames are paced by the loop's waits
    (`PacedCamera`). With `players` (placed, tiles, labels and optionally tried of
    real_game) the questions
    are answered by simulated Players; otherwise nobody answers. With `look_seconds` every
    look is charged that time on a virtual clock (`_ChargedClock`): the moves missed then
    do not depend on the machine, and the latencies are not measured. The last frame is
    held `hold` seconds more (PacedCamera). `applied` are the cells of every move applied,
    `standing` those of the moves not undone at the end, `standing_unheld` those standing
    when that hold began, what a recording cut at the last frame's period would have given.
    `game` and `preset` choose the game and its settings (Town 77 for 2 players by
    default); `make_players(camera, sleep)` makes other games' players (they get `.ref`)."""
    from firmware.buttons.script import NoButtons
    from firmware.display.virtual import NullDisplay
    from firmware.journal import Journal
    from firmware.loop import LoopConfig, Referee
    from firmware.motion import MotionConfig


    clock = _TimingClock() if look_seconds is None else _ChargedClock(look_seconds)
    display = NullDisplay()
    parts: dict[str, list[float]] = {"fit": [], "reader": [], "look": []}
    import firmware.loop as loop_mod

    def timed(fn: Callable[..., Any], into: list[float], then: Callable[[], None] = lambda: None
              ) -> Callable[..., Any]:
        def run(*args: Any) -> Any:
            t = time.perf_counter()
            try:
                return fn(*args)
            finally:
                into.append(time.perf_counter() - t)
                then()
        return run

    with tempfile.TemporaryDirectory() as tmp:
        if players is not None:
            def make_players(camera: PacedCamera, sleep: Callable[[float], None]) -> Any:
                return Players(camera, *players, sleep=sleep)
        cfg = LoopConfig(motion=MotionConfig(still_seconds=1.0), replay=False,
                         prompt_timeout=0.0 if make_players is None else 5.0, resume_timeout=0.0)
        unheld: list[list[Any]] = []

        def moves() -> list[Any]:
            return [r.data.get("cell") for r in ref.journal.records if r.kind == "move"]

        def standing() -> list[Any]:
            return [m.get("cell") for m in standing_moves(ref)]

        camera = PacedCamera(frames, clock, hold=hold, on_hold=lambda: unheld.append(standing()))
        buttons: Any = NoButtons(sleep=clock.sleep) if make_players is None else make_players(camera, clock.sleep)
        ref = Referee(camera, display, buttons, Journal(tmp),
                      clock=clock, config=cfg, game=game,
                      analyze=timed(analyze or loop_mod._default_analyze, parts["reader"]),
                      preset={"players": 2} if preset is None else preset)
        if make_players is not None:
            buttons.ref = ref
        ref._locate = timed(ref._locate, parts["fit"])  # type: ignore[method-assign]
        ref.judge = timed(ref.judge, parts["look"], clock.charge)  # type: ignore[method-assign]
        ref.run()
        applied, stood = moves(), standing()
    return {"latency": list(ref.timings), "fit": parts["fit"], "reader": parts["reader"],
            "look": parts["look"], "moves": len(applied), "applied": applied, "standing": stood,
            "records": [(r.kind, dict(r.data)) for r in ref.journal.records], "session": ref.session,
            "standing_unheld": unheld[0] if unheld else stood, "events": ref.events,
            "answered": getattr(buttons, "answered", 0), "fixes": getattr(buttons, "fixes", 0),
            "void": sum(1 for e in ref.events if e.startswith("early look void"))}


def bench_real_games(games: int, seed: int, resolution: tuple[int, int], moves: int = 8,
                     occluders: bool = True, players: bool = False,
                     look_seconds: float | None = None, hold: float = 0.0,
                     each: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Whole Town 77 games through the loop with the real reader, in random synthetic
    environments with hands and cups between moves: moves applied at a cell no tile
    went to (invented), tiles placed but never applied (missed), questions asked. With
    `players`, simulated Players answer the questions and fix misread alerts; with
    `look_seconds`, looks are charged that time (bench_latency), so the moves missed do
    not depend on the machine; with `hold`, the last frame stays that many seconds more
    (`missed_unheld` counts the moves missed without it)."""
    def name(rc: tuple[int, int]) -> str:
        return "ABCDEFG"[rc[1]] + str(rc[0] + 1)

    out: dict[str, Any] = {"games": 0, "moves": 0, "invented": 0, "missed": 0, "questions": 0,
                           "frames": 0, "latency": [], "fit": [], "reader": [], "look": [], "void": 0,
                           "exact_games": 0, "answered": 0, "fixes": 0, "missed_unheld": 0}
    for g in range(games):
        labels: list[str] = []
        tiles: list[tuple[int, int]] = []
        frames, placed = real_game(seed + g, moves, resolution, cups=occluders, hands=occluders,
                                   labels=labels, tiles=tiles)
        run = bench_latency(frames, players=(placed, tiles, labels) if players else None,
                            look_seconds=look_seconds, hold=hold)
        want = [name(rc) for rc in placed]
        # invented: any move ever applied at a cell no tile went to (undone by the players
        # or not); missed: a tile not in the device's city at the end (a move applied and
        # then undone is missed)
        got = [str(c) for c in run["applied"]]
        stood = {str(c) for c in run["standing"]}
        invented = sum(1 for c in got if c not in want)
        missed = sum(1 for c in want if c not in stood)
        out["missed_unheld"] += sum(1 for c in want if c not in {str(x) for x in run["standing_unheld"]})
        out["games"] += 1
        out["frames"] += len(frames)
        out["moves"] += len(want)
        out["invented"] += invented
        out["missed"] += missed
        out["exact_games"] += int(invented == 0 and missed == 0)
        asked = sum(1 for e in run["events"] if ": Ask " in e)
        out["questions"] += asked
        if each is not None:     # game by game, so two runs can be compared game by game
            each(f"game {seed + g}: missed {missed} invented {invented} questions {asked} "
                 f"want {want} got {got}")
        out["latency"] += run["latency"]
        out["fit"] += run["fit"]
        out["reader"] += run["reader"]
        out["look"] += run["look"]
        out["void"] += run["void"]
        out["answered"] += run["answered"]
        out["fixes"] += run["fixes"]
    return out


def memory_frames(kind: str, seed: int, resolution: tuple[int, int], moves: int = 8
                  ) -> list[NDArray[np.uint8]]:
    """Frames of a short synthetic game of `kind` at full resolution, for the memory
    figure (each game's own reader runs on them in `tableref run`)."""
    if kind == "town77":
        return real_game_frames(seed, moves, resolution)
    from vision.synth import render_scene
    if kind == "town77-challenge":
        from calibration.profile import default_profile
        from vision.synth.randomize import easy_environment
        from vision.synth.town77_challenge import challenge_game, challenge_scene, challenge_style

        env = easy_environment(resolution, default_profile("town77"))
        style = challenge_style(seed, art="light", angle_deg=3.0)
        return [render_scene(challenge_scene(f, style, env, seed=seed * 100)).image
                for f in challenge_game(seed, "hint", max_moves=moves)]
    if kind == "railways":
        from firmware.bench.railways_games import bench_catalogue
        from rules.railways.simulate import simulate_game
        from vision.synth.railways_game import build_moves, new_table, scene_after_move

        catalogue = bench_catalogue()
        game = simulate_game(random.Random(seed), 2, "metropolis", catalogue, build_chance=1.0)
        table = new_table(game, seed, resolution, catalogue)
        return [render_scene(scene_after_move(table, k)).image
                for k in [0] + build_moves(game)[:moves]]
    raise ValueError(f"no memory game for {kind!r}")


MEMORY_ARGS = {"town77": ["--players", "2"], "town77-challenge": [], "railways": ["--players", "2"]}


def bench_memory(frames: list[NDArray[np.uint8]], tmp: Path, kind: str = "town77") -> float:
    """Peak RSS (MB) of a fresh `tableref run` process over the whole recording."""
    d = tmp / f"mem_frames_{kind}"
    d.mkdir(exist_ok=True)
    for i, f in enumerate(frames):
        cv2.imwrite(str(d / f"{i:04d}.jpg"), f, [cv2.IMWRITE_JPEG_QUALITY, 92])
    # ru_maxrss of a child is not usable (Linux carries the parent's high-water mark across
    # fork and exec), so the child reports its own VmHWM from /proc at exit.
    args = ["run", "--game", kind, *MEMORY_ARGS[kind], "--camera", f"frames:{d}",
            "--buttons", "none", "--display", "null", "--state-dir", str(tmp / f"mem_state_{kind}")]
    code = ("import sys, atexit\n"
            "def hwm():\n"
            "    for line in open('/proc/self/status'):\n"
            "        if line.startswith('VmHWM:'):\n"
            "            print('VMHWM', line.split()[1], file=sys.stderr)\n"
            "atexit.register(hwm)\n"
            "from firmware.cli import main\n"
            f"sys.exit(main({args!r}))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          timeout=3600)
    for line in done.stderr.splitlines():
        if line.startswith("VMHWM "):
            return int(line.split()[1]) / 1024.0
    return float("nan")


# --- occlusion on the mini table ------------------------------------------------------------

def bench_occlusion(games: int, seed: int) -> dict[str, int]:
    mt = _mini()
    sys.path.insert(0, str(TESTS))
    from loopkit import referee  # noqa: PLC0415

    from firmware.journal import load
    invented = missed = moves_total = asks = frames_total = 0
    with tempfile.TemporaryDirectory() as tmp:
        for g in range(games):
            placements = mt.legal_game(seed + g, 12)
            frames = mt.game_frames(placements, seed + g)
            frames_total += len(frames)
            d = Path(tmp) / f"g{g}"
            ref = referee(d, frames)
            ref.run()
            got = [(r.data["cell"], r.data["tile"]) for r in load(d / "journal.jsonl").records
                   if r.kind == "move"]
            want = [("ABCDEFG"[c] + str(r + 1), "abcdefg"[s] + str(k))
                    for (r, c), (s, k) in placements]
            moves_total += len(want)
            invented += sum(1 for m in got if m not in want)
            missed += sum(1 for m in want if m not in got)
            asks += sum(1 for e in ref.events if ": Ask " in e)
    return {"games": games, "frames": frames_total, "moves": moves_total, "invented": invented,
            "missed": missed, "questions": asks}


# --- resume under SIGKILL ---------------------------------------------------------------------

RESUME_GAMES = ("town77", "town77-challenge", "railways")
RESUME_TRIALS_PER_GAME = 5


def bench_resume(kills_wanted: int, seed: int, game: str = "town77") -> dict[str, Any]:
    """SIGKILL `tableref run` at random points of scripted games of one kind, restart it
    (up to three kills in a row on one state folder), run it to the end, and compare the
    journal's final summary (state and scores) with the uninterrupted run's.

    The games come from tests/firmware/resume_games.py: Town 77 on the mini table, the
    Challenge and Railways on vision.synth frames read by their recorded truth (the
    figure judges the loop and the journal, not a reader)."""
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))
    import resume_games as rg  # noqa: PLC0415

    rng = random.Random(f"{seed}:{game}")
    out: dict[str, Any] = {"game": game, "kills": 0, "with_game": 0, "restarts": 0, "trials": 0,
                           "mismatches": 0, "games": 0, "moves": 0, "differ": [], "skipped": []}
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        while out["kills"] < kills_wanted and len(out["skipped"]) < 20:
            out["games"] += 1
            g = out["games"]
            scripted = rg.make_game(game, tmp / f"game{g}", seed + g)
            want, records, duration = rg.straight_run(scripted, tmp / f"ref{g}")
            why = rg.follows(scripted, want)
            if why is not None:   # the loop stalled in this game (not a resume matter): say so
                out["skipped"].append(f"{game} seed {seed + g}: {why}")
                continue
            out["moves"] += int(want["moves"]) if want else 0
            for trial in range(RESUME_TRIALS_PER_GAME):
                tr = rg.kill_then_finish(scripted, tmp / f"k{g}_{trial}", rng, records, duration,
                                         rng.randint(1, 3))
                out["trials"] += 1
                out["kills"] += tr.kills
                out["with_game"] += tr.into_game
                out["restarts"] += tr.runs
                if tr.returncode != 0 or tr.summary != want:
                    out["mismatches"] += 1
                    out["differ"].append(f"{game} game {g} (seed {seed + g}) trial {trial}: exit "
                                         f"{tr.returncode}, {tr.summary} != {want}; "
                                         f"{tr.stderr.strip()[-300:]}")
                if out["kills"] >= kills_wanted:
                    break
    return out


def resume_line(rs: dict[str, Any]) -> str:
    played = rs["games"] - len(rs["skipped"])
    return (f"Resume, {rs['game']}: {rs['kills']} SIGKILLs at random points of {played} "
            f"scripted games ({rs['moves']} journalled moves in the uninterrupted runs; "
            f"{rs['with_game']} kills with a game in the journal; {rs['restarts']} killed runs "
            f"over {rs['trials']} state folders, each then run to the end): "
            f"**{rs['mismatches']} final states or scores differ** from the uninterrupted run - "
            f"{verdict(rs['mismatches'] == 0 and rs['kills'] >= 50)}.")


def resume_section(seed: int, kills: int = 50) -> list[str]:
    """The resume lines of the report, one per finished game."""
    out = ["", "Resume (the loop and journal, not a reader: Town 77 on the mini table, the "
           "Challenge and Railways on vision.synth frames fed their recorded true readings; "
           "kill points are random journal lengths plus a random delay, so kills land at "
           "start-up, in the resumed replay, between looks, in questions and alerts, and just "
           "after a journal write):"]
    for kind in RESUME_GAMES:
        t = time.perf_counter()
        rs = bench_resume(kills, seed, kind)
        out += ["", resume_line(rs) + f" _({time.perf_counter() - t:.0f} s)_"]
        out += [f"- differs: {d}" for d in rs["differ"][:3]]
        if rs["skipped"]:
            out += [f"- {len(rs['skipped'])} generated game(s) left out: the uninterrupted run did "
                    "not referee the drawn game to its end (" + "; ".join(rs["skipped"][:3]) + ")"]
    return out


# --- bad input --------------------------------------------------------------------------------

def bench_badinput(n: int, seed: int) -> dict[str, Any]:
    mt = _mini()
    sys.path.insert(0, str(TESTS))
    from loopkit import referee  # noqa: PLC0415

    from firmware.bench.badinput import run_cases, tally
    from firmware.games.town77 import Town77Session
    with tempfile.TemporaryDirectory() as tmp:
        ref = referee(Path(tmp), [])
        ref.session = Town77Session({"players": 2})
        ref.profile = mt.PROFILE
        # silence libpng/libjpeg warnings on fd 2 while decoding thousands of broken files
        saved = os.dup(2)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        try:
            outcomes = run_cases(n, seed, ref.judge)
        finally:
            os.dup2(saved, 2)
            os.close(devnull)
            os.close(saved)
    crashes = [o for o in outcomes if o.result == "crash"]
    return {"table": tally(outcomes), "crashes": crashes, "n": len(outcomes)}


# --- the report ---------------------------------------------------------------------------------

def run(scenes: int | None, seed: int, resolution: tuple[int, int] | None) -> str:
    res = resolution or (2304, 1296)
    games = scenes or 100
    real_games = max(1, games // 10)
    out = ["## loop", ""]
    t_all = time.perf_counter()

    m = bench_motion(seed)
    rows = [["motion check per 320x180 preview (median)", f"{m['median_ms']:.3f} ms",
             "<= 1 ms", verdict(m["median_ms"] <= 1.0)],
            ["motion check p99", f"{m['p99_ms']:.3f} ms", "", ""]]

    real = bench_real_games(real_games, seed, res, hold=END_HOLD)
    calm = bench_real_games(real_games, seed, res, occluders=False, hold=END_HOLD)
    lat = real["latency"]
    med_lat = median(lat)
    worst = max(lat) if lat else float("nan")
    rows += [[f"still -> verdict on screen at {res[0]}x{res[1]}, town77 reader "
              f"(median of {len(lat)} looks, {real['games']} games)",
              f"{1000 * med_lat:.0f} ms", "<= 300 ms", verdict(med_lat <= 0.3)],
             ["  p90 look", f"{1000 * float(np.percentile(lat, 90)):.0f} ms" if lat else "-", "", ""],
             ["  worst look", f"{1000 * worst:.0f} ms", "", ""],
             ["  a look's work, capture to verdict (median; an early look does it while the "
              "still period runs out)", f"{1000 * median(real['look']):.0f} ms", "", ""],
             ["  of which marker fit (median)", f"{1000 * median(real['fit']):.0f} ms", "", ""],
             ["  of which the town77 reader (median)", f"{1000 * median(real['reader']):.0f} ms", "", ""],
             ["  early looks made void by motion", f"{real['void']} of {len(real['look'])}", "", ""]]
    with tempfile.TemporaryDirectory() as t:
        for kind in MEMORY_ARGS:
            peak = bench_memory(memory_frames(kind, seed, res), Path(t), kind)
            rows.append([f"peak RSS of `tableref run`, {kind} game at {res[0]}x{res[1]} (its own reader)",
                         f"{peak:.0f} MB", "<= 250 MB", verdict(peak <= 250)])

    mini = _mini()
    mini_frames = mini.game_frames(mini.legal_game(seed, 10), seed, size=(res[0], res[1]))
    mini_lat = bench_latency(mini_frames, analyze=mini.loop_analyze)
    ml = median(mini_lat["latency"])
    rows.append([f"still -> verdict, loop with the mini-table reader at {res[0]}x{res[1]}",
                 f"{1000 * ml:.0f} ms", "<= 300 ms", verdict(ml <= 0.3)])
    out.append(md_table(["measure", "value", "target", ""], rows))

    occ = bench_occlusion(games, seed)
    out += ["", f"Occlusion ({occ['games']} games, {occ['moves']} moves, {occ['frames']} still "
            f"frames with hands, pinching fingers and cups between moves; mini table): "
            f"**{occ['invented']} moves invented, {occ['missed']} missed** "
            f"({occ['questions']} questions to the players) - "
            f"{verdict(occ['invented'] == 0 and occ['missed'] == 0)}."]

    out += resume_section(seed)

    bad = bench_badinput(10000, seed)
    table = bad["table"]
    out += ["", f"Bad input ({bad['n']} generated cases): **{len(bad['crashes'])} crashes** - "
            f"{verdict(not bad['crashes'])}.", "",
            md_table(["input", "accepted", "one-line error", "skipped", "crash"],
                     [[k, v["ok"], v["error"], v["skipped"], v["crash"]] for k, v in table.items()])]
    for c in bad["crashes"][:5]:
        out.append(f"- crash: {c.kind}: {c.message[:200]}")
    out += ["", f"Real pipeline ({real['games']} Town 77 games at {res[0]}x{res[1]}, vision.synth "
            f"random tables, lights and cameras, a hand over the table before half the moves and "
            f"a cup beside the city in some; the town77 reader; {real['frames']} frames): "
            f"**{real['invented']} moves invented, {real['missed']} missed** of {real['moves']} "
            f"({real['questions']} questions to the players; {real['exact_games']} of "
            f"{real['games']} games refereed exactly; the last frame held {END_HOLD:.0f} s, "
            f"without which {real['missed_unheld']} were missed). The same games with no hand or cup at all: "
            f"{calm['invented']} invented, {calm['missed']} missed ({calm['exact_games']} of "
            f"{calm['games']} exact), so the misses are the reader's, not the occluders': its "
            "accuracy is measured by `tableref bench --game town77`.",
            "", f"_Whole suite: {time.perf_counter() - t_all:.0f} s; "
            f"bench process peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB._"]
    return "\n".join(out)


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "resume":
        print("\n".join(resume_section(int(sys.argv[2]) if len(sys.argv) > 2 else 0)))
    elif len(sys.argv) >= 2 and sys.argv[1] in ("real", "calm"):
        n = int(sys.argv[2]) if len(sys.argv) > 2 else 10
        first = int(sys.argv[3]) if len(sys.argv) > 3 else 0
        charged = [a for a in sys.argv if a.startswith("--look=")]
        held = [a for a in sys.argv if a.startswith("--hold=")]
        got = bench_real_games(n, first, (2304, 1296), occluders=sys.argv[1] == "real",
                               players="--players" in sys.argv,
                               look_seconds=float(charged[0].split("=", 1)[1]) if charged else None,
                               hold=float(held[0].split("=", 1)[1]) if held else 0.0,
                               each=(lambda line: print(line, flush=True)) if "--each" in sys.argv else None)
        print(json.dumps({k: v for k, v in got.items() if k not in ("latency", "fit", "reader", "look")}))
        for k in ("latency", "look", "reader", "fit"):
            print(f"{k} median {1000 * median(got[k]):.0f} ms over {len(got[k])}")
    else:
        print("usage: python -m firmware.bench.loop resume [SEED] | real|calm [GAMES] [SEED] [--players] [--look=S] [--hold=S] [--each]\n"
              "  real: Town 77 games through the loop and the real reader with hands and cups; "
              "calm: the same games without them (the whole suite: tableref bench --game loop)")
