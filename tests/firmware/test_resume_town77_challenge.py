"""Resume of the Town 77 solo Challenge under SIGKILL: a scripted game through the real
`tableref run` (vision.synth frames, recorded truth readings), killed at random points,
restarted on the same state folder, ends with the uninterrupted run's summary.

The bench (`tableref bench --game loop`) does the same with >= 50 kills."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

import resume_games as rg
from rules.town77 import City


@pytest.fixture(scope="module")
def straight(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("challenge")
    return rg.reference(rg.challenge_game(root / "game", seed=4, max_moves=8), root / "straight")


def test_uninterrupted_run_plays_the_scripted_challenge(straight: dict[str, Any]) -> None:
    """The reference run: every placement at the drawn cells, then End game."""
    s, expect = straight["summary"], straight["game"].expect
    assert s is not None and s["finished"] and s["placed"] == expect["placed"] == 8
    city = City.parse(s["notation"].split()[0])
    assert sorted(c.name for c in city.tiles()) == expect["cells"]


def test_sigkill_then_restart_ends_as_the_uninterrupted_run(straight: dict[str, Any],
                                                            tmp_path: Path) -> None:
    """Three SIGKILLs (the first two in a row on one state folder; at least two with a game
    in the journal), each state folder then run to the end: the same summary."""
    kills, with_game = rg.kills_then_same_summary(straight, tmp_path, random.Random(7))
    assert kills >= 3 and with_game >= 2
