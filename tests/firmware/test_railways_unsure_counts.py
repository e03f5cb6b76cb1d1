"""An unsure clip count is asked, never alerted by itself; a link illegal whatever its count is alerted."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware.games.base import Ask, Illegal, Proposed
from firmware.games.railways import RailwaysSession, plausible_counts
from rules.errors import IllegalMove
from rules.railways.engine import Refusal
from tests.firmware.test_railways_session import RED_TO_TOWN, WHITE_TO_CITY, new_session, observe


def white_to_move() -> RailwaysSession:
    """Red has built to the Town; white (Starting City to City: at least 8 clips) is next."""
    s = new_session()
    v = s.interpret(observe(RED_TO_TOWN))
    assert isinstance(v, Proposed)
    s.apply(v.move)
    return s


def test_unsure_undercount_of_a_legal_link_is_asked_not_alerted() -> None:
    """Game 0's false alert: white's 8-clip link read as 6 with low confidence is a question
    offering the read count as too short and the legal counts, not an Illegal."""
    s = white_to_move()
    v = s.interpret(observe(RED_TO_TOWN, dict(WHITE_TO_CITY, clips=6, confidence=0.3)))
    assert isinstance(v, Ask)
    assert v.text == "white link: how many clips?"
    assert v.labels == ("white 6: Link too short", "white 8: S-white-B1 white +12", "white 9: S-white-B1 white +13")
    assert [c["link"]["clips"] for c in v.candidates] == [6, 8, 9]
    assert [c.get("refusal") for c in v.candidates] == ["TOO_SHORT", None, None]
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
                path_mm=[[200.0, 226.0], [200.0, 800.0], [774.0, 800.0]])
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
                        "red 7: S-red-B2 red +9", "red 8: S-red-B2 red +10",
                        "red drew; white 9: S-white-B1 white +13")


def test_plausible_counts_widen_with_length() -> None:
    """Sure: the count alone; unsure: more above than below, wider for longer chains."""
    assert plausible_counts(6, 0.5) == [6]
    assert plausible_counts(1, 0.2) == [1, 2, 3]
    assert plausible_counts(6, 0.2) == [6, 7, 5, 8, 4, 9]
    assert sorted(plausible_counts(20, 0.2)) == list(range(16, 27))


@given(st.integers(1, 60), st.floats(0.0, 0.49))
def test_plausible_counts_hold_the_read_count_and_its_neighbours(n: int, conf: float) -> None:
    """An unsure count's range starts with it, holds n+1 and n+2 (and n-1 when positive), no count below 1."""
    counts = plausible_counts(n, conf)
    assert counts[0] == n and len(set(counts)) == len(counts)
    assert {n + 1, n + 2} <= set(counts) and (n == 1 or n - 1 in counts)
    assert min(counts) >= 1
