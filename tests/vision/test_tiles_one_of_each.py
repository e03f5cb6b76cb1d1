"""group.one_of_each: a box that holds each (shape, colour) once mends the grouping."""

from __future__ import annotations

import numpy as np

from vision.tiles.group import agglomerate_cut, one_of_each, pairwise


def _groups(shape_x: list[float], colour_x: list[float], most: int | None = 3, dearest: float = 0.5,
            copies: int = 1) -> tuple[list[int], list[int], list[int], list[int]]:
    sd = pairwise(np.array(shape_x)[:, None])
    cd = pairwise(np.array(colour_x)[:, None])
    sg, s_cut = agglomerate_cut(sd, 1.0, most)
    cg, c_cut = agglomerate_cut(cd, 1.0, most)
    s2, c2 = one_of_each(sd, cd, sg, cg, (s_cut, c_cut), copies, (most, most), dearest)
    return sg, cg, s2, c2


def test_a_tile_alike_in_both_with_another_moves_to_the_near_group_with_room() -> None:
    """Tile 2's colour lies between colours 0 and 3, read with tile 0's; its shape is
    tile 0's too, so it takes the colour group of tile 3, where its pair has room."""
    sg, cg, s2, c2 = _groups([0.0, 5.0, 0.0, 5.0], [0.0, 0.0, 0.48, 1.0])
    assert (sg[2], cg[2]) == (sg[0], cg[0])
    assert s2 == sg and c2 == [0, 0, 1, 1]


def test_the_cheaper_of_the_two_tiles_moves() -> None:
    """Of two tiles alike in both, the one nearer another group moves; the other stays."""
    sg, cg, s2, c2 = _groups([0.0, 0.0, 5.0], [0.45, 0.0, 1.5], most=2, dearest=1.0)
    assert (sg[0], cg[0]) == (sg[1], cg[1])
    assert s2 == sg and c2[0] == c2[2] != c2[1]


def test_a_dear_move_is_not_made() -> None:
    """Two tiles alike in both and far from every other group stay as read."""
    sg, cg, s2, c2 = _groups([0.0, 0.1, 5.0], [0.0, 0.1, 5.0], dearest=0.5)
    assert (s2, c2) == (sg, cg) and (s2[0], c2[0]) == (s2[1], c2[1])


def test_a_new_group_is_made_only_while_fewer_than_the_count_exist() -> None:
    """A group of its own counts as the cut away, and is there only below the count."""
    shapes, colours = [0.0, 0.0, 5.0], [0.0, 0.3, 5.0]
    _, _, s2, c2 = _groups(shapes, colours, most=3, dearest=1.0)
    assert len({(s, c) for s, c in zip(s2, c2)}) == 3
    sg, cg, s3, c3 = _groups(shapes, colours, most=2, dearest=1.0)
    assert (s3, c3) == (sg, cg)                    # both kinds at their count of 2: no room


def test_a_box_of_two_copies_keeps_two_alike_tiles() -> None:
    """With two copies of each pair in the box, two tiles alike in both are left alone."""
    sg, cg, s2, c2 = _groups([0.0, 0.0, 5.0, 5.0], [0.0, 0.45, 1.0, 1.0], copies=2)
    assert (s2, c2) == (sg, cg)


def test_groups_stay_numbered_by_their_first_member() -> None:
    """After a move, groups are numbered in order of their first tile, as agglomerate does."""
    _, _, s2, c2 = _groups([0.0, 5.0, 0.0, 5.0], [0.0, 0.0, 0.48, 1.0])
    for lab in (s2, c2):
        seen: list[int] = []
        for g in lab:
            if g not in seen:
                seen.append(g)
        assert seen == list(range(len(seen)))
