"""Setup for each player count and variant, the two ways the game ends, end-game scoring."""

from __future__ import annotations

import random

import pytest

from rules.errors import CouldNotRead, IllegalMove
from rules.railways import (
    COLOURS, END_OF_LINE, BuiltLink, Draw, Gigantopolis, Pass, Phase, Railways, Refusal, Settings,
    parse_position, rules_for,
)
from rules.railways.simulate import placeholder_catalogue

CAT = placeholder_catalogue()


@pytest.mark.parametrize("n, clips, cubes, draw", [(2, 60, 24, 3), (3, 60, 24, 3), (4, 54, 22, 2), (5, 48, 21, 2)])
def test_stocks_and_draws_by_player_count(n: int, clips: int, cubes: int, draw: int) -> None:
    """4 players return 6 clips and 2 cubes, 5 return 12 and 3; one cube marks the score; 2-3 draw 3."""
    r = Railways(CAT)
    pos = r.setup(random.Random(n), COLOURS[:n])
    assert {(p.clips, p.cubes, len(p.hand)) for p in pos.players} == {(clips, cubes, 4)}
    assert r.draw_count(n) == draw


@pytest.mark.parametrize("seed", range(5))
def test_end_of_line_is_among_the_last_eleven(seed: int) -> None:
    """The End of Line card is shuffled into the bottom 11 cards of the deck, once."""
    pos = Railways(CAT).setup(random.Random(seed), ("red", "white", "green"))
    assert pos.deck.count(END_OF_LINE) == 1
    assert END_OF_LINE in pos.deck[-11:]


def test_setup_is_deterministic_per_seed() -> None:
    """The same seed gives the same deal; another seed gives another."""
    a = Railways(CAT).setup(random.Random(7), ("red", "white"))
    assert a == Railways(CAT).setup(random.Random(7), ("red", "white"))
    assert a.deck != Railways(CAT).setup(random.Random(8), ("red", "white")).deck


def test_setup_places_starting_cities_boundary_and_centre() -> None:
    """Metropolis: one centre station M; Gigantopolis: four centre cards G1-G4 from the deck."""
    cols = ("red", "white", "green")
    metro = Railways(CAT).setup(random.Random(1), cols)
    giga = Gigantopolis(CAT).setup(random.Random(1), cols)
    assert [s.sid for s in metro.stations] == ["S-red", "S-white", "S-green", "M", "B1", "B2", "B3"]
    assert [s.sid for s in giga.stations][3:] == ["G1", "G2", "G3", "G4", "B1", "B2", "B3"]
    assert len(giga.deck) == len(metro.deck) - 4
    assert all(CAT[s.card].role.value == "station" for s in giga.stations if s.sid.startswith("G"))


@pytest.mark.parametrize("colours, message", [
    (("red",), "Paperclip Railways needs 2 to 5 players, got 1; name 2 to 5 colours"),
    (("red", "pink"), "unknown player colour 'pink'; use red, white, green, black, yellow"),
    (("red", "red"), "each player needs a different colour, got red, red"),
])
def test_bad_setup_is_one_line(colours: tuple[str, ...], message: str) -> None:
    """Bad player lists raise CouldNotRead with the fix."""
    with pytest.raises(CouldNotRead) as e:
        Railways(CAT).setup(random.Random(0), colours)
    assert str(e.value) == message


def test_unknown_variant_names_the_choices() -> None:
    """rules_for rejects an unknown variant name."""
    with pytest.raises(CouldNotRead) as e:
        rules_for("megalopolis", CAT)
    assert str(e.value) == "unknown railways variant 'megalopolis'; use metropolis or gigantopolis"


THREE = """
railways metropolis turn={turn} phase=playing penalty=2 last=-
player red clips=60 cubes=24 score=0 hand=?*2
player white clips=60 cubes=24 score=0 hand=?*2
player green clips=60 cubes=24 score=0 hand=?*2
station S-red starting-city start=red cubes=-
station S-white starting-city start=white cubes=-
station S-green starting-city start=green cubes=-
station M metropolis cubes=-
deck {deck}
"""


def test_end_of_line_finishes_the_round() -> None:
    """Red (start player) draws End of Line: white and green still play, then the game ends."""
    r = Railways(CAT)
    pos = r.draw(parse_position(THREE.format(turn=0, deck="a,end-of-line,b,?*9")), Draw("red"))
    assert pos.phase is Phase.LAST_ROUND and END_OF_LINE not in pos.player("red").hand
    pos = r.draw(pos, Draw("white"))
    assert pos.phase is Phase.LAST_ROUND
    pos = r.draw(pos, Draw("green"))
    assert pos.phase is Phase.OVER
    with pytest.raises(IllegalMove) as e:
        r.draw(pos, Draw("red"))
    assert e.value.reason is Refusal.GAME_OVER


