"""The Paperclip Railways game session: readings in, verdicts out, moves through the journal."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware.bench.railways_games import bench_catalogue, oracle_reader, play_game
from firmware.games.base import Ask, Illegal, NoChange, Proposed, Unclear, kind, replay
from firmware.games.railways import RailwaysSession
from rules.railways.engine import Refusal
from rules.railways.simulate import placeholder_catalogue, simulate_game
from rules.railways.state import Link, Phase

# A hand-made table (table mm): two Starting Cities at the top, the Metropolis in the
# middle, a Town below red's Starting City and a City below white's. Distances fit the
# counts used (a chain cannot be shorter than the gap between its stations).
STATIONS: list[dict[str, Any]] = [
    {"id": "S1", "type": "start", "player": "red", "centre_mm": [380.0, 380.0]},
    {"id": "S2", "type": "start", "player": "white", "centre_mm": [700.0, 380.0]},
    {"id": "M1", "type": "town", "metropolis": True, "centre_mm": [505.0, 505.0]},
    {"id": "M2", "type": "suburban", "metropolis": True, "centre_mm": [575.0, 505.0]},
    {"id": "M3", "type": "town", "metropolis": True, "centre_mm": [575.0, 575.0]},
    {"id": "M4", "type": "suburban", "metropolis": True, "centre_mm": [505.0, 575.0]},
    {"id": "S3", "type": "town", "centre_mm": [380.0, 515.0]},
    {"id": "S4", "type": "city", "centre_mm": [700.0, 515.0]},
]
RED_TO_TOWN = {"colour": "red", "clips": 5, "confidence": 0.95, "stations": ["S1", "S3"],
               "path_mm": [[380.0, 406.0], [380.0, 447.0], [380.0, 489.0]], "crosses": []}
WHITE_TO_CITY = {"colour": "white", "clips": 9, "confidence": 0.95, "stations": ["S2", "S4"],
                 "path_mm": [[700.0, 406.0], [700.0, 447.0], [700.0, 489.0]], "crosses": []}


def observe(*links: dict[str, Any], stations: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"game": "railways", "links": [dict(k) for k in links], "stations": stations or STATIONS}


def new_session() -> RailwaysSession:
    s = RailwaysSession({"players": 2, "variant": "metropolis", "first": "red"}, placeholder_catalogue())
    v = s.interpret(observe())
    assert isinstance(v, Proposed)
    s.apply(v.move)
    return s


def white_to_move() -> RailwaysSession:
    """Red has built to the Town; white (Starting City to City: at least 8 clips) is next."""
    s = new_session()
    v = s.interpret(observe(RED_TO_TOWN))
    assert isinstance(v, Proposed)
    s.apply(v.move)
    return s


def test_first_look_sets_up_the_table() -> None:
    """The first reading proposes the set-up: Starting Cities by colour, Metropolis, Boundary."""
    s = RailwaysSession({"players": 2, "variant": "metropolis", "first": "white"}, placeholder_catalogue())
    v = s.interpret(observe())
    assert isinstance(v, Proposed)
    assert v.text == "2 players, 2 Boundary, Metropolis"
    s.apply(v.move)
    assert s.pos is not None
    assert [p.colour for p in s.pos.players] == ["white", "red"]
    assert {st.sid: st.card for st in s.pos.stations} == {
        "M": "metropolis", "S-red": "starting-city", "S-white": "starting-city", "B1": "city", "B2": "town"}
    assert all(set(p.hand) == {"?"} and len(p.hand) == 4 for p in s.pos.players)


def test_gigantopolis_cards_the_reader_marks_as_board_parts_are_its_four_stations() -> None:
    """On Gigantopolis the four cards on the blank board come from the reader marked as the
    board's parts (M1-M4); the set-up takes them as G1-G4 by their printed types."""
    s = RailwaysSession({"players": 2, "variant": "gigantopolis", "first": "red"}, placeholder_catalogue())
    v = s.interpret(observe())
    assert isinstance(v, Proposed)
    assert v.text == "2 players, 2 Boundary, Gigantopolis"
    s.apply(v.move)
    assert s.pos is not None
    assert {st.sid: st.card for st in s.pos.stations if st.sid.startswith("G")} == {
        "G1": "town", "G2": "suburb", "G3": "suburb", "G4": "town"}


