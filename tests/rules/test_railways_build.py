"""Building a link: every refusal reason, and every term of a build's score."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules.errors import CouldNotRead, IllegalMove
from rules.railways import (
    BuiltLink, Draw, Pass, Railways, Refusal, Settings, format_position, parse_position,
)
from rules.railways.simulate import placeholder_catalogue

BASE = """
railways metropolis turn=0 phase=playing penalty=2 last=-
player red clips=60 cubes=24 score=0 hand=town,?*5
player white clips=60 cubes=24 score=0 hand=?*6
station S-red starting-city start=red cubes=-
station S-white starting-city start=white cubes=-
station M metropolis cubes=-
station A example cubes=-
station C countryside cubes=-
station K city cubes=-
deck ?*20,end-of-line,?*5
"""
SUMMARY = "[turn 0, red to move, red 0pt 60c 24k 6h, white 0pt 60c 24k 6h]"


def rules(**settings: object) -> Railways:
    return Railways(placeholder_catalogue(), Settings(**settings))  # type: ignore[arg-type]


def position(*edits: tuple[str, str]) -> str:
    text = BASE
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    return text


def reasons(b: BuiltLink, text: str = BASE, **settings: object) -> set[Refusal]:
    return {r for r, _ in rules(**settings).refusals(parse_position(text), b)}


def link(**kw: object) -> BuiltLink:
    fields: dict[str, object] = dict(colour="red", clips=4, from_station="S-red", to_station="M",
                                  cards_discarded=2)
    fields.update(kw)
    return BuiltLink(**fields)  # type: ignore[arg-type]


def test_a_plain_legal_build_has_no_refusal() -> None:
    """From one's Starting City to Metropolis with 4 clips and one card is legal."""
    assert reasons(link()) == set()


def test_illegal_move_carries_reason_and_state() -> None:
    """build() raises IllegalMove with the first reason and a message holding the state."""
    with pytest.raises(IllegalMove) as e:
        rules().build(parse_position(BASE), link(clips=3))
    assert e.value.reason is Refusal.TOO_SHORT
    assert str(e.value) == ("red cannot build S-red-M: the link is shorter than the departure's "
                            f"minimum for that type (3 clips, at least 4) {SUMMARY}")


CASES = [
    ((("phase=playing", "phase=over"),), link(), Refusal.GAME_OVER),
    ((), link(colour="white", from_station="S-white"), Refusal.NOT_YOUR_TURN),
    ((("phase=playing penalty=2 last=-", "phase=last-draw penalty=2 last=red"),), link(), Refusal.WRONG_ACTION),
    ((), link(from_station="Z"), Refusal.DEPARTURE_NOT_IN_PLAY),
    ((), link(to_station="Z"), Refusal.DESTINATION_NOT_IN_PLAY),
    ((), link(to_station="A", new_card="town"), Refusal.NEW_STATION_ID_TAKEN),
    ((), link(from_station="A", to_station="M", clips=3), Refusal.DEPARTURE_NOT_OWNED),
    ((("start=red cubes=-", "start=red cubes=white*3"),), link(), Refusal.DEPARTURE_FULL),
    ((("countryside cubes=-", "countryside cubes=white*2"),), link(to_station="C", clips=6),
     Refusal.DESTINATION_FULL),
    ((), link(to_station="S-red"), Refusal.SAME_STATION),
    ((("example cubes=-", "example cubes=red"),), link(from_station="A", to_station="K", clips=6),
     Refusal.TYPE_NOT_ALLOWED),
    ((), link(clips=3), Refusal.TOO_SHORT),
    ((), link(clips=0), Refusal.NO_CLIPS),
    ((), link(cards_discarded=0), Refusal.NO_CARD_DISCARDED),
    ((), link(to_station="K", clips=8, cards_discarded=2), Refusal.NOT_ENOUGH_CARDS_PAID),
    ((), link(cards_discarded=7), Refusal.CARDS_NOT_IN_HAND),
    ((("hand=town,?*5", "hand=town*6"),), link(to_station="N", new_card="town", discarded=("city",)),
     Refusal.CARDS_NOT_IN_HAND),
    ((("player red clips=60", "player red clips=3"),), link(), Refusal.NOT_ENOUGH_CLIPS),
    ((("player red clips=60 cubes=24", "player red clips=60 cubes=1"),),
     link(to_station="N", new_card="town"), Refusal.NOT_ENOUGH_CUBES),
    ((("deck ?", "link L1 red 5 S-red M\ndeck ?"),), link(), Refusal.DUPLICATE_LINK),
    ((), link(middle_clips_touch_stations=True), Refusal.MIDDLE_CLIPS_TOUCH),
    ((), link(touches_itself=True), Refusal.TOUCHES_ITSELF),
    ((), link(crosses_stations=("K",)), Refusal.CROSSES_STATION),
    ((), link(outside_area=True), Refusal.OUTSIDE_AREA),
    ((), link(to_station="N", new_card="town", new_station_touches_station=True),
     Refusal.NEW_STATION_TOUCHES_STATION),
    ((), link(to_station="N", new_card="town", new_station_outside=True), Refusal.NEW_STATION_OUTSIDE),
]


