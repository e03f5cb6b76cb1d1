"""A taught palette names the reader's groups (vision.tiles.palette.assign): each label
once while labels last, the least product of distances over all namings."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.tiles.palette import assign, name_groups


def test_a_group_nearer_anothers_prototype_leaves_it_to_that_group() -> None:
    """City 0 of the colour bench's seed 2 (distances measured there): the hexagons lie
    0.114 from the hexagon's prototype and 0.163 from the circle's; the circles 0.076
    from the hexagon's and 0.092 from the circle's. Closest first named the circles
    hexagons and the hexagons circles; the least product names both right."""
    dist = np.array([[0.114, 0.163],
                     [0.076, 0.092]])
    assert assign(dist) == [0, 1]


def test_a_group_near_no_label_takes_the_one_left_over() -> None:
    """The labels bench's city 5013 (colour distances measured there, in delta E): blue
    read as two groups (two tiles 4.0 from the blue prototype, one 28.8 from it) and
    green folded into the lime and teal groups. The least sum named the lone blue
    blue and passed its distance down a chain (blue pair cyan, cyan teal, teal
    green: 6 of 19 tiles wrong); the product leaves the other groups their own names
    and the lone blue the green left over."""
    labels = ["green", "lime", "blue", "teal", "black", "cyan", "pink"]
    dist = np.array([
        [28.918, 4.622, 68.656, 26.013, 35.757, 51.061, 66.563],     # lime (3 lime, 1 green)
        [45.397, 42.332, 36.181, 26.164, 5.475, 30.080, 42.109],     # black
        [76.250, 67.487, 3.975, 42.643, 32.943, 22.280, 35.829],     # blue, two tiles
        [57.628, 45.682, 31.287, 18.267, 25.198, 8.869, 49.079],     # cyan
        [77.824, 60.423, 35.033, 47.672, 35.023, 43.619, 8.460],     # pink
        [35.324, 26.550, 50.056, 6.390, 23.341, 29.202, 59.800],     # teal (3 teal, 1 green)
        [102.936, 98.987, 28.767, 74.197, 61.498, 51.915, 53.554],   # blue, one tile
    ])
    assert [labels[i] for i in assign(dist)] == ["lime", "black", "blue", "cyan", "pink", "teal", "green"]


def _brute(dist: np.ndarray) -> float:
    g, k = dist.shape
    return min(sum(np.log(dist[i, p[i]]) for i in range(g)) for p in itertools.permutations(range(k), g))


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 6), st.integers(0, 3))
def test_the_naming_is_the_least_sum_each_label_once(seed: int, g: int, extra: int) -> None:
    """With no more groups than labels, every group has its own label and the product
    of the distances is the least over all namings."""
    d = np.random.default_rng(seed).random((g, g + extra)) + 0.01
    got = assign(d)
    assert len(set(got)) == g
    assert abs(sum(np.log(d[i, got[i]]) for i in range(g)) - _brute(d)) < 1e-9


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 5), st.integers(1, 3))
def test_groups_beyond_the_labels_take_their_nearest(seed: int, k: int, extra: int) -> None:
    """More groups than labels: every label is given once to the groups that make the
    least product, and each group left over takes its nearest label."""
    d = np.random.default_rng(seed).random((k + extra, k)) + 0.01
    got = assign(d)
    assert sorted(set(got)) == list(range(k))
    chosen = min(itertools.permutations(range(k + extra), k),
                 key=lambda p: sum(np.log(d[p[j], j]) for j in range(k)))
    assert all(got[chosen[j]] == j for j in range(k))
    for i in set(range(k + extra)) - set(chosen):
        assert got[i] == int(np.argmin(d[i]))


@dataclass
class _Look:
    shape: np.ndarray


@dataclass
class _Tile:
    """What name_groups reads and writes of a tile."""

    look: _Look
    colour_lab: np.ndarray
    shape_group: int | None
    colour_group: int | None
    shape: str | None = None
    colour: str | None = None


def _palette() -> dict[str, object]:
    """Two shapes (descriptors of 4 angles x 2 radii) and two colours."""
    return {"shapes": {"circle": {"descriptor": [1, 0] * 4}, "square": {"descriptor": [1, 1] * 4}},
            "colours": {"red": {"lab": [50, 60, 40]}, "blue": {"lab": [40, 10, -50]}}}


def test_a_tile_much_nearer_another_prototype_is_named_by_it() -> None:
    """A group of three circles and one square misread into it: the group is named
    circle, the square (on the square's prototype, far from the circle's) is named
    square; a tile only a little nearer another prototype keeps its group's name."""
    circle, square, between = [1.0, 0.0] * 4, [1.0, 1.0] * 4, [1.0, 0.55] * 4
    tiles = [_Tile(_Look(np.array(v, dtype=np.float32)), np.array([50.0, 60.0, 40.0]), 0, 0)
             for v in (circle, circle, circle, square, between)]
    name_groups(tiles, _palette(), angles=4, max_shift=0)
    assert [t.shape for t in tiles] == ["circle", "circle", "circle", "square", "circle"]
    assert {t.colour for t in tiles} == {"red"}


def test_with_no_share_every_tile_keeps_its_groups_name() -> None:
    """own_nearer 0: the naming of whole groups alone, as before session 45."""
    tiles = [_Tile(_Look(np.array(v, dtype=np.float32)), np.array([50.0, 60.0, 40.0]), 0, 0)
             for v in ([1.0, 0.0] * 4, [1.0, 0.0] * 4, [1.0, 1.0] * 4)]
    name_groups(tiles, _palette(), angles=4, max_shift=0, own_nearer=0.0)
    assert [t.shape for t in tiles] == ["circle"] * 3