def test_setup_needs_every_starting_city() -> None:
    """A table with fewer Starting Cities than players is a question, not a set-up."""
    s = RailwaysSession({"players": 3}, placeholder_catalogue())
    v = s.interpret(observe())
    assert isinstance(v, Ask)
    assert v.text == "Set out 3 Starting Cities (2 seen)"


def test_start_colour_from_its_band_read_as_a_cube() -> None:
    """Before any build, a Starting City's single 'cube' colour is its colour band."""
    stations = [dict(x) for x in STATIONS]
    for x in stations:
        if x.get("player"):
            x["cubes"] = [x.pop("player")]
    s = RailwaysSession({"players": 2}, placeholder_catalogue())
    v = s.interpret(observe(stations=stations))
    assert isinstance(v, Proposed)
    assert sorted(v.move["colours"]) == ["red", "white"]


def test_nothing_new_is_no_change() -> None:
    """The table as the game knows it gives NoChange."""
    assert isinstance(new_session().interpret(observe()), NoChange)


def test_one_new_legal_link_is_proposed_with_its_points() -> None:
    """Red's 5 clips from its Starting City (0) to a Town (2): +7 for red."""
    s = new_session()
    v = s.interpret(observe(RED_TO_TOWN))
    assert isinstance(v, Proposed)
    assert v.text == "red 5: S-red-B2 red +7"
    assert v.move["link"]["cards_discarded"] == 2
    applied = s.apply(v.move)
    assert applied.text == "red 5c +7"
    assert s.pos is not None and s.pos.player("red").score == 7
    assert s.pos.player("red").hand == ("?", "?")
    assert isinstance(s.interpret(observe(RED_TO_TOWN)), NoChange)


def test_true_cards_count_overrides_the_minimum() -> None:
    """The players' count of discarded cards is what leaves the hand."""
    s = new_session()
    v = s.interpret(observe(RED_TO_TOWN))
    assert isinstance(v, Proposed)
    s.apply(dict(v.move, cards=3))
    assert s.pos is not None and len(s.pos.player("red").hand) == 1


def test_too_short_link_is_illegal_with_the_reason() -> None:
    """Two clips from a Starting City to a Town (minimum 4) is alerted, never applied."""
    s = new_session()
    v = s.interpret(observe(dict(RED_TO_TOWN, clips=2)))
    assert isinstance(v, Illegal)
    assert v.short == "Link too short"
    assert v.message.startswith("red cannot build S-red-B2: the link is shorter than the departure's "
                                "minimum for that type (2 clips, at least 4) [railways metropolis turn=0")
    assert s.moves[-1]["type"] == "setup"


def test_departure_not_owned_is_illegal() -> None:
    """White's link from red's Starting City: red drew (the turn order says), and the start is not white's."""
    s = new_session()
    v = s.interpret(observe(dict(RED_TO_TOWN, colour="white")))
    assert isinstance(v, Illegal)
    assert v.short == "Start not yours"
    assert v.move["before"] == [{"type": "draw", "colour": "red"}]
    assert v.message.startswith("white cannot build S-red-B2: the departure is neither the player's "
                                "Starting City nor holds their cube (S-red holds no cubes) [railways metropolis turn=1")


def test_draws_are_inferred_from_the_turn_order() -> None:
    """Red building again means white drew in between: one move, undone as one."""
    s = white_to_move()
    again = dict(RED_TO_TOWN, stations=["S1", "M1"], clips=6,
                 path_mm=[[406.0, 380.0], [450.0, 430.0], [480.0, 480.0]])
    v = s.interpret(observe(RED_TO_TOWN, again))
    assert isinstance(v, Proposed)
    assert v.text == "white drew; red 6: S-red-M red +8"
    s.apply(dict(v.move, cards=2))
    assert s.pos is not None and len(s.pos.player("white").hand) == 6   # 4 + 3 drawn, hand limit 6
    assert s.pos.player("red").score == 7 + 8
    s.undo()
    assert s.pos is not None and len(s.pos.player("white").hand) == 4 and s.pos.to_move == "white"


