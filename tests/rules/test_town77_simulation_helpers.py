"""The placement helpers simulated games and the demo share: a random legal placement and
the row/column mistakes players make."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.town77.city import City
from rules.town77.placement import is_legal, line_mistakes, random_placement, why_illegal
from rules.town77.tiles import ALL_TILES


def _city(seed: int, n: int) -> tuple[City, list]:
    rng = random.Random(seed)
    bag = list(ALL_TILES)
    rng.shuffle(bag)
    city = City.with_pioneer(bag.pop())
    for _ in range(n):
        pick = random_placement(city, bag, rng)
        if pick is None:
            break
        bag.remove(pick[0])
        city = city.with_tile(pick[1], pick[0])
    return city, bag


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 20))
def test_random_placement_is_always_legal(seed: int, n: int) -> None:
    """Every placement random_placement picks is legal, and it picks one whenever one exists."""
    city, bag = _city(seed, n)
    pick = random_placement(city, bag, random.Random(seed))
    if pick is None:
        assert not any(is_legal(city, t, c) for t in bag for c in _cells())
    else:
        assert pick[0] in bag and is_legal(city, *pick)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 20))
def test_line_mistakes_touch_the_city_and_break_the_line_rule(seed: int, n: int) -> None:
    """Each mistake is a free cell beside the city refused for a shape or colour in its line."""
    city, bag = _city(seed, n)
    for tile, cell in line_mistakes(city, bag):
        assert city[cell] is None
        assert why_illegal(city, tile, cell).name.startswith("SAME_")  # type: ignore[union-attr]


def _cells() -> list:
    from rules.town77.city import ALL_CELLS
    return list(ALL_CELLS)


def test_line_mistakes_of_a_lone_pioneer() -> None:
    """Beside pioneer a0 a tile of its shape or colour is a mistake at B1 and A2; b1 is none."""
    from rules.town77.city import Cell
    from rules.town77.tiles import Tile

    city = City.with_pioneer(Tile.parse("a0"))
    got = line_mistakes(city, [Tile.parse(x) for x in ("a1", "b0", "b1")])
    assert [(t.token, c.name) for t, c in got] == [("a1", "B1"), ("a1", "A2"), ("b0", "B1"), ("b0", "A2")]
    assert Cell.parse("B1") in [c for _, c in got]
