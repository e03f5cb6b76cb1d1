"""An unsure clip count is asked, never alerted by itself; a link illegal whatever its count is alerted."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware.bench.railways_games import MISCOUNTS, bench_catalogue, oracle_reader, play_game
from firmware.games.base import Ask, Illegal, NoChange, Proposed
from firmware.games.railways import plausible_counts
from rules.errors import IllegalMove
from rules.railways.engine import Refusal
from rules.railways.simulate import simulate_game
from tests.firmware.test_railways_session import RED_TO_TOWN, WHITE_TO_CITY, new_session, observe, white_to_move


def test_unsure_undercount_of_a_legal_link_is_asked_not_alerted() -> None:
    """Game 0's false alert: white's 8-clip link read as 6 with low confidence is a question
    offering the read count as too short and the legal counts, not an Illegal."""
    s = white_to_move()
    v = s.interpret(observe(RED_TO_TOWN, dict(WHITE_TO_CITY, clips=6, confidence=0.3)))
    assert isinstance(v, Ask)
    assert v.text == "white link: how many clips?"
    assert v.labels == ("white 6: Link too short", "white 8: S-white-B1 white +12", "white 9: S-white-B1 white +13",
                        "white 10: S-white-B1 white +14")
    assert [c["link"]["clips"] for c in v.candidates] == [6, 8, 9, 10]
    assert [c.get("refusal") for c in v.candidates] == ["TOO_SHORT", None, None, None]
    s.apply(v.candidates[1])
    assert s.pos is not None and s.pos.player("white").score == 12


def test_confirming_the_too_short_count_refuses_it() -> None:
    """The players picking the too-short count get the rule broken; the game is unchanged."""
    s = white_to_move()
    v = s.interpret(observe(RED_TO_TOWN, dict(WHITE_TO_CITY, clips=6, confidence=0.3)))
    assert isinstance(v, Ask)
    moves = len(s.moves)
    with pytest.raises(IllegalMove) as e:
        s.apply(v.candidates[0])
    assert e.value.reason is Refusal.TOO_SHORT
    assert str(e.value).startswith("white cannot build S-white-B1: the link is shorter than the "
                                   "departure's minimum for that type (6 clips, at least 8) [turn 1, white to move")
    assert len(s.moves) == moves and s.pos is not None and s.pos.player("white").clips == 60


def test_confident_too_short_count_is_alerted() -> None:
    """A confident 6 where 8 is the minimum is alerted at once, with the reason."""
    s = white_to_move()
    v = s.interpret(observe(RED_TO_TOWN, dict(WHITE_TO_CITY, clips=6, confidence=0.9)))
    assert isinstance(v, Illegal)
    assert v.short == "Link too short"
    assert v.message.startswith("white cannot build S-white-B1: the link is shorter than the departure's "
                                "minimum for that type (6 clips, at least 8) [railways metropolis turn=1")


def test_too_short_by_any_plausible_count_is_alerted() -> None:
    """An unsure 2 where 8 is the minimum: no count the reader could have meant is legal."""
    s = white_to_move()
    v = s.interpret(observe(RED_TO_TOWN, dict(WHITE_TO_CITY, clips=2, confidence=0.1)))
    assert isinstance(v, Illegal)
    assert v.short == "Link too short"
    assert "(2 clips, at least 8)" in v.message


@pytest.mark.parametrize("conf", [0.05, 0.3, 0.95])
def test_departure_not_owned_is_alerted_whatever_the_confidence(conf: float) -> None:
    """White's link from red's Starting City is illegal at every count: always alerted."""
    s = new_session()
    v = s.interpret(observe(dict(RED_TO_TOWN, colour="white", confidence=conf)))
    assert isinstance(v, Illegal)
    assert v.short == "Start not yours"
    assert v.move["refusal"] == "DEPARTURE_NOT_OWNED"


@pytest.mark.parametrize("conf", [0.05, 0.95])
def test_station_crossed_is_alerted_whatever_the_confidence(conf: float) -> None:
    """Red's link through the Town to the City is illegal at every count: always alerted."""
    s = new_session()
    link = dict(RED_TO_TOWN, clips=12, confidence=conf, stations=["S1", "S4"],
                path_mm=[[380.0, 406.0], [380.0, 515.0], [674.0, 515.0]])
    v = s.interpret(observe(link))
    assert isinstance(v, Illegal)
    assert v.short == "Crosses a station"