def test_an_empty_hand_means_a_round_of_draws() -> None:
    """A player whose hand cannot pay builds again: everyone drew once since (unseen)."""
    s = new_session()
    for link, cards in ((RED_TO_TOWN, 4), (WHITE_TO_CITY, 3)):
        v = s.interpret(observe(*[x for x in (RED_TO_TOWN, WHITE_TO_CITY) if x is not WHITE_TO_CITY or
                                  link is WHITE_TO_CITY]))
        assert isinstance(v, Proposed)
        s.apply(dict(v.move, cards=cards))
    assert s.pos is not None and s.pos.player("red").hand == ()
    again = dict(RED_TO_TOWN, stations=["S1", "M1"], clips=6,
                 path_mm=[[406.0, 380.0], [450.0, 430.0], [480.0, 480.0]])
    v = s.interpret(observe(RED_TO_TOWN, WHITE_TO_CITY, again))
    assert isinstance(v, Proposed)
    assert v.text == "red drew; white drew; red 6: S-red-M red +8"


def test_no_draw_inferred_when_asked_not_to() -> None:
    """With infer_draws off, a link out of turn is alerted as such, with the rules' refusal."""
    s = RailwaysSession({"players": 2, "infer_draws": False}, placeholder_catalogue())
    s.options["infer_draws"] = False
    setup = s.interpret(observe())
    assert isinstance(setup, Proposed)
    s.apply(setup.move)
    v = s.interpret(observe(dict(RED_TO_TOWN, colour="white")))
    assert isinstance(v, Illegal) and v.short == "Not your turn" and v.reason is Refusal.NOT_YOUR_TURN


def _phase(s: RailwaysSession) -> Phase:
    assert s.pos is not None
    return s.pos.phase


def _built(s: RailwaysSession, move: dict[str, Any]) -> Any:
    from firmware.games.railways import link_from_json
    return link_from_json(dict(move["link"]))


def test_link_across_a_station_is_illegal_even_unreported() -> None:
    """A path through a third station is refused though the reader did not report it."""
    s = new_session()
    across = dict(RED_TO_TOWN, stations=["S1", "S4"], clips=12,
                  path_mm=[[406.0, 406.0], [540.0, 540.0], [674.0, 500.0]])
    v = s.interpret(observe(across))
    assert isinstance(v, Illegal)
    assert v.short == "Crosses a station"
    assert "(M)" in v.message


def test_link_over_the_edge_is_illegal() -> None:
    """The reader's 'edge' crossing (part of the link outside the play area) is alerted."""
    s = new_session()
    v = s.interpret(observe(dict(RED_TO_TOWN, crosses=["edge"])))
    assert isinstance(v, Illegal)
    assert v.short == "Outside the area"


def test_metropolis_section_from_the_reader_part() -> None:
    """A link ending on Metropolis part M2 (a Suburb section, 1 point) scores that section."""
    s = new_session()
    link = dict(RED_TO_TOWN, stations=["S1", "M2"], clips=8,
                path_mm=[[406.0, 380.0], [560.0, 420.0], [575.0, 480.0]])
    v = s.interpret(observe(link))
    assert isinstance(v, Proposed)
    assert v.move["link"]["to_section"] == 2
    assert v.text.endswith("red +9")


def test_game_screens_for_the_loop() -> None:
    """The loop's optional screens: the build with its points, the illegal link's rule."""
    s = new_session()
    bad = s.interpret(observe(dict(RED_TO_TOWN, clips=2)))
    assert isinstance(bad, Illegal) and bad.move["refusal"] == "TOO_SHORT"
    assert s.illegal_screen(bad).size == (128, 64)
    v = s.interpret(observe(RED_TO_TOWN))
    assert isinstance(v, Proposed)
    s.apply(v.move)
    shown = s.applied_screen(v.move)
    assert shown is not None and shown.size == (128, 64)
    assert s.applied_screen({"type": "draw", "colour": "white"}) is None