@pytest.mark.parametrize("edits, build, reason", CASES)
def test_each_refusal_reason(edits: tuple[tuple[str, str], ...], build: BuiltLink, reason: Refusal) -> None:
    """Each broken rule is reported with its own reason."""
    assert reason in reasons(build, position(*edits))


def test_every_build_refusal_reason_is_covered() -> None:
    """The parametrised table above names every build refusal (draw/pass ones are tested below)."""
    covered = {reason for _, _, reason in CASES}
    assert set(Refusal) - covered == {Refusal.DECK_EMPTY, Refusal.CANNOT_PASS}


def test_the_same_pair_is_open_to_another_player_unless_set() -> None:
    """A second single link is refused only for its builder, unless duplicate_any_owner."""
    text = position(("turn=0", "turn=1"), ("deck ?", "link L1 red 5 S-red M\ndeck ?"),
                    ("start=white cubes=-", "start=white cubes=-"), ("metropolis cubes=-", "metropolis cubes=red"))
    white = link(colour="white", from_station="M", to_station="S-white", clips=4)
    assert Refusal.DEPARTURE_NOT_OWNED in reasons(white, text)
    white = link(colour="white", from_station="S-white", to_station="M")
    assert reasons(white, text) == set()
    text2 = text.replace("link L1 red 5 S-red M", "link L1 red 5 S-white M")
    assert reasons(white, text2) == set()
    assert Refusal.DUPLICATE_LINK in reasons(white, text2, duplicate_any_owner=True)


def test_free_clips_of_owned_stations_pay_for_clips() -> None:
    """Owning the example card adds one free clip per link: 7 clips for 2 cards is allowed."""
    base = position(("example cubes=-", "example cubes=red"))
    assert Refusal.NOT_ENOUGH_CARDS_PAID in reasons(link(clips=7, cards_discarded=2))
    assert reasons(link(clips=7, cards_discarded=2), base) == set()


def test_metropolis_minimum_uses_the_smaller_of_town_and_suburban() -> None:
    """From a Starting City (Town 4, Suburban 4) fine; from a suburb (Town 3, Suburban 2) 2 is enough."""
    text = position(("station K city cubes=-", "station K suburb cubes=red"))
    assert reasons(link(from_station="K", clips=2), text) == set()
    assert Refusal.TOO_SHORT in reasons(link(from_station="K", clips=2), text, metropolis_min="larger")


def test_metropolis_section_sets_points_and_minimums() -> None:
    """Leaving from Metropolis section 2 (a suburb section: Town 3) allows 3 clips where the
    board's own card asks 4; arriving at section 2 scores its 1 point."""
    text = position(("metropolis cubes=-", "metropolis cubes=red"))
    town = link(from_station="M", to_station="N", new_card="town", clips=3)
    assert Refusal.TOO_SHORT in reasons(town, text)
    assert Refusal.TOO_SHORT not in reasons(replace(town, from_section=2), text)
    assert score(link(clips=5, to_section=2), TOUCHY)["red"] == 0 + 1 + 5
    assert score(link(clips=5), TOUCHY)["red"] == 0 + 2 + 5


def test_metropolis_section_out_of_range_is_a_reading_error() -> None:
    """Section 5 of a four-section board raises CouldNotRead."""
    with pytest.raises(CouldNotRead) as e:
        rules().refusals(parse_position(BASE), link(to_section=5))
    assert str(e.value) == "station M has sections 1-4, not 5; check the reading"


