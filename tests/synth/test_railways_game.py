"""Frame-by-frame tables of a simulated Paperclip Railways game (vision.synth.railways_game)."""

from __future__ import annotations

import math
import random

from firmware.bench.railways_games import bench_catalogue, positions
from rules.railways.simulate import SimGeometry, simulate_game
from rules.railways.state import BuiltLink
from vision.synth.railways_game import build_moves, new_table, scene_after_move
from vision.synth.randomize import easy_environment
from calibration.profile import default_profile


def _table(seed: int, players: int, variant: str = "metropolis"):  # type: ignore[no-untyped-def]
    cat = bench_catalogue()
    game = simulate_game(random.Random(seed), players, variant, cat)
    env = easy_environment((320, 240), default_profile("railways"))
    return game, new_table(game, seed, (320, 240), cat, environment=env)


def test_each_link_is_a_chain_of_its_clips_along_its_path() -> None:
    """Every built link is drawn once, with its clip count, from its path's start to its end."""
    game, table = _table(4, 3)
    k = build_moves(game)[5]
    scene = scene_after_move(table, k)
    chains = [p for p in scene["pieces"] if p["kind"] == "clip_chain"]
    built = [m for m in game.moves[:k] if isinstance(m.move, BuiltLink)]
    assert len(chains) == len(built) == 6
    for piece, m in zip(chains, built):
        assert isinstance(m.move, BuiltLink)
        assert piece["colour"] == m.move.colour and len(piece["clips"]) == m.move.clips
        start = (m.path[0][0] + 40.0, m.path[0][1] + 40.0)
        assert math.dist(start, piece["clips"][0]["start"]) < 0.5


def test_the_table_keeps_its_pieces_between_frames() -> None:
    """A link, cube or station looks the same in every later frame (only the move changes pixels)."""
    game, table = _table(9, 2)
    a, b = build_moves(game)[2], build_moves(game)[3]
    first = scene_after_move(table, a)
    later = scene_after_move(table, b)
    for p in first["pieces"]:
        assert p in later["pieces"]
    assert first["camera"] == later["camera"] and first["surface"] == later["surface"]


def test_cubes_follow_the_rules_state() -> None:
    """The cubes drawn on the stations are the engine's cubes after the move."""
    cat = bench_catalogue()
    game, table = _table(2, 4)
    k = build_moves(game)[-1]
    scene = scene_after_move(table, k)
    drawn = sorted(p["colour"] for p in scene["pieces"] if p["kind"] == "rail_cube")
    pos = positions(game, cat)[k]
    assert drawn == sorted(c for s in pos.stations for c in s.cubes)


def test_gigantopolis_board_and_river_count() -> None:
    """Gigantopolis has its blank board; the River is always 32 clips."""
    game, table = _table(1, 2, "gigantopolis")
    scene = scene_after_move(table, 0)
    kinds = [p["kind"] for p in scene["pieces"]]
    assert kinds.count("blank_board") == 1 and "metropolis" not in kinds
    river = next(p for p in scene["pieces"] if p["kind"] == "river")
    assert len(river["clips"]) == 32 and river["colours"].count("silver") == 2
    assert SimGeometry().board_mm == 140.0


def test_a_frame_renders() -> None:
    """A small frame of a game table renders (seeded, same pixels twice)."""
    from vision.synth.scene import render_scene

    game, table = _table(3, 2)
    scene = scene_after_move(table, build_moves(game)[0])
    a = render_scene(scene).image
    b = render_scene(scene).image
    assert a.shape == (240, 320, 3) and (a == b).all()


def test_the_truth_is_the_drawn_chain() -> None:
    """A chain drawn across an obstacle tile its path missed is charged for the tile in the game's truth, and only that changes."""
    from vision.synth.railways_game import drawn_game

    game, table = _table(4, 3)
    before = drawn_game(table)
    builds = [i for i, m in enumerate(before.moves) if isinstance(m.move, BuiltLink)]
    j, k = next((j, k) for j, k in enumerate(builds) if before.moves[k].move.obstacles == 0)  # type: ignore[union-attr]
    tile = game.layout.obstacles[0][0]
    cx, cy = table.mm((tile.cx, tile.cy))
    chain = table.chains[j][0]
    mid = len(chain["clips"]) // 2
    chain["clips"][mid] = {**chain["clips"][mid], "start": [cx - 12.0, cy], "end": [cx + 12.0, cy]}
    after = drawn_game(table)
    b = after.moves[k].move
    assert isinstance(b, BuiltLink) and b.obstacles == 1
    drop = {c: before.final.totals[c] - after.final.totals[c] for c in before.final.totals}
    assert drop[b.colour] > 0 and all(v == 0 for c, v in drop.items() if c != b.colour)