def test_two_unsure_new_links_offer_each_plausible_count() -> None:
    """Two new links at once, both unsure: the question lists every legal count of each."""
    s = new_session()
    v = s.interpret(observe(dict(RED_TO_TOWN, confidence=0.3), dict(WHITE_TO_CITY, confidence=0.9)))
    assert isinstance(v, Ask)
    assert v.text == "2 new links at once"
    assert v.labels == ("red 5: S-red-B2 red +7", "red 6: S-red-B2 red +8", "red 4: S-red-B2 red +6",
                        "red 7: S-red-B2 red +9", "red 3: Link too short", "red 8: S-red-B2 red +10",
                        "red 9: S-red-B2 red +11", "red drew; white 9: S-white-B1 white +13")


def test_plausible_counts_widen_with_length() -> None:
    """Sure: the count alone; unsure: more above than below, wider for longer chains."""
    assert plausible_counts(6, 0.5) == [6]
    assert plausible_counts(1, 0.2) == [1, 2, 3, 4]
    assert plausible_counts(6, 0.2) == [6, 7, 5, 8, 4, 9, 3, 10]
    assert sorted(plausible_counts(20, 0.2)) == list(range(15, 28))


@given(st.integers(1, 60), st.floats(0.0, 0.49))
def test_plausible_counts_hold_the_read_count_and_its_neighbours(n: int, conf: float) -> None:
    """An unsure count's range starts with it, holds n+1 to n+3 (and n-1, n-2 when positive), no count below 1."""
    counts = plausible_counts(n, conf)
    assert counts[0] == n and len(set(counts)) == len(counts)
    assert {n + 1, n + 2, n + 3} <= set(counts) and {k for k in (n - 1, n - 2) if k >= 1} <= set(counts)
    assert min(counts) >= 1


def test_count_below_the_gap_between_the_stations_is_not_trusted() -> None:
    """Three clips cannot join red's Starting City to Metropolis part M2 (at least 6 span the
    gap): even a confident 3 is asked, from the fewest that reach."""
    s = new_session()
    link = dict(RED_TO_TOWN, stations=["S1", "M2"], clips=3, confidence=0.9,
                path_mm=[[406.0, 380.0], [560.0, 420.0], [575.0, 480.0]])
    v = s.interpret(observe(link))
    assert isinstance(v, Ask)
    assert v.labels == ("red 6: S-red-M red +7", "red 7: S-red-M red +8", "red 8: S-red-M red +9",
                        "red 9: S-red-M red +10", "red 10: S-red-M red +11")


def test_plausible_counts_start_at_the_floor() -> None:
    """A count read below the floor is replaced by the floor and the counts above it."""
    assert plausible_counts(1, 0.9, floor=4) == [4, 5, 6, 7]
    assert plausible_counts(5, 0.2, floor=4) == [5, 6, 4, 7, 8, 9]


def test_an_end_at_no_station_offers_the_stations_where_the_path_stops() -> None:
    """The reader lost a chain's last clips (end '?', count short): the stations near where the
    path stops are offered, each with the counts that reach it."""
    s = new_session()
    cut = dict(RED_TO_TOWN, clips=2, confidence=0.1, stations=["S1", "?"], path_mm=[[380.0, 406.0], [380.0, 450.0]])
    v = s.interpret(observe(cut))
    assert isinstance(v, Ask)
    assert v.text == "red link: an end is not at a station"
    assert v.labels == ("red 2: Link too short", "red 4: S-red-B2 red +6", "red 5: S-red-B2 red +7",
                        "red 4: S-red-M red +6", "red 5: S-red-M red +7", "red 6: S-red-M red +8",
                        "red 7: S-red-M red +9")
    assert v.candidates[4]["link"]["from_section"] == 1 or v.candidates[4]["link"]["to_section"] == 1
    chosen = v.candidates[v.labels.index("red 5: S-red-B2 red +7")]
    s.apply(chosen)
    assert isinstance(s.interpret(observe(RED_TO_TOWN)), NoChange)   # the whole chain read later is that link


def test_an_end_at_no_station_far_from_any_is_a_question_without_choices() -> None:
    """A path stopping far from every station: the players are asked to look."""
    s = new_session()
    v = s.interpret(observe(dict(RED_TO_TOWN, stations=["?", "S3"], path_mm=[[100.0, 900.0], [380.0, 489.0]])))
    assert isinstance(v, Ask) and v.candidates == ()


def test_pieces_of_one_link_are_that_link() -> None:
    """The reader breaking a link in two (one piece with its ends misread) is no new link."""
    s = white_to_move()
    piece = dict(RED_TO_TOWN, clips=2, stations=["S1", "S4"], path_mm=[[380.0, 440.0], [380.0, 489.0]])
    assert isinstance(s.interpret(observe(dict(RED_TO_TOWN, path_mm=[[380.0, 406.0], [380.0, 440.0]]), piece)),
                      NoChange)