def test_end_of_line_drawn_by_last_in_round_ends_at_once() -> None:
    """Green, to the right of the start player, draws End of Line: the game is over."""
    pos = Railways(CAT).draw(parse_position(THREE.format(turn=2, deck="end-of-line,?*9")), Draw("green"))
    assert pos.phase is Phase.OVER


TWO_OUT = """
railways metropolis turn=0 phase=playing penalty=2 last=-
player red clips=20 cubes=5 score=0 hand=?*5
player white clips=0 cubes=0 score=3 hand=?*2
station S-red starting-city start=red cubes=-
station S-white starting-city start=white cubes=-
station M metropolis cubes=-
deck ?*20
"""


def test_lone_player_with_stock_gets_one_draw_then_one_build() -> None:
    """When only red has clips or cubes left, red draws once, builds once, and the game ends."""
    r = Railways(CAT)
    pos = r.pass_turn(parse_position(TWO_OUT.replace("?*20", "-")), Pass("red"))
    assert (pos.phase, pos.to_move) == (Phase.LAST_DRAW, "red")
    with pytest.raises(IllegalMove) as e:
        r.build(pos, BuiltLink("red", 4, "S-red", "M", cards_discarded=2))
    assert e.value.reason is Refusal.WRONG_ACTION
    pos = r.pass_turn(pos, Pass("red"))  # the deck is empty, so the draw is a pass
    assert (pos.phase, pos.to_move) == (Phase.LAST_BUILD, "red")
    pos, _ = r.build(pos, BuiltLink("red", 4, "S-red", "M", cards_discarded=2))
    assert pos.phase is Phase.OVER


def test_last_draw_then_no_second_draw() -> None:
    """In the last-build step drawing is refused."""
    r = Railways(CAT)
    pos = r.draw(r.draw(parse_position(TWO_OUT), Draw("red")), Draw("red"))  # red's turn, then last draw
    assert pos.phase is Phase.LAST_BUILD
    with pytest.raises(IllegalMove) as e:
        r.draw(pos, Draw("red"))
    assert e.value.reason is Refusal.WRONG_ACTION


def test_out_of_stock_reading_is_a_setting() -> None:
    """By default a player with clips but no cubes is still in; out_when_either_empty says out."""
    text = TWO_OUT.replace("player white clips=0 cubes=0", "player white clips=9 cubes=0")
    assert Railways(CAT).draw(parse_position(text), Draw("red")).phase is Phase.PLAYING
    assert Railways(CAT, Settings(out_when_either_empty=True)).draw(
        parse_position(text), Draw("red")).phase is Phase.LAST_DRAW


END = """
railways metropolis turn=9 phase=over penalty=2 last=-
player red clips=40 cubes=20 score=30 hand=-
player white clips=45 cubes=20 score=29 hand=-
player green clips=50 cubes=20 score=20 hand=-
station S-red starting-city start=red cubes=red
station S-white starting-city start=white cubes=white
station S-green starting-city start=green cubes=-
station M metropolis cubes=red,white
station K1 city cubes=red
station K2 city cubes=red,white
station U suburb cubes=white*2
link L1 red 9 S-red K1
link L2 white 9 S-white M
link L3 red 4 K1 K2
link L4 white 3 U K2
link L5 white 3 U M
deck -
"""


def test_end_bonuses_longest_link_and_winner() -> None:
    """City end bonus 2 per owned City, suburb 1 per own cube, +5 to each tied longest link."""
    result = Railways(CAT).final_result(parse_position(END))
    assert result.longest == 9
    assert result.totals == {"red": 30 + 2 + 2 + 5, "white": 29 + 2 + 2 + 5, "green": 20}
    assert result.winners == ("red",)
    assert sorted(t.why for t in result.terms if t.colour == "white") == [
        "bonus K2", "bonus U", "longest link 9"]


def test_tie_breaks_on_clips_left_then_shares() -> None:
    """Equal totals: most clips in stock wins; equal clips too: all tied players win."""
    text = END.replace("score=30", "score=29")
    assert Railways(CAT).final_result(parse_position(text)).winners == ("white",)
    text = text.replace("player white clips=45", "player white clips=40")
    assert Railways(CAT).final_result(parse_position(text)).winners == ("red", "white")


def test_no_links_no_longest_bonus() -> None:
    """With no link in play nobody gets the longest-link bonus."""
    text = "\n".join(line for line in END.splitlines() if not line.startswith("link"))
    assert Railways(CAT).final_result(parse_position(text)).longest == 0
    assert all(t.kind != "longest" for t in Railways(CAT).final_result(parse_position(text)).terms)
