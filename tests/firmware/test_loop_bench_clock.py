"""The loop bench's charged clock: which moves a game loses does not depend on how fast
the reader ran (a loaded or a faster machine used to change them)."""

from __future__ import annotations

import time
from typing import Any

from firmware.bench.loop import bench_latency, real_game


def test_a_charged_clock_gives_the_same_looks_however_slow_the_reader_is() -> None:
    """The same game, its reader once quick and once 0.6 s slower a look: with every look
    charged a fixed time the loop takes the same verdicts and applies the same moves."""
    from firmware import loop as loop_mod

    labels: list[str] = []
    tiles: list[tuple[int, int]] = []
    frames, placed = real_game(3, 3, (960, 540), cups=True, labels=labels, tiles=tiles)

    def slow(*args: Any) -> Any:
        time.sleep(0.6)
        return loop_mod._default_analyze(*args)

    quick_run = bench_latency(frames, players=(placed, tiles, labels), look_seconds=0.3)
    slow_run = bench_latency(frames, analyze=slow, players=(placed, tiles, labels), look_seconds=0.3)
    assert quick_run["events"] == slow_run["events"]
    assert quick_run["applied"] == slow_run["applied"] and quick_run["applied"]


def test_the_paced_camera_holds_the_last_frame_still_then_ends() -> None:
    """After the last frame's period the table stays as it is for `hold` seconds (no arm
    sweeping over it), `on_hold` is told once, and only then does the recording end."""
    import numpy as np
    import pytest

    from firmware.bench.loop import PacedCamera
    from firmware.camera.base import EndOfStream

    class Clock:
        offset = 0.0

        def now(self) -> float:
            return self.offset

    frames = [np.full((40, 60, 3), v, np.uint8) for v in (10, 200)]
    clock = Clock()
    held: list[float] = []
    cam = PacedCamera(frames, clock, period=3.0, look_cost=0.0, hold=5.0,
                      on_hold=lambda: held.append(clock.offset))
    cam.capture_still()                       # starts the recording at 0
    clock.offset = 3.2                        # the last frame, an arm sweeping in
    assert int(cam.capture_still().image.min()) < 200
    clock.offset = 6.1                        # past the recording: the last frame, still
    assert int(cam.capture_still().image.min()) == 200 and held == [6.1]
    clock.offset = 10.9
    assert int(cam.capture_still().image.min()) == 200 and held == [6.1]
    clock.offset = 11.0
    with pytest.raises(EndOfStream):
        cam.capture_still()
