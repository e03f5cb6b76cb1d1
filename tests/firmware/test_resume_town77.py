"""Resume of multiplayer Town 77 under SIGKILL, several kills in a row on one state
folder (tests/firmware/test_resume.py kills once per folder): the mini table's game
through the real `tableref run`, then the uninterrupted run's ranking.

The bench (`tableref bench --game loop`) does the same with >= 50 kills."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

import resume_games as rg


@pytest.fixture(scope="module")
def straight(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("town77")
    return rg.reference(rg.town77_game(root / "game", seed=21, moves=7), root / "straight")


def test_uninterrupted_run_referees_the_scripted_game(straight: dict[str, Any]) -> None:
    """The reference run: every placement, then End game with the tiles-left ranking."""
    s = straight["summary"]
    assert s is not None and s["finished"] and s["moves"] == straight["game"].expect["moves"]
    assert s["ranking"] == [[1, 1, 0], [0, 2, 1]]


def test_repeated_sigkills_then_restart_end_as_the_uninterrupted_run(straight: dict[str, Any],
                                                                     tmp_path: Path) -> None:
    """Three SIGKILLs in a row on one state folder, then the same summary."""
    t = rg.kill_then_finish(straight["game"], tmp_path / "s", random.Random(13), straight["records"],
                            straight["duration"], 3, starts=10)
    assert t.returncode == 0 and "Traceback" not in t.stderr, t.stderr
    assert t.kills == 3 and t.into_game >= 1 and t.summary == straight["summary"]