def test_the_game_ends_itself() -> None:
    """When the rules end the game (End of Line round done) the session is over."""
    s = new_session()
    s.apply({"type": "draw", "colour": "red", "end_of_line": True})
    assert not s.is_over()
    s.apply({"type": "draw", "colour": "white"})
    assert s.is_over() and not s.finished


def test_two_new_links_are_a_question() -> None:
    """Two links at once: the players say which (each legal one is offered)."""
    s = new_session()
    v = s.interpret(observe(RED_TO_TOWN, WHITE_TO_CITY))
    assert isinstance(v, Ask)
    assert v.text == "2 new links at once"
    assert v.labels == ("red 5: S-red-B2 red +7", "red drew; white 9: S-white-B1 white +13")


def test_vanished_link_is_a_question() -> None:
    """A link the game has but the table lacks: put it back (one), or wait (many hidden)."""
    s = white_to_move()
    gone = s.interpret(observe())
    assert isinstance(gone, Ask)
    assert gone.text == "L1 missing: put it back"
    misread = s.interpret(observe(dict(RED_TO_TOWN, stations=["S1", "S4"])))
    assert isinstance(misread, NoChange)   # same colour along the same path: ends misread
    moved = s.interpret(observe(dict(RED_TO_TOWN, stations=["S1", "S4"],
                                     path_mm=[[406.0, 406.0], [560.0, 430.0], [674.0, 500.0]])))
    assert isinstance(moved, Ask) and moved.text == "Link moved? L1 gone, new red link"
    # (or a build: the count alone says little, the players choose)
    assert moved.labels[0] == "white drew; red drew; white drew; red 11: S-red-B1 red +15"


def test_a_link_moved_beside_other_new_links_offers_them_as_builds() -> None:
    """An old link unread while a reading of its colour and count lies elsewhere, and another
    new link beside it: the question offers that new link's build (nothing was offered)."""
    s = white_to_move()
    moved_red = dict(RED_TO_TOWN, stations=["S1", "S4"], path_mm=[[406.0, 406.0], [560.0, 430.0], [674.0, 500.0]])
    ask = s.interpret(observe(moved_red, WHITE_TO_CITY))
    assert isinstance(ask, Ask) and ask.text == "Link moved? L1 gone, new red link"
    assert "white 9: S-white-B1 white +13" in ask.labels
    chosen = ask.candidates[ask.labels.index("white 9: S-white-B1 white +13")]
    s.apply(chosen)
    assert s.pos is not None and [k.colour for k in s.pos.links] == ["red", "white"]


def test_reader_noise_is_not_a_move() -> None:
    """Chains with no end at a station, or both ends at one station, are ignored; an old
    link missed while a different new one appears does not block the new one."""
    s = white_to_move()
    noise = [dict(WHITE_TO_CITY, stations=["?", "?"], clips=2), dict(WHITE_TO_CITY, stations=["S2", "S2"], clips=2)]
    assert isinstance(s.interpret(observe(RED_TO_TOWN, *noise)), NoChange)
    v = s.interpret(observe(WHITE_TO_CITY, *noise))
    assert isinstance(v, Proposed) and v.text == "white 9: S-white-B1 white +13"


def test_low_confidence_asks_the_count() -> None:
    """An unsure clip count is asked with the legal counts of its range, the read one first."""
    s = new_session()
    v = s.interpret(observe(dict(RED_TO_TOWN, confidence=0.2)))
    assert isinstance(v, Ask)
    assert v.text == "red link: how many clips?"
    assert [c["link"]["clips"] for c in v.candidates] == [5, 6, 4, 7, 3, 8, 9]
    assert v.labels[4] == "red 3: Link too short"


