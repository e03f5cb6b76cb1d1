"""Taking a tile from a tall pile at the table's edge changes pixels beside the pile (its
sides and shadow as it gets shorter): the guard must not take that for a foreign object."""

from __future__ import annotations

from pathlib import Path

import resume_games


def test_challenge_with_a_tall_edge_pile_is_refereed_to_the_end(tmp_path: Path) -> None:
    """Seed 1's Challenge (tall left pile at the edge) is played through the loop to end A."""
    game = resume_games.challenge_game(tmp_path / "game", 1)
    summary, _, _ = resume_games.straight_run(game, tmp_path / "state")
    assert resume_games.follows(game, summary) is None
