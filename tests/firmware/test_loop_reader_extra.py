"""The loop hands the reader what the game asks of it (GameSession.reader_extra)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import minitable
from loopkit import ListCamera, ScriptButtons

from firmware.journal import Journal
from firmware.display.virtual import NullDisplay
from firmware.loop import LoopConfig, Referee, VirtualClock


def test_the_challenge_asks_its_reader_to_read_the_piles_one_by_one(tmp_path: Path) -> None:
    """A solo Challenge's every look is read with extra "piles": 3 (vision.tiles.piles);
    a Town 77 game's with no such key."""
    seen: dict[str, list[Any]] = {}
    for game in ("town77-challenge", "town77"):
        given: list[Any] = []

        def analyze(g: str, image: Any, fit: Any, options: Any, given: list[Any] = given) -> dict[str, Any]:
            given.append((options.extra or {}).get("piles"))
            return minitable.loop_analyze(g, image, fit, options)

        frames = [minitable.render({}, seed=k) for k in range(3)]
        ref = Referee(ListCamera(frames, ()), NullDisplay(), ScriptButtons(["SELECT"]), Journal(tmp_path / game),
                      clock=VirtualClock(), config=LoopConfig(replay=True), game=game,
                      profile=minitable.PROFILE, analyze=analyze)
        ref.run()
        seen[game] = given
    assert seen["town77-challenge"] and set(seen["town77-challenge"]) == {3}, seen
    assert seen["town77"] and set(seen["town77"]) == {None}, seen


def test_the_challenge_hands_its_reader_no_lattice_before_the_pioneer(tmp_path: Path) -> None:
    """Before the pioneer the reader's last lattice is the pile tops' (a stack's height up):
    the Challenge's looks get none; a Town 77 game's get the reader's last one."""
    seen: dict[str, list[Any]] = {}
    for game in ("town77-challenge", "town77"):
        given: list[Any] = []

        def analyze(g: str, image: Any, fit: Any, options: Any, given: list[Any] = given) -> dict[str, Any]:
            given.append((options.extra or {}).get("grid"))
            out = minitable.loop_analyze(g, image, fit, options)
            return dict(out, grid={"pitch_mm": 40.0, "angle_deg": 0.0, "origin_mm": [50.0, 50.0]})

        frames = [minitable.render({}, seed=k) for k in range(4)]
        ref = Referee(ListCamera(frames, ()), NullDisplay(), ScriptButtons(["SELECT"]), Journal(tmp_path / game),
                      clock=VirtualClock(), config=LoopConfig(replay=True), game=game,
                      profile=minitable.PROFILE, analyze=analyze)
        ref.grid_hint = {"pitch_mm": 40.0, "angle_deg": 0.0, "origin_mm": [50.0, 50.0]}
        ref.run()
        seen[game] = given
    assert seen["town77-challenge"] and all(g is None for g in seen["town77-challenge"]), seen
    assert seen["town77"] and all(g is not None for g in seen["town77"]), seen
