"""Property-based checks of the Town 77 rule invariants (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.town77.city import ALL_CELLS, FACE_DOWN, Cell, City
from rules.town77.game import MultiplayerGame, Step, three_alike
from rules.town77.placement import is_legal, legal_cells, why_illegal
from rules.town77.tiles import ALL_TILES, Tile

SETTINGS = settings(max_examples=60, deadline=None)


def random_city(seed: int, moves: int, turn_over_chance: float) -> City:
    """Grow a city by random legal placements, now and then turning a tile face down."""
    rng = random.Random(seed)
    city = City.with_pioneer(rng.choice(ALL_TILES))
    for _ in range(moves):
        tiles = [t for t in ALL_TILES if not city.contains(t)]
        rng.shuffle(tiles)
        for tile in tiles:
            cells = legal_cells(city, tile)
            if cells:
                city = city.with_tile(rng.choice(cells), tile)
                break
        if rng.random() < turn_over_chance and city.tiles():
            city = city.turned_over(rng.choice(sorted(city.tiles())))
    return city


def lines_are_clean(city: City) -> bool:
    """No two face-up tiles share a shape or a colour in any row or column."""
    for fixed in range(7):
        for line in ([city[Cell(fixed, i)] for i in range(7)],
                     [city[Cell(i, fixed)] for i in range(7)]):
            tiles = [t for t in line if isinstance(t, Tile)]
            if len({t.shape for t in tiles}) < len(tiles):
                return False
            if len({t.colour for t in tiles}) < len(tiles):
                return False
    return True


cities = st.builds(random_city, st.integers(0, 10**6), st.integers(0, 48),
                   st.sampled_from([0.0, 0.1, 0.3]))


@SETTINGS
@given(cities)
def test_legal_placements_never_break_rows_or_columns(city: City) -> None:
    """Any sequence of legal placements keeps every row and column free of repeats."""
    assert lines_are_clean(city)


@SETTINGS
@given(cities)
def test_notation_round_trips(city: City) -> None:
    """parse(print(city)) == city and print(parse(text)) == text."""
    text = city.notation()
    assert City.parse(text) == city
    assert City.parse(text).notation() == text


@SETTINGS
@given(cities, st.sampled_from(ALL_TILES))
def test_legal_cells_agrees_with_is_legal_everywhere(city: City, tile: Tile) -> None:
    """The bitboard legal_cells and the cell-by-cell why_illegal agree on every cell."""
    around = [Cell(r, c) for r in range(-1, 8) for c in range(-1, 8)]
    assert set(legal_cells(city, tile)) == {c for c in around if is_legal(city, tile, c)}
    for cell in around:
        if not cell.in_area:
            assert why_illegal(city, tile, cell) is not None
    assert all(c in ALL_CELLS for c in legal_cells(city, tile))


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 5), st.integers(0, 10**6))
def test_tiles_are_conserved_through_random_games(players: int, seed: int) -> None:
    """bag + hands + city + turned over = 49 distinct tiles after every action."""
    rng = random.Random(seed)
    game = MultiplayerGame.new(players, random.Random(seed))

    def conserved() -> None:
        placed = list(game.city.tiles().values())
        everything = list(game.bag) + [t for h in game.hands for t in h] + placed \
            + list(game.turned_over)
        assert sorted(everything) == list(ALL_TILES)
        assert len(game.city.face_down_cells()) == len(game.turned_over)
        assert lines_are_clean(game.city)

    for _ in range(600):
        if game.is_over():
            break
        p = game.turn
        if game.step is Step.START:
            hand = game.hands[p]
            options = [(t, c) for t in hand for c in legal_cells(game.city, t)]
            if game.can_exchange(p) and rng.random() < 0.3:
                trio = three_alike(hand)
                assert trio is not None
                game.exchange(p, trio)
            elif options:
                if rng.random() < 0.05 and game.city.tiles():
                    game.turn_over(rng.choice(sorted(game.city.tiles())))
                assert game.place(p, *rng.choice(options)).applied
            else:
                game.leave(p)
        elif game.step is Step.DRAW:
            game.draw(p)
        else:
            hand = game.hands[p]
            game.end_turn(p, rng.choice([None, *hand]))
        conserved()
    assert game.is_over()
    standings = game.ranking()
    assert sorted(s.player for s in standings) == list(range(players))
    assert [s.tiles_left for s in standings] == sorted(s.tiles_left for s in standings)


def test_face_down_constant_is_not_a_tile() -> None:
    """The face-down marker is distinct from every tile."""
    assert FACE_DOWN not in ALL_TILES


@st.composite
def any_city(draw: st.DrawFn) -> City:
    """Any contents at all, legal or not: tiles anywhere, face-down cells, gaps."""
    cells = draw(st.lists(st.sampled_from(ALL_CELLS), unique=True, max_size=30))
    tiles = draw(st.permutations(ALL_TILES))
    city = City.empty()
    for cell, tile in zip(cells, tiles):
        city = city.with_tile(cell, tile)
        if draw(st.integers(0, 9)) == 0:
            city = city.turned_over(cell)
    return city


@SETTINGS
@given(any_city(), st.sampled_from(ALL_TILES))
def test_queries_agree_on_arbitrary_cities(city: City, tile: Tile) -> None:
    """Even on a city no legal game makes, legal_cells and why_illegal agree, and the
    notation round-trips."""
    assert set(legal_cells(city, tile)) == {c for c in ALL_CELLS if is_legal(city, tile, c)}
    assert City.parse(city.notation()) == city


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 5), st.integers(0, 10**6), st.integers(0, 60))
def test_game_notation_round_trips(players: int, seed: int, steps: int) -> None:
    """A multiplayer game mid-play prints to text that parses back to the same game."""
    rng = random.Random(seed)
    game = MultiplayerGame.new(players, random.Random(seed))
    for _ in range(steps):
        if game.is_over():
            break
        p = game.turn
        if game.step is Step.START:
            options = [(t, c) for t in game.hands[p] for c in legal_cells(game.city, t)]
            if options:
                game.place(p, *rng.choice(options))
            else:
                game.leave(p)
        elif game.step is Step.DRAW:
            game.draw(p)
        else:
            game.end_turn(p, rng.choice([None, *game.hands[p]]))
        if rng.random() < 0.05 and game.city.tiles():
            game.turn_over(rng.choice(sorted(game.city.tiles())))
    text = game.notation()
    again = MultiplayerGame.parse(text, random.Random(0))
    assert again.notation() == text
    assert sorted(again.bag) == sorted(game.bag)
