"""Scripted games of every finished game kind, replayable by `tableref run` in a subprocess,
and the kill-restart-compare step the resume tests and `tableref bench --game loop` share.

Each game is a folder of PNG frames, a button script and (Challenge, Railways) the
recorded truth reading per frame. What is measured is the LOOP and the JOURNAL (a restart
after SIGKILL ends where the uninterrupted run ends), not a reader:
- town77: the mini table (real ArUco markers, tiles decoded from pixels);
- town77-challenge: vision.synth Challenge frames, read by their recorded truth
  (tests/firmware/town77_challenge_truth_reader.py, group ids renumbered per frame);
- railways: vision.synth frames of a simulated game, read by their recorded truth
  (tests/firmware/railways_truth_reader.py); some links are read with a low confidence,
  so the players are asked the clip count and the script answers it.

A restarted run replays the same button script from its first line (the journal does not
record presses that changed nothing), so the scripts hold only answers that mean the same
at every restart: SELECT at each setup screen and question (the proposed count, the first
candidate), then the end of the game. Menu actions that would apply a move (Hint, a draw)
are left out: pressed again after a restart they would be a second move, which is the
script's doing, not the loop's.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

HERE = Path(__file__).resolve().parent
KINDS = ("town77", "town77-challenge", "railways")
ANSWERS = 24            # SELECTs for setup screens and questions (extra ones do nothing)
END_GAME = "menu\nprev\nselect\n"   # MENU, then End game (always the last item)


@dataclass
class ScriptedGame:
    """One recorded game: how to run it, and what the uninterrupted run must show."""

    kind: str
    frames: Path
    script: Path
    runner: Path
    args: list[str]
    env: dict[str, str] = field(default_factory=dict)
    expect: dict[str, Any] = field(default_factory=dict)   # facts of the truth (sanity checks)

    def cmd(self, state: Path) -> list[str]:
        return [sys.executable, str(self.runner), "run", "--game", self.kind, *self.args,
                "--camera", f"frames:{self.frames}", "--buttons", f"script:{self.script}",
                "--display", "null", "--state-dir", str(state)]

    def environ(self) -> dict[str, str]:
        return {**os.environ, **self.env}


# ---- the three games ------------------------------------------------------------------------

def town77_game(root: Path, seed: int, moves: int) -> ScriptedGame:
    """A two-player Town 77 game on the mini table with hands and cups between moves;
    then End game with the tiles left P1 = 1, P2 = 0."""
    sys.path.insert(0, str(HERE))
    import minitable

    placements = minitable.legal_game(seed, moves)
    frames = root / "frames"
    frames.mkdir(parents=True)
    for i, f in enumerate(minitable.game_frames(placements, seed, size=(640, 480))):
        cv2.imwrite(str(frames / f"{i:04d}.png"), f)
    script = root / "buttons.txt"
    script.write_text("menu\nnext\nnext\nnext\nselect\nnext\nselect\nselect\nselect\n")
    return ScriptedGame("town77", frames, script, HERE / "run_minitable.py", ["--players", "2"],
                        expect={"moves": len(placements) + 1})


def challenge_game(root: Path, seed: int, max_moves: int | None = None,
                   looks: int = 2) -> ScriptedGame:
    """A solo Challenge (the hint policy) played to end A or `max_moves` placements,
    rendered by vision.synth at 640x480 (one light and noise for the whole game), each
    table looked at `looks` times as the device looks again at a still table it could not
    settle (a first move and a question need two agreeing looks); then End game."""
    from calibration.profile import default_profile
    from town77_challenge_truth_reader import digest
    from vision.synth import render_scene
    from vision.synth.randomize import easy_environment
    from vision.synth.town77_challenge import (challenge_game as play, challenge_scene,
                                               challenge_style, truth_observation)

    game = play(seed, "hint", max_moves=max_moves)
    style = challenge_style(seed, art="light", angle_deg=3.0)
    env = easy_environment((640, 480), default_profile("town77"))
    frames = root / "frames"
    frames.mkdir(parents=True)
    truth: dict[str, Any] = {}
    for i, f in enumerate(game):
        scene = challenge_scene(f, style, env, seed=seed * 100)
        image = np.ascontiguousarray(render_scene(scene).image, dtype=np.uint8)
        for look in range(looks):
            cv2.imwrite(str(frames / f"{i:04d}-{look}.png"), image)
        truth[digest(image)] = truth_observation(scene["meta"], seed * 100 + i)
    (root / "truth.json").write_text(json.dumps(truth))
    script = root / "buttons.txt"
    script.write_text("select\n" * ANSWERS + END_GAME)
    return ScriptedGame("town77-challenge", frames, script, HERE / "run_town77_challenge_truth.py", [],
                        env={"TOWN77_CHALLENGE_TRUTH": str(root / "truth.json")},
                        expect={"placed": len(game) - 1, "cells": sorted(c.name for c, _ in game[-1].city)})


def railways_game(root: Path, seed: int, max_builds: int | None = None,
                  ask_every: int = 3, illegal_before: int = 2) -> ScriptedGame:
    """A simulated two-player Metropolis game, rendered at 640x480 after the set-up (seen
    twice) and after each build up to the first End of Line (the camera cannot see one;
    the players tell it), then End game. Every `ask_every`-th link is read with a low
    confidence: its frame is looked at twice (a question waits for two agreeing looks)
    and the players answer the clip count with SELECT (the count read). Before build
    `illegal_before` (0-based) the player to move lays a link from stations they do not
    own: alerted, never applied, then taken back."""
    from calibration.profile import default_profile
    from firmware.bench.railways_games import bench_catalogue, illegal_link, positions, true_reading
    from railways_truth_reader import digest
    from rules.railways.engine import rules_for
    from rules.railways.simulate import simulate_game
    from rules.railways.state import END_OF_LINE, BuiltLink, Draw
    from vision.synth.railways_game import link_piece, new_table, scene_after_move
    from vision.synth.randomize import easy_environment
    from vision.synth.scene import render_scene

    catalogue = bench_catalogue()
    game = simulate_game(random.Random(seed), 2, "metropolis", catalogue, build_chance=1.0)
    truth_pos = positions(game, catalogue)
    n_draw = rules_for(game.variant, catalogue).draw_count(2)
    builds: list[int] = []
    for k, m in enumerate(game.moves):
        if isinstance(m.move, Draw) and END_OF_LINE in truth_pos[k].deck[:n_draw]:
            break
        if isinstance(m.move, BuiltLink):
            builds.append(k + 1)
    builds = builds[:max_builds]
    table = new_table(game, seed, (640, 480), catalogue,
                      environment=easy_environment((640, 480), default_profile("railways")))
    frames = root / "frames"
    frames.mkdir(parents=True)
    # (moves, low confidence, an illegal link laid on the table) per frame
    shots: list[tuple[int, bool, dict[str, Any] | None]] = [(0, False, None), (0, False, None)]
    illegal = 0
    for i, k in enumerate(builds):
        if i == illegal_before:
            bad = illegal_link("not-owned", game, k - 1, truth_pos[k - 1], catalogue,
                               random.Random(seed))
            if bad is not None:   # laid, alerted, taken back
                shots += [(k - 1, False, bad), (k - 1, False, None)]
                illegal += 1
        low = ask_every > 0 and i % ask_every == ask_every - 1
        shots += [(k, low, None), (k, low, None)] if low else [(k, False, None)]
    truth: dict[str, Any] = {}
    asked: set[int] = set()
    for i, (k, low, bad) in enumerate(shots):
        extra = [link_piece(table, f"illegal:{k}", bad["colour"], bad["clips"], bad["path"])] if bad else []
        image = np.ascontiguousarray(render_scene(scene_after_move(table, k, extra)).image, dtype=np.uint8)
        cv2.imwrite(str(frames / f"{i:04d}.png"), image)
        reading = true_reading(game, k, catalogue, [bad] if bad else [])
        if low and reading["links"]:
            reading["links"][-1]["confidence"] = 0.3
            asked.add(k)
        truth[digest(image)] = reading
    (root / "truth.json").write_text(json.dumps(truth))
    script = root / "buttons.txt"
    script.write_text("select\n" * ANSWERS + END_GAME)   # variant, first player, then answers
    last = builds[-1] if builds else 0
    scores = {p.colour: p.score for p in truth_pos[last].players}
    return ScriptedGame("railways", frames, script, HERE / "run_railways_truth.py", ["--players", "2"],
                        env={"RAILWAYS_TRUTH": str(root / "truth.json")},
                        expect={"links": len(builds), "scores": scores, "asked": len(asked),
                                "illegal": illegal})


def make_game(kind: str, root: Path, seed: int, size: int | None = None) -> ScriptedGame:
    """The scripted game of `kind`; `size` bounds its moves (placements, builds)."""
    if kind == "town77":
        return town77_game(root, seed, size or random.Random(seed).randint(6, 14))
    if kind == "town77-challenge":
        return challenge_game(root, seed, size)
    if kind == "railways":
        return railways_game(root, seed, size)
    raise ValueError(f"no scripted game for {kind!r}; choose one of {', '.join(KINDS)}")


def follows(game: ScriptedGame, summary: dict[str, Any] | None) -> str | None:
    """Why the uninterrupted run did not referee the drawn game to its end (None: it did).
    A resume figure over games the loop stalled in would measure little."""
    if summary is None or not summary.get("finished"):
        return "the game did not reach its end"
    e = game.expect
    if game.kind == "town77" and summary["moves"] != e["moves"]:
        return f"{summary['moves']} moves journalled, {e['moves']} drawn"
    if game.kind == "town77-challenge" and summary["placed"] != e["placed"]:
        return f"{summary['placed']} placements journalled, {e['placed']} drawn"
    if game.kind == "railways" and (summary["links"], summary["scores"]) != (e["links"], e["scores"]):
        return f"{summary['links']} links scoring {summary['scores']}, drawn {e['links']} scoring {e['scores']}"
    return None


# ---- run, kill, restart ------------------------------------------------------------------------

def summary(state: Path) -> dict[str, Any] | None:
    from firmware.journal import load
    from firmware.loop import summary_from_journal
    return summary_from_journal(load(state / "journal.jsonl").records)


def straight_run(game: ScriptedGame, state: Path) -> tuple[dict[str, Any] | None, int, float]:
    """The uninterrupted run: its final summary, its journal records and its time (s)."""
    t = time.perf_counter()
    done = subprocess.run(game.cmd(state), capture_output=True, text=True, timeout=600,
                          env=game.environ())
    if done.returncode != 0:
        raise RuntimeError(f"{game.kind}: the uninterrupted run failed: {done.stderr[-2000:]}")
    return summary(state), _journal_records(state), time.perf_counter() - t


@dataclass
class Trial:
    """One state folder: killed `kills` times (`into_game` of them with a game journaled),
    then run to the end."""

    kills: int = 0
    runs: int = 0
    into_game: int = 0
    returncode: int = 0
    stderr: str = ""
    summary: dict[str, Any] | None = None


def _journal_records(state: Path) -> int:
    p = state / "journal.jsonl"
    try:
        return p.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def kill_then_finish(game: ScriptedGame, state: Path, rng: random.Random, records: int,
                     duration: float, kills: int, starts: int | None = None) -> Trial:
    """Start the run on the same state folder until `kills` SIGKILLs have landed (at most
    `starts` starts, `kills` by default), each at a random point, then one run to the end;
    the final summary comes from the journal. A start whose kill point comes after the run
    has ended (a loaded machine slows the start, not the game's records) lands no kill.

    A kill point is a random journal length between what the folder holds and the
    last record of the uninterrupted run (exclusive), plus a random delay of up to two mean gaps
    between records (so kills land at start-up, in a resumed replay, between looks, in
    questions and alerts, just after a journal write)."""
    trial = Trial()
    gap = 2.0 * duration / max(1, records)
    for _ in range(kills if starts is None else starts):
        if trial.kills >= kills:
            break
        # below the last record: a kill drawn there lands after the run has ended
        target = rng.randint(min(_journal_records(state), records - 1), records - 1)
        delay = rng.uniform(0.0, gap)
        proc = subprocess.Popen(game.cmd(state), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=game.environ())
        while proc.poll() is None and _journal_records(state) < target:
            time.sleep(0.002)
        time.sleep(delay)
        if proc.poll() is None:
            with_game = _journal_records(state) > 0
            os.kill(proc.pid, signal.SIGKILL)
            trial.kills += 1
            trial.into_game += int(with_game)
        proc.wait()
        trial.runs += 1
    done = subprocess.run(game.cmd(state), capture_output=True, text=True, timeout=600,
                          env=game.environ())
    trial.returncode = done.returncode
    trial.stderr = done.stderr
    trial.summary = summary(state)
    return trial


def reference(game: ScriptedGame, state: Path) -> dict[str, Any]:
    """The uninterrupted run of a game, as the resume tests compare against it."""
    result, records, duration = straight_run(game, state)
    return {"game": game, "summary": result, "records": records, "duration": duration}


def kills_then_same_summary(ref: dict[str, Any], folder: Path, rng: random.Random,
                            wanted: int = 3) -> tuple[int, int]:
    """SIGKILLs on fresh state folders (the first two in a row on one folder) until
    `wanted` have landed, each folder then run to the end, which must exit cleanly with
    the uninterrupted run's summary. Returns (kills, kills with a game in the journal)."""
    kills = with_game = 0
    for trial, n in enumerate((2, 1, 1, 1, 1)):
        if kills >= wanted:
            break
        t = kill_then_finish(ref["game"], folder / f"s{trial}", rng, ref["records"],
                             ref["duration"], n)
        kills += t.kills
        with_game += t.into_game
        assert t.returncode == 0 and "Traceback" not in t.stderr, t.stderr
        assert t.summary == ref["summary"]
    return kills, with_game