def test_new_station_placed_with_its_link() -> None:
    """A station the game lacks at a new link's end is the card played from hand."""
    s = new_session()
    stations = STATIONS + [{"id": "S9", "type": "suburban", "centre_mm": [250.0, 380.0]}]
    link = dict(RED_TO_TOWN, clips=4, stations=["S1", "S9"], path_mm=[[354.0, 380.0], [276.0, 380.0]])
    v = s.interpret(observe(link, stations=stations))
    assert isinstance(v, Proposed)
    assert v.move["link"]["new_card"] == "suburb"
    assert v.text == "red 4: S-red-N6 red +5"
    s.apply(v.move)
    assert s.spots["N6"].x == 250.0
    assert s.pos is not None and s.pos.player("red").hand == ("?",)
    assert isinstance(s.interpret(observe(link, stations=stations)), NoChange)


def test_draws_end_of_line_and_actions() -> None:
    """Menu actions draw (or draw End of Line, starting the last round) for the player to move."""
    s = new_session()
    labels = [a.label for a in s.actions()]
    assert labels == ["red draws", "red draws End of Line"]
    s.apply(s.actions()[1].move)
    assert s.pos is not None and s.pos.phase is Phase.LAST_ROUND
    assert len(s.pos.player("red").hand) == 4 + 2
    s.apply(s.actions()[0].move)
    assert _phase(s) is Phase.OVER
    assert s.actions() == []
    s.apply(s.finish({}))
    assert s.is_over()
    assert s.summary()["winners"] == ["red", "white"]


def test_undo_fixes_and_journal_replay_round_trip() -> None:
    """Undo rebuilds from the earlier moves; fixes offer other counts; replay gives the same state."""
    s = RailwaysSession({"players": 2, "variant": "metropolis", "first": "red"})
    setup = s.interpret(observe())
    assert isinstance(setup, Proposed)
    s.apply(setup.move)
    before = s.summary()
    v = s.interpret(observe(RED_TO_TOWN))
    assert isinstance(v, Proposed)
    s.apply(v.move)
    s.apply(s.actions()[0].move)
    again = replay({"game": "railways", "options": s.options}, s.moves)
    assert again.summary() == s.summary()
    s.undo()
    undone = s.undo()
    assert undone is not None and undone["type"] == "build"
    assert s.summary() == before
    labels = [a.label for a in s.fixes(undone)]
    assert labels == ["3 cards paid", "4 cards paid", "4 clips", "6 clips", "7 clips"]  # 3 is too short
    assert kind("railways").title == "Paperclip Railways"


def test_unknown_move_is_one_line() -> None:
    """A journal move this version does not know fails naming it."""
    s = new_session()
    with pytest.raises(Exception) as e:
        s.apply({"type": "teleport"})
    assert str(e.value) == ("unknown railways move {'type': 'teleport'}; the journal may be from a "
                            "newer version")


def test_hidden_links_wait() -> None:
    """Three or more links gone at once is a blocked view: wait, change nothing."""
    s = new_session()
    assert s.pos is not None
    s.pos = replace(s.pos, links=(Link("L1", "red", 5, "S-red", "B2"), Link("L2", "white", 9, "S-white", "B1"),
                                  Link("L3", "red", 8, "S-red", "M")))
    v = s.interpret(observe())
    assert isinstance(v, Unclear) and v.text == "3 links hidden"


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000), st.integers(2, 5), st.sampled_from(["metropolis", "gigantopolis"]))
def test_whole_games_on_true_readings_score_as_the_simulator(seed: int, players: int, variant: str) -> None:
    """Any simulated game read perfectly ends with the simulator's final scores, every build exact."""
    catalogue = bench_catalogue()
    game = simulate_game(random.Random(seed), players, variant, catalogue)
    score = play_game(game, catalogue, oracle_reader(game, catalogue), random.Random(seed), ("crosses",))
    assert score.diverged == "" and score.failures == []
    assert score.exact == score.builds and score.scores_equal
    assert score.alerted == score.illegal