def test_metropolis_takes_one_cube_per_player() -> None:
    """A second link into Metropolis places no cube there and needs no cube for it."""
    r = rules()
    text = position(("metropolis cubes=-", "metropolis cubes=red"), ("example cubes=-", "example cubes=red"))
    after, report = r.build(parse_position(text), link(from_station="A", to_station="M", clips=3))
    assert report.cubes_placed == ("A",)
    assert after.station("M").cubes == ("red",)  # type: ignore[union-attr]
    assert after.player("red").cubes == 23


def test_new_station_from_hand_is_placed_with_a_cube() -> None:
    """Playing a card from hand puts a new station in play with the builder's cube."""
    after, report = rules().build(parse_position(BASE), link(to_station="N1", new_card="town", clips=4))
    assert after.station("N1").card == "town" and after.station("N1").cubes == ("red",)  # type: ignore[union-attr]
    assert after.player("red").hand == ("?",) * 3  # the town card and two discards left the hand
    assert report.cubes_placed == ("S-red", "N1")


def test_unknown_touched_link_is_a_reading_error() -> None:
    """A touched link id that is not in play raises CouldNotRead naming the known ones."""
    with pytest.raises(CouldNotRead) as e:
        rules().refusals(parse_position(BASE), link(touches_links=("L9",)))
    assert str(e.value) == f"link 'L9' is not in play; known links: none {SUMMARY}"


def test_unknown_new_card_is_a_reading_error() -> None:
    """A new station whose card is not in the catalogue asks for it to be added."""
    with pytest.raises(CouldNotRead, match="^unknown station card 'moon'; add it"):
        rules().refusals(parse_position(BASE), link(to_station="N", new_card="moon"))


# ---- scoring ---------------------------------------------------------------------------

TOUCHY = position(
    ("turn=0", "turn=2"),
    ("metropolis cubes=-", "metropolis cubes=white"),
    ("deck ?", "link L1 white 5 S-white M\nlink L2 white 4 M C\nlink L3 red 6 S-red K\ndeck ?"),
    ("countryside cubes=-", "countryside cubes=white"),
    ("city cubes=-", "city cubes=red"),
)


def score(b: BuiltLink, text: str = TOUCHY, **settings: object) -> dict[str, int]:
    r = rules(**settings)
    pos = parse_position(text)
    after, report = r.build(pos, b)
    return {p.colour: p.score - q.score for p, q in zip(after.players, pos.players)}


def test_score_is_both_stations_plus_clips() -> None:
    """Starting City 0 + Metropolis 2 + 5 clips = 7."""
    assert score(link(clips=5)) == {"red": 7, "white": 0}


def test_touching_another_players_link_moves_a_point() -> None:
    """Each other player's link touched costs 1 and gives its owner 1; repeats count once."""
    assert score(link(clips=5, touches_links=("L1", "L2", "L1"))) == {"red": 5, "white": 2}


def test_own_links_cross_free() -> None:
    """Touching one's own link costs nothing."""
    assert score(link(clips=5, touches_links=("L3",))) == {"red": 7, "white": 0}


def test_obstacles_and_river_parts_cost_the_penalty_each() -> None:
    """2 obstacles and 3 River parts at penalty 2 cost 10."""
    assert score(link(clips=5, obstacles=2, river_parts=3))["red"] == 7 - 10


def test_river_once_setting_counts_the_river_a_single_time() -> None:
    """With river_counts_once, 3 River parts cost one penalty."""
    assert score(link(clips=5, river_parts=3), river_counts_once=True)["red"] == 7 - 2


def test_station_on_an_obstacle_costs_the_penalty() -> None:
    """A new station on an obstacle and the River costs the penalty twice."""
    b = link(clips=5, to_station="N", new_card="town", new_station_obstacles=1, new_station_river_parts=1)
    assert score(b)["red"] == 0 + 2 + 5 - 4


def test_station_penalty_once_setting() -> None:
    """With station_penalty_once, a station on an obstacle and the River pays the penalty once."""
    b = link(clips=5, to_station="N", new_card="town", new_station_obstacles=1, new_station_river_parts=1)
    assert score(b, station_penalty_once=True)["red"] == 0 + 2 + 5 - 2


