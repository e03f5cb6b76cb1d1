"""A link's end clip lies inside its station's card, a little past the card's edge: the
counter's end windows from the cards (pipeline._card_edges, _card_windows) and the
counter's use of them (clip_counter.count_clips windows)."""

from __future__ import annotations

import numpy as np

from railway_chains import slack_chain
from vision.railways.clip_counter import STEP_MM, count_clips
from vision.railways.config import RailwaysConfig
from vision.railways.pipeline import ChainStrip, _card_edges, _card_windows, _reach_cards
from vision.railways.stations import Station


def _card(x0: float, y0: float, side: float = 60.0, sid: str = "S1") -> Station:
    poly = np.array([[x0, y0], [x0 + side, y0], [x0 + side, y0 + side], [x0, y0 + side]], dtype=np.float64)
    return Station(sid, "town", (x0 + side / 2, y0 + side / 2), poly, side)


def test_the_card_edges_are_where_the_strip_leaves_each_card() -> None:
    """A strip from inside one card to inside another: the edges are the inside rows
    nearest the chain (x 100 and 400); an end far from any card has none."""
    cfg = RailwaysConfig()
    pts = np.stack([np.arange(60.0, 440.0 + 1e-9, STEP_MM), np.full(761, 130.0)], axis=1)
    r0, r1 = int(32 / STEP_MM), len(pts) - 1 - int(32 / STEP_MM)      # the path's ends: x 92 and 408
    e0, e1 = _card_edges(pts, r0, r1, [_card(40.0, 100.0), _card(400.0, 100.0, sid="S2")], cfg)
    assert e0 is not None and e1 is not None
    assert abs(pts[int(e0 / STEP_MM), 0] - 100.0) <= STEP_MM
    assert abs(pts[int(e1 / STEP_MM), 0] - 400.0) <= STEP_MM
    assert _card_edges(pts, r0, r1, [_card(40.0, 100.0)], cfg)[1] is None


def test_a_card_window_keeps_the_count_where_the_wire_is_not_seen_to_its_end() -> None:
    """The last 20 mm of a 9-clip chain show no wire (on a card of the chain's colour):
    counted from the seen end alone the last clip is lost; with the card's window (its
    edge 8 mm before the chain's end) the count is exact."""
    cfg = RailwaysConfig()
    c = slack_chain(41, 9, 32.0)
    s = c.strip.copy()
    gone = int((c.last_mm - 20.0) / STEP_MM)
    s[gone:] = 0.0
    w = np.ones_like(s)
    kw = dict(end_before_mm=20.0, end_after_mm=30.0, end_slope=0.15)
    plain = count_clips(s, w, 32.0, 9.0, 1.25, 20.0, gone * STEP_MM, **kw)
    st = ChainStrip(s, w, 40, gone, np.zeros((len(s), 2)), (np.zeros(1), np.zeros(1)), False,
                    (None, c.last_mm - 8.0))
    wins = _card_windows(st, 32.0, cfg)
    assert wins[0] is None and wins[1] is not None
    carded = count_clips(s, w, 32.0, 9.0, 1.25, 20.0, gone * STEP_MM, windows=wins, **kw)
    assert plain.count == 8
    assert carded.count == 9


def test_a_path_that_wanders_inside_its_card_is_cut_at_the_card() -> None:
    """A path running straight into a card (edge at x 400) and then 20 mm along inside it
    (a walk following the card's printing) is cut at its first point inside the card;
    its other end, 20 mm short of its card, is left as it is."""
    from vision.railways.pipeline import _cut_at_cards
    cfg = RailwaysConfig()
    straight = np.stack([np.arange(60.0, 404.0, 2.0), np.full(172, 130.0)], axis=1)
    along = np.stack([np.full(10, 404.0), np.arange(132.0, 152.0, 2.0)], axis=1)
    path = np.vstack([straight, along])
    out = _cut_at_cards(path, [_card(0.0, 100.0), _card(400.0, 100.0, sid="S2")], cfg)
    assert out[0][0] == 60.0
    assert 400.0 <= out[-1][0] <= 402.0 and out[-1][1] == 130.0


def test_an_end_at_no_station_is_carried_on_into_the_card_ahead() -> None:
    """A path from inside card S1 stopping 40 mm short of card S2 ahead is carried straight
    on to 2 mm inside S2; the start (at S1) is left as it was."""
    cfg = RailwaysConfig()
    path = np.stack([np.arange(90.0, 361.0, 2.0), np.full(136, 130.0)], axis=1)
    got, reached = _reach_cards(path, [_card(40.0, 100.0), _card(400.0, 100.0, sid="S2")], cfg)
    assert reached == (False, True)
    assert np.array_equal(got[:len(path)], path)
    assert 401.0 <= got[-1, 0] <= 403.0 and abs(got[-1, 1] - 130.0) < 1e-6


def test_an_end_is_not_carried_past_reach_aside_or_back_to_its_own_card() -> None:
    """No card within end_reach_mm ahead (100 mm away), a card beside the line, and the
    card of the other end behind a U-turn: the path is left as it was; with end_reach_mm 0 too."""
    path = np.stack([np.arange(90.0, 321.0, 2.0), np.full(116, 130.0)], axis=1)
    aside = _card(330.0, 200.0, sid="S3")
    for cfg in (RailwaysConfig(), RailwaysConfig(end_reach_mm=0.0)):
        got, reached = _reach_cards(path, [_card(40.0, 100.0), _card(420.0, 100.0, sid="S2"), aside], cfg)
        assert reached == (False, False) and np.array_equal(got, path)
    back = np.vstack([path, np.stack([np.arange(320.0, 149.0, -2.0), np.full(86, 170.0)], axis=1)])
    got, reached = _reach_cards(back, [_card(40.0, 100.0)], RailwaysConfig())
    assert reached == (False, False) and np.array_equal(got, back)
    got, reached = _reach_cards(back, [_card(40.0, 100.0), _card(40.0, 140.0, sid="S4")], RailwaysConfig())
    assert reached == (False, True) and 98.0 <= got[-1, 0] <= 99.0


def test_a_piece_joining_no_station_is_not_carried_to_one() -> None:
    """A piece with both ends far from every card, heading into a card 40 mm ahead, is left as it was (a fragment is no link)."""
    path = np.stack([np.arange(200.0, 361.0, 2.0), np.full(81, 130.0)], axis=1)
    got, reached = _reach_cards(path, [_card(40.0, 100.0), _card(400.0, 100.0, sid="S2")], RailwaysConfig())
    assert reached == (False, False) and np.array_equal(got, path)
