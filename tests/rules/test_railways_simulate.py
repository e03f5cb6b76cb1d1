"""The random-game simulator the vision benchmark lays out on the synthetic table."""

from __future__ import annotations

import math
import random

from rules.railways import BuiltLink
from rules.railways.geometry import polyline_length
from rules.railways.simulate import SimGeometry, simulate_game


def test_same_seed_same_game() -> None:
    """A seed fixes the whole game, moves and geometry alike."""
    a = simulate_game(random.Random(3), 3, "metropolis")
    b = simulate_game(random.Random(3), 3, "metropolis")
    assert a == b
    assert a != simulate_game(random.Random(4), 3, "metropolis")


def test_build_paths_are_clips_long_and_inside_the_area() -> None:
    """Each build's path is as long as its chain, starts and ends in its stations, stays inside."""
    g = SimGeometry()
    game = simulate_game(random.Random(11), 4, "gigantopolis", geometry=g)
    rects = dict(game.layout.stations)
    builds = [m for m in game.moves if isinstance(m.move, BuiltLink)]
    assert len(builds) >= 5
    for m in builds:
        assert isinstance(m.move, BuiltLink)
        if m.new_station is not None:
            rects[m.move.to_station] = m.new_station
        assert math.isclose(polyline_length(m.path), g.chain_mm(m.move.clips), rel_tol=1e-6)
        assert rects[m.move.from_station].contains(m.path[0])
        assert rects[m.move.to_station].contains(m.path[-1])
        assert all(0 <= c <= g.area_mm for p in m.path for c in p)


def test_geometry_facts_show_up_over_a_few_games() -> None:
    """Across a few games the measured facts include touched links, obstacles and new stations."""
    builds = [m.move for seed in range(4) for m in simulate_game(random.Random(seed), 5).moves
              if isinstance(m.move, BuiltLink)]
    assert any(b.touches_links for b in builds)
    assert any(b.obstacles for b in builds)
    assert any(b.new_card for b in builds) and any(not b.new_card for b in builds)


def test_scene_after_grows_with_the_builds() -> None:
    """scene_after(game, k) holds the set-up stations plus every station and link built by move k."""
    from rules.railways.simulate import scene_after
    game = simulate_game(random.Random(5), 3)
    start = scene_after(game, 0)
    assert set(start.stations) == {s.sid for s in game.start.stations} and start.links == ()
    end = scene_after(game, len(game.moves))
    assert [(lid, c, n) for lid, c, n, _ in end.links] == [(k.lid, k.colour, k.clips) for k in game.end.links]
    assert set(end.stations) == {s.sid for s in game.end.stations}
    assert all(end.stations[s.sid][1] == s.card for s in game.end.stations)


def test_clips_for_distance_matches_chain_length() -> None:
    """clips_for_distance gives the fewest clips whose chain reaches the distance."""
    from rules.railways.geometry import clips_for_distance
    g = SimGeometry()
    for d in (1.0, 31.9, 32.0, 32.1, 54.0, 54.1, 500.0):
        n = clips_for_distance(d, g.clip_pitch_mm, g.clip_length_mm)
        assert g.chain_mm(n) >= d - 1e-9 and (n == 1 or g.chain_mm(n - 1) < d)
    assert clips_for_distance(231.0, 14.0) == 17 and clips_for_distance(0.0, 14.0) == 0


def test_links_into_metropolis_name_the_section_they_reach() -> None:
    """A simulated link ending on the Metropolis board carries the quadrant it ends in."""
    ends = [(m.move.to_section, m.path[-1]) for seed in range(3) for m in simulate_game(random.Random(seed), 4).moves
            if isinstance(m.move, BuiltLink) and m.move.to_station == "M"]
    assert ends
    for section, (x, y) in ends:
        c = SimGeometry().area_mm / 2
        assert section == {(False, False): 1, (True, False): 2, (True, True): 3, (False, True): 4}[(x >= c, y >= c)]


def test_replayed_scores_other_facts_by_the_rules() -> None:
    """A game replayed with its own moves is the same game; one more obstacle on a build costs its builder the penalty."""
    from dataclasses import replace

    from rules.railways.simulate import replayed

    game = simulate_game(random.Random(5), 3, "metropolis")
    moves = [m.move for m in game.moves]
    assert replayed(game, moves) == game
    k = next(i for i, m in enumerate(moves) if isinstance(m, BuiltLink))
    b = moves[k]
    assert isinstance(b, BuiltLink)
    other = replayed(game, moves[:k] + [replace(b, obstacles=b.obstacles + 1)] + moves[k + 1:])
    drop = {c: game.final.totals[c] - other.final.totals[c] for c in game.final.totals}
    assert drop[b.colour] > 0 and all(v == 0 for c, v in drop.items() if c != b.colour)
    assert other.moves[k].scores[b.colour] == game.moves[k].scores[b.colour] - drop[b.colour]