def test_penalty_uses_the_track_value() -> None:
    """At penalty 3, one obstacle costs 3."""
    assert score(link(clips=5, obstacles=1), TOUCHY.replace("penalty=2", "penalty=3"))["red"] == 7 - 3


def test_penalty_track_stays_unless_rise_is_set() -> None:
    """The penalty stays at 2 by default; with penalty_rise=1 it moves up after a penalty is paid."""
    pos = parse_position(TOUCHY)
    assert rules().build(pos, link(clips=5, obstacles=1))[0].penalty == 2
    assert rules(penalty_rise=1).build(pos, link(clips=5, obstacles=1))[0].penalty == 3
    assert rules(penalty_rise=1).build(pos, link(clips=5))[0].penalty == 2
    top = parse_position(TOUCHY.replace("penalty=2", "penalty=6"))
    assert rules(penalty_rise=1).build(top, link(clips=5, obstacles=1))[0].penalty == 6


def test_build_moves_clips_cubes_and_cards() -> None:
    """The builder's stock loses the clips and two cubes; the hand loses the discards."""
    after, _ = rules().build(parse_position(BASE), link(clips=5, cards_discarded=2))
    red = after.player("red")
    assert (red.clips, red.cubes, len(red.hand)) == (55, 22, 4)
    assert format_position(after).splitlines()[-2] == "link L1 red 5 S-red M"


# ---- draws and passes ------------------------------------------------------------------

def test_draw_takes_three_cards_with_two_players() -> None:
    """2 or 3 players draw 3, keeping at most 6 (the newest go)."""
    text = position(("hand=town,?*5", "hand=town,?*2"), ("deck ?*20", "deck a,b,c,?*17"))
    after = rules().draw(parse_position(text), Draw("red"))
    assert after.player("red").hand == ("town", "?", "?", "a", "b", "c")
    full = rules().draw(parse_position(position(("deck ?*20", "deck a,b,c,?*17"))), Draw("red"))
    assert full.player("red").hand == ("town", "?", "?", "?", "?", "?")


def test_draw_may_choose_the_discards() -> None:
    """Over the limit the player names which cards to discard."""
    text = position(("deck ?*20", "deck a,b,c,?*17"))
    after = rules().draw(parse_position(text), Draw("red", discard=("town", "?", "?")))
    assert after.player("red").hand == ("?", "?", "?", "a", "b", "c")


def test_draw_from_empty_deck_is_refused() -> None:
    """Drawing from an empty deck raises DECK_EMPTY; then passing is allowed."""
    text = position(("deck ?*20,end-of-line,?*5", "deck -"))
    with pytest.raises(IllegalMove) as e:
        rules().draw(parse_position(text), Draw("red"))
    assert e.value.reason is Refusal.DECK_EMPTY
    assert rules().pass_turn(parse_position(text), Pass("red")).turn == 1


def test_pass_with_cards_to_draw_is_refused() -> None:
    """A player who could draw may not pass."""
    with pytest.raises(IllegalMove) as e:
        rules().pass_turn(parse_position(BASE), Pass("red"))
    assert e.value.reason is Refusal.CANNOT_PASS
    assert str(e.value) == f"red cannot pass: a player may pass only when they cannot draw {SUMMARY}"


def test_draw_out_of_turn_is_refused() -> None:
    """White cannot draw on red's turn."""
    with pytest.raises(IllegalMove) as e:
        rules().draw(parse_position(BASE), Draw("white"))
    assert e.value.reason is Refusal.NOT_YOUR_TURN


def test_unknown_player_is_a_reading_error() -> None:
    """A colour not in the game raises CouldNotRead listing the players."""
    with pytest.raises(CouldNotRead) as e:
        rules().draw(parse_position(BASE), Draw("green"))
    assert str(e.value) == "'green' is not playing; players: red, white"


def test_refusals_do_not_change_the_position() -> None:
    """Queries are side-effect free: the same position is returned unchanged."""
    pos = parse_position(BASE)
    before = format_position(pos)
    rules().refusals(pos, link(clips=1))
    rules().score_build(pos, link())
    assert format_position(pos) == before and replace(pos) == pos
