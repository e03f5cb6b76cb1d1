"""The games bench's players, asked, take the true link as the table shows it: where the true
count and ends are offered twice with other crossings, the labels show the crossings and they
pick the true ones."""

from __future__ import annotations

import copy
import random
from typing import Any, Sequence

from firmware.bench.railways_games import bench_catalogue, oracle_reader, play_game
from rules.railways.simulate import simulate_game


def test_a_second_reading_of_the_new_link_listing_a_tile_is_not_taken() -> None:
    """Each new link read twice, first with an obstacle it does not touch: every build is asked
    (two new links at once) and taken with the true crossings; the game ends right."""
    catalogue = bench_catalogue()
    game = simulate_game(random.Random(7), 3, "metropolis", catalogue)
    truth = oracle_reader(game, catalogue)

    def read(moves: int, extra: Sequence[dict[str, Any]], prev: Any) -> dict[str, Any]:
        out = truth(moves, extra, prev)
        if prev is not None and prev != "back" and not extra and out["links"]:
            spoilt = copy.deepcopy(out["links"][-1])
            spoilt["crosses"] = list(spoilt["crosses"]) + ["obstacle"]
            out["links"].insert(len(out["links"]) - 1, spoilt)
        return out

    score = play_game(game, catalogue, read, random.Random(7))
    assert score.builds > 0 and score.asked == score.builds
    assert score.facts_wrong == 0 and score.scores_equal
