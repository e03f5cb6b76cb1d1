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
