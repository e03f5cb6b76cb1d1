"""Resume of Paperclip Railways under SIGKILL: a simulated game through the real
`tableref run` (vision.synth frames, recorded truth readings; some clip counts asked and
answered by the button script, an illegal link alerted), killed at random points,
restarted on the same state folder, ends with the uninterrupted run's state and scores.

The bench (`tableref bench --game loop`) does the same with >= 50 kills."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

import resume_games as rg


@pytest.fixture(scope="module")
def straight(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("railways")
    return rg.reference(rg.railways_game(root / "game", seed=3, max_builds=6), root / "straight")


def test_uninterrupted_run_scores_as_the_simulated_game(straight: dict[str, Any]) -> None:
    """The reference run: six links (two clip counts confirmed by SELECT, one illegal link
    alerted and taken back), the simulator's scores, then End game with totals."""
    s, expect = straight["summary"], straight["game"].expect
    assert s is not None and s["finished"] and s["links"] == expect["links"] == 6
    assert expect["asked"] == 2 and expect["illegal"] == 1 and s["scores"] == expect["scores"]
    assert set(s["totals"]) == {"red", "white"}


def test_sigkill_then_restart_ends_as_the_uninterrupted_run(straight: dict[str, Any],
                                                            tmp_path: Path) -> None:
    """Three SIGKILLs (the first two in a row on one state folder; at least two with a game
    in the journal), each state folder then run to the end: the same summary."""
    kills, with_game = rg.kills_then_same_summary(straight, tmp_path, random.Random(9))
    assert kills >= 3 and with_game >= 2
