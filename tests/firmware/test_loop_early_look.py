"""Early looks: a still taken during the still period is read while the period runs out,
and its verdict is shown as the period ends; motion before then makes the look void."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np

import minitable
from firmware.buttons.script import NoButtons
from firmware.camera.base import EndOfStream, Frame, preview_from_still
from firmware.display.virtual import NullDisplay
from firmware.journal import Journal, load
from firmware.loop import LoopConfig, Referee, VirtualClock

LOOK_COST = 0.3          # seconds a look takes (the reader's time, on the virtual clock)


class ClockCamera:
    """The table as a timeline: (from_second, frame) pairs on the referee's clock.
    Records when each still was taken."""

    def __init__(self, clock: VirtualClock, timeline: Sequence[tuple[float, np.ndarray]], end: float) -> None:
        self.clock, self.timeline, self.end = clock, list(timeline), end
        self.stills: list[tuple[float, int]] = []

    def _at(self) -> tuple[int, np.ndarray]:
        t = self.clock.now()
        if t >= self.end:
            raise EndOfStream("end of the timeline")
        i = max(k for k, (t0, _) in enumerate(self.timeline) if t0 <= t)
        return i, self.timeline[i][1]

    def start(self) -> None:
        pass

    def capture_preview(self) -> np.ndarray:
        return preview_from_still(self._at()[1])

    def capture_still(self) -> Frame:
        i, f = self._at()
        self.stills.append((self.clock.now(), i))
        return Frame(f, self.clock.now(), i, "timeline")

    def close(self) -> None:
        pass


def _referee(tmp: Path, timeline: Sequence[tuple[float, np.ndarray]], end: float,
             **cfg: Any) -> tuple[Referee, ClockCamera]:
    clock = VirtualClock()
    camera = ClockCamera(clock, timeline, end)

    def slow_analyze(game: str, image: Any, fit: Any, options: Any) -> dict[str, Any]:
        clock.sleep(LOOK_COST)
        return minitable.loop_analyze(game, image, fit, options)

    ref = Referee(camera, NullDisplay(), NoButtons(sleep=clock.sleep), Journal(tmp), clock=clock,
                  config=LoopConfig(replay=False, prompt_timeout=0.0, resume_timeout=0.0, **cfg),
                  game="town77", profile=minitable.PROFILE, analyze=slow_analyze,
                  preset={"players": 2})
    return ref, camera


def _moves(tmp: Path) -> list[dict[str, Any]]:
    return [r.data for r in load(tmp / "journal.jsonl").records if r.kind == "move"]


def test_an_early_look_shows_its_verdict_as_the_still_period_ends(tmp_path: Path) -> None:
    """The tile's still is taken before the still period ends, and the move is on screen
    within one preview of its end; without early looks it comes a look's time later."""
    empty, placed = minitable.render({}), minitable.render({(0, 0): (1, 1)}, seed=1)
    hand = minitable.render({}, [{"kind": "hand", "at": (120.0, 90.0)}], seed=2)
    timeline = [(0.0, empty), (2.6, hand), (3.0, placed)]     # the hand that lays the tile
    ref, camera = _referee(tmp_path / "early", timeline, 6.0)
    ref.run()
    assert [m["cell"] for m in _moves(tmp_path / "early")] == ["A1"]
    still_end = 3.0 + ref.cfg.motion.still_seconds
    taken = [t for t, i in camera.stills if i == 2]
    assert taken and taken[0] < still_end - 0.2, camera.stills
    assert max(ref.timings) < ref.cfg.preview_interval + 1e-9, ref.timings

    late, _ = _referee(tmp_path / "late", timeline, 6.0, early_look=False)
    late.run()
    assert [m["cell"] for m in _moves(tmp_path / "late")] == ["A1"]
    assert min(t for t in late.timings) >= LOOK_COST - 1e-9, late.timings


def test_motion_before_the_still_period_ends_voids_the_early_look(tmp_path: Path) -> None:
    """A hand that comes after the early still was taken, but before the period ends,
    voids that look: nothing is shown or applied from it, and the move is applied once,
    from a still taken after the hand left."""
    empty = minitable.render({})
    placed = minitable.render({(0, 0): (1, 1)}, seed=1)
    laying = minitable.render({}, [{"kind": "hand", "at": (120.0, 90.0)}], seed=2)
    hand = minitable.render({(0, 0): (1, 1)}, [{"kind": "hand", "at": (120.0, 90.0)}], seed=3)
    timeline = [(0.0, empty), (2.6, laying), (3.0, placed), (3.75, hand), (4.0, placed)]
    ref, camera = _referee(tmp_path, timeline, 7.0)
    shown: list[float] = []
    ref.display.show = lambda im: shown.append(ref.clock.now())  # type: ignore[method-assign]
    ref.run()
    moves = _moves(tmp_path)
    assert [m["cell"] for m in moves] == ["A1"], moves
    void = [t for t, i in camera.stills if i == 2]
    assert void and void[0] < 3.75, camera.stills       # the look the hand made void
    assert moves[0]["frame"] == 4                        # applied from the table after the hand
    assert not any(3.75 <= t < 4.0 + ref.cfg.motion.still_seconds for t in shown), shown


def test_the_loop_watches_while_a_move_is_on_screen(tmp_path: Path) -> None:
    """A tile laid while the last move's screen is up is read before the recording ends:
    the move's screen holds the status back for `verdict_seconds`, it does not stop the
    loop watching (it slept through the second tile's still period, saw the next hand
    as it woke, and the recording ended before the table was still again)."""
    empty = minitable.render({})
    laying = minitable.render({}, [{"kind": "hand", "at": (120.0, 90.0)}], seed=2)
    one = minitable.render({(0, 0): (1, 1)}, seed=1)
    two = minitable.render({(0, 0): (1, 1), (0, 1): (2, 2)}, seed=4)
    reaching = minitable.render({(0, 0): (1, 1), (0, 1): (2, 2)}, [{"kind": "hand", "at": (150.0, 60.0)}], seed=5)
    timeline = [(0.0, empty), (2.6, laying), (3.0, one), (4.3, two), (5.4, reaching), (5.7, two)]
    ref, _ = _referee(tmp_path, timeline, 6.4)
    shown: list[tuple[float, bytes]] = []
    ref.display.show = lambda im: shown.append((ref.clock.now(), im.tobytes()))  # type: ignore[method-assign]
    ref.run()
    assert [m["cell"] for m in _moves(tmp_path)] == ["A1", "B1"]
    first = min(t for t, _ in shown if t >= 3.0)          # A1's screen
    assert not [t for t, _ in shown if first < t < min(first + ref.cfg.verdict_seconds, 4.3)], shown
