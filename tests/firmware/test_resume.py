"""SIGKILL at random points of a scripted game, restart, and the same final state and scores.

Runs the real `tableref run --camera frames:DIR --buttons script:FILE --display png:DIR
--state-dir TMP` in a subprocess (the mini table's reader registered for town77). The
bench (`tableref bench --game loop`) does the same with >= 50 kills per game.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import pytest

import minitable
from firmware.journal import load
from firmware.loop import summary_from_journal

HERE = Path(__file__).parent
RUNNER = HERE / "run_minitable.py"
# End the game after the recording: MENU > (Back, P? leaves, Undo, End game) > End game,
# then tiles left: P1 = 1, P2 = 0, then dismiss the ranking.
SCRIPT = "menu\nnext\nnext\nnext\nselect\nnext\nselect\nselect\nselect\n"


def run_cmd(frames: Path, script: Path, state: Path, png: Path) -> list[str]:
    return [sys.executable, str(RUNNER), "run", "--game", "town77", "--players", "2",
            "--camera", f"frames:{frames}", "--buttons", f"script:{script}",
            "--display", f"png:{png}", "--state-dir", str(state)]


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("rec")
    placements = minitable.legal_game(11, 8)
    frames = root / "frames"
    frames.mkdir()
    for i, f in enumerate(minitable.game_frames(placements, 11, size=(640, 480))):
        cv2.imwrite(str(frames / f"{i:04d}.png"), f)
    script = root / "buttons.txt"
    script.write_text(SCRIPT)
    state = root / "straight"
    t = time.perf_counter()
    subprocess.run(run_cmd(frames, script, state, root / "png0"), check=True,
                   capture_output=True, timeout=120)
    duration = time.perf_counter() - t
    summary = summary_from_journal(load(state / "journal.jsonl").records)
    return {"frames": frames, "script": script, "summary": summary, "duration": duration,
            "placements": placements, "root": root}


def test_uninterrupted_run_referees_the_whole_game(recording: dict[str, Any]) -> None:
    """The reference run itself: every placement, then the end with the ranking."""
    s = recording["summary"]
    assert s["finished"] and s["moves"] == len(recording["placements"]) + 1
    assert s["ranking"] == [[1, 1, 0], [0, 2, 1]]


def test_sigkill_at_random_points_then_restart_gives_the_same_result(recording: dict[str, Any],
                                                                       tmp_path: Path) -> None:
    """Four random SIGKILLs (mid-write included), each followed by a restart, end equal."""
    rng = random.Random(5)
    kills = 0
    for trial in range(10):
        if kills >= 4:
            break
        state = tmp_path / f"s{trial}"
        cmd = run_cmd(recording["frames"], recording["script"], state, tmp_path / f"p{trial}")
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(rng.uniform(0.1, 0.7 * recording["duration"]))
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            kills += 1
        proc.wait(timeout=60)
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
        got = summary_from_journal(load(state / "journal.jsonl").records)
        assert got == recording["summary"]
    assert kills >= 4


def test_sigterm_closes_cleanly(recording: dict[str, Any], tmp_path: Path) -> None:
    """SIGTERM mid-game: exit 0, journal loadable without problems, parked screen last."""
    png = tmp_path / "png"
    cmd = run_cmd(recording["frames"], recording["script"], tmp_path / "s", png)
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    # mid-game: after the game's settings and a first move are journalled (a fixed sleep
    # landed in start-up's imports on a loaded machine, before the loop's handler exists)
    journal = tmp_path / "s" / "journal.jsonl"
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline and (
            not journal.exists() or journal.read_bytes().count(b"\n") < 3):
        time.sleep(0.01)
    assert proc.poll() is None, "the run ended before it could be stopped mid-game"
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 0
    assert load(tmp_path / "s" / "journal.jsonl").problem is None
    from PIL import Image

    from firmware.screens.base import parked_screen
    last = sorted(png.glob("*.png"))[-1]
    assert Image.open(last).convert("1").tobytes() == parked_screen("Stopped").tobytes()