def test_a_second_link_laid_along_the_first_is_a_new_link() -> None:
    """A second red link between the same two stations, bowed a little off the first, is
    a build (alerted: no second single link), not a piece of the first (hypothesis seed
    286 of the whole-games test: an illegal link read as NoChange)."""
    s = white_to_move()
    again = dict(RED_TO_TOWN, stations=["S3", "S1"], path_mm=[[380.0, 489.0], [389.0, 447.0], [380.0, 406.0]])
    v = s.interpret(observe(RED_TO_TOWN, again))
    assert isinstance(v, Illegal), v


def test_a_station_missed_at_setup_is_entered_without_a_card() -> None:
    """The players add a Boundary station the first look missed; a link to it takes no card for it."""
    s = new_session()
    applied = s.apply({"type": "station", "card": "suburb", "centre_mm": [250.0, 380.0]})
    assert applied.text == "Station X6 added"
    link = dict(RED_TO_TOWN, clips=4, stations=["S1", "S9"], path_mm=[[354.0, 380.0], [276.0, 380.0]])
    stations = [*observe()["stations"], {"id": "S9", "type": "suburban", "centre_mm": [250.0, 380.0]}]
    v = s.interpret(observe(link, stations=stations))
    assert isinstance(v, Proposed) and v.text == "red 4: S-red-X6 red +5"
    s.apply(v.move)
    assert s.pos is not None and s.pos.player("red").hand == ("?", "?")
    with pytest.raises(Exception) as e:
        s.apply({"type": "station", "card": "castle", "centre_mm": [900.0, 900.0]})
    assert "castle" in str(e.value)


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.integers(2, 5), st.sampled_from(["metropolis", "gigantopolis"]))
def test_whole_games_on_miscounted_readings_ask_and_never_false_alert(seed: int, players: int, variant: str) -> None:
    """Every count off by -3..+2 and unsure: each build is asked with the true one offered,
    no legal build is alerted, each illegal link is still alerted (at once or once confirmed)."""
    catalogue = bench_catalogue()
    game = simulate_game(random.Random(seed), players, variant, catalogue)
    read = oracle_reader(game, catalogue, MISCOUNTS)
    score = play_game(game, catalogue, read, random.Random(seed), ("too-short",))
    assert score.diverged == "" and score.failures == [] and score.false_alerts == 0
    assert score.asked == score.builds and score.scores_equal
    assert score.alerted == score.illegal


def test_an_end_at_no_station_illegal_whichever_station_is_offered_refused() -> None:
    """White's link from red's Starting City, its far end lost: each near station is offered
    as refused, and choosing one alerts with the rule (never applied)."""
    s = new_session()
    cut = dict(RED_TO_TOWN, colour="white", clips=2, confidence=0.1, stations=["S1", "?"],
               path_mm=[[380.0, 406.0], [380.0, 450.0]])
    v = s.interpret(observe(cut))
    assert isinstance(v, Ask)
    assert v.labels == ("white S-red-B2: Start not yours", "white S-red-M: Start not yours")
    with pytest.raises(IllegalMove) as e:
        s.apply(v.candidates[0])
    assert e.value.reason is Refusal.DEPARTURE_NOT_OWNED
    assert s.moves[-1]["type"] == "setup"


def test_an_illegal_link_among_several_new_ones_is_offered_refused() -> None:
    """Two new links at once, one of them from a station not the builder's: the question
    offers it as refused beside the legal one."""
    s = new_session()
    v = s.interpret(observe(RED_TO_TOWN, dict(WHITE_TO_CITY, colour="red", stations=["S2", "S4"])))
    assert isinstance(v, Ask) and v.text == "2 new links at once"
    assert v.labels == ("red 5: S-red-B2 red +7", "red 9: Start not yours")


def test_a_link_back_along_its_own_link_from_a_station_laid_on_it() -> None:
    """Hypothesis seed 136 (5 players, Metropolis): white sets N20 on its own link L1 (the
    rules allow it) and builds N20 to its Starting City along L1; the build is seen (it was
    taken for a piece of L1, which was read whole beside it)."""
    catalogue = bench_catalogue()
    game = simulate_game(random.Random(136), 5, "metropolis", catalogue)
    score = play_game(game, catalogue, oracle_reader(game, catalogue, MISCOUNTS), random.Random(136),
                      ("too-short",))
    assert score.failures == []
