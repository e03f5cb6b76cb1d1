"""A short band piece between two cards is a link's piece (pipeline._between_cards)."""

from __future__ import annotations

import numpy as np

from vision.railways.config import RailwaysConfig
from vision.railways.pipeline import _between_cards
from vision.railways.stations import Station


def _card(sid: str, c: tuple[float, float]) -> Station:
    h = 30.0
    poly = np.array([[c[0] - h, c[1] - h], [c[0] + h, c[1] - h], [c[0] + h, c[1] + h], [c[0] - h, c[1] + h]])
    return Station(sid, "town", c, poly, 60.0)


def test_a_piece_in_line_between_two_cards_is_kept() -> None:
    """10 mm of band midway between two cards 40 mm apart, heading from one to the other, is a link; across the gap, or off to one card's side, it is not."""
    cfg = RailwaysConfig()
    cards = [_card("A", (100.0, 100.0)), _card("B", (200.0, 100.0))]      # edges at x = 130 and 170
    along = np.array([[145.0, 101.0], [150.0, 100.0], [155.0, 99.0]])
    assert _between_cards(along, cards, cfg)
    assert _between_cards(along[::-1], cards, cfg)
    across = np.array([[150.0, 95.0], [150.0, 100.0], [150.0, 105.0]])
    assert not _between_cards(across, cards, cfg)
    one_side = np.array([[135.0, 180.0], [140.0, 180.0], [145.0, 180.0]])  # 50 mm below the gap
    assert not _between_cards(one_side, cards, cfg)
    assert not _between_cards(along, cards[:1], cfg)


def test_off_when_the_reach_is_zero() -> None:
    """short_link_card_mm 0 turns the rule off."""
    import dataclasses
    cfg = dataclasses.replace(RailwaysConfig(), short_link_card_mm=0.0)
    cards = [_card("A", (100.0, 100.0)), _card("B", (200.0, 100.0))]
    assert not _between_cards(np.array([[145.0, 100.0], [155.0, 100.0]]), cards, cfg)
