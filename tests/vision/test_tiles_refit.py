"""The lattice refit to the tiles' centres (pipeline.read_tiles' refits, grid.refine_grid)
on two traced cities of the issue's kind."""

from __future__ import annotations

from tests.vision.seeded_cities import score_city


def test_a_few_centred_prints_with_diagonal_neighbours_keep_their_lattice() -> None:
    """City 5299 (blurred outlined prints, eight of them clear, most of their neighbours
    diagonal): the refit keeps the right lattice, so 21 of its 22 tiles are read (7 when
    a diagonal neighbour was taken for a side one and the lattice turned 23 degrees)."""
    s = score_city(5299)
    assert s.found >= 21 and s.extra == 0


def test_a_refit_finer_than_any_tile_is_no_lattice() -> None:
    """City 5458 (one tile): the refit to its print's pieces goes to a 6 mm pitch, finer
    than any tile; it is not taken, and the tile is read alone, no phantom beside it."""
    s = score_city(5458)
    assert (s.found, s.extra) == (1, 0)
