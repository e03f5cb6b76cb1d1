"""The railway set-up bench's scoring (firmware.bench.railways_setups) on true readings."""

from __future__ import annotations

import copy

from firmware.bench.railways_games import bench_catalogue, games_for, true_reading
from firmware.bench.railways_setups import score_setup


def test_true_readings_make_every_setup_right() -> None:
    """The drawn geometry as the reader's JSON is a right set-up, whatever the variant."""
    cat = bench_catalogue()
    for _, game in games_for(8, 0, cat):
        s = score_setup(game, cat, true_reading(game, 0, cat, ()))
        assert s.right and s.stations == s.found == s.kind and not s.problems, s.problems


def test_a_starting_city_unseen_is_not_right_and_named() -> None:
    """A Starting City left out of the reading: not proposed, not right, its id named."""
    cat = bench_catalogue()
    _, game = games_for(1, 0, cat)[0]
    obs = true_reading(game, 0, cat, ())
    start = next(s for s in game.start.stations if s.start)
    gone = next(e for e in obs["stations"] if e.get("player") == start.start)
    obs["stations"].remove(gone)
    s = score_setup(game, cat, obs)
    assert not s.proposed and not s.right and s.found == s.stations - 1
    assert any(p.startswith(f"{start.sid} at ") and p.endswith("not seen") for p in s.problems)


def test_a_wrong_colour_and_a_reading_at_no_station_are_counted() -> None:
    """A Starting City read in another player's colour is seen but not as its kind; a
    reading where no station lies is left over."""
    cat = bench_catalogue()
    _, game = games_for(1, 0, cat)[0]
    obs = true_reading(game, 0, cat, ())
    start = next(s for s in game.start.stations if s.start)
    wrong = copy.deepcopy(obs)
    entry = next(e for e in wrong["stations"] if e.get("player") == start.start)
    entry["player"] = next(c for c in ("red", "white", "green", "black", "yellow") if c != start.start)
    s = score_setup(game, cat, wrong)
    assert s.found == s.stations and s.kind == s.stations - 1 and not s.right
    extra = copy.deepcopy(obs)
    extra["stations"].append({"id": "S99", "type": "town", "centre_mm": [3.0, 3.0]})
    s = score_setup(game, cat, extra)
    assert s.extra == 1 and not s.right and "1 reading(s) at no station" in s.problems
