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


def test_pieces_of_one_print_are_refitted_as_they_fit() -> None:
    """City 5458 (one tile): with diagonal pairs left out, the refit to its print's
    pieces comes out 6 mm, further from the lattice read than all pairs' 7.9 mm; taken
    as all pairs fit it, the tile is read alone, no phantom beside it."""
    s = score_city(5458)
    assert (s.found, s.extra) == (1, 0)
