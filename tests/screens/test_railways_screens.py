"""Paperclip Railways screens, pixel-exact against tests/screens/ref/railways_*.png."""

from __future__ import annotations

from typing import Callable

import pytest
from PIL import Image

from firmware.screens import railways as screens
from rules.railways import BuiltLink, Railways, Refusal, parse_position
from rules.railways.simulate import placeholder_catalogue

Ref = Callable[[Image.Image, str], None]

POS = """
railways metropolis turn=6 phase=playing penalty=2 last=-
player red clips=41 cubes=18 score=23 hand=?*5
player white clips=47 cubes=20 score=17 hand=?*4
player green clips=52 cubes=22 score=9 hand=?*5
station S-red starting-city start=red cubes=red
station S-white starting-city start=white cubes=white
station S-green starting-city start=green cubes=-
station M metropolis cubes=red,white
station K city cubes=green
link L1 white 6 S-white M
link L2 green 9 S-red K
link L3 red 9 S-red M
deck ?*30
"""
R = Railways(placeholder_catalogue())


def _build() -> tuple[BuiltLink, screens.BuildReport]:
    b = BuiltLink("red", 7, "M", "N12", cards_discarded=3, new_card="town", touches_links=("L1", "L2"),
                  river_parts=1)
    return b, R.build(parse_position(POS), b)[1]


def test_build_screen(assert_matches_ref: Ref) -> None:
    """After a build: colour and clips, the route, the costs and each player's points."""
    b, report = _build()
    assert_matches_ref(screens.build_screen(b, report), "railways_build")


def test_build_screen_without_crossings(assert_matches_ref: Ref) -> None:
    """A clean build says so."""
    b = BuiltLink("red", 8, "S-red", "K", cards_discarded=3)
    assert_matches_ref(screens.build_screen(b, R.build(parse_position(POS), b)[1]), "railways_build_clean")


def test_confirm_and_cards_paid(assert_matches_ref: Ref) -> None:
    """The confirm step and the editable number of cards discarded."""
    b, _ = _build()
    assert_matches_ref(screens.confirm_build_screen(b), "railways_confirm")
    assert_matches_ref(screens.cards_paid_screen(2, 7), "railways_cards_paid")


def test_scores_screen(assert_matches_ref: Ref) -> None:
    """Scores, clips and cubes per player, the player to move highlighted."""
    assert_matches_ref(screens.scores_screen(parse_position(POS)), "railways_scores")


def test_scores_screen_five_players_fit(assert_matches_ref: Ref) -> None:
    """Five players still fit under the title."""
    text = POS.replace("deck", "player black clips=48 cubes=20 score=100 hand=-\n"
                               "player yellow clips=48 cubes=20 score=5 hand=-\ndeck")
    image = screens.scores_screen(parse_position(text))
    assert image.getbbox() is not None and image.getbbox()[3] <= 64  # type: ignore[index]
    assert_matches_ref(image, "railways_scores5")


def test_longest_link_screen(assert_matches_ref: Ref) -> None:
    """The longest link and all tied holders."""
    assert_matches_ref(screens.longest_link_screen(parse_position(POS)), "railways_longest")


def test_end_screen(assert_matches_ref: Ref) -> None:
    """The winner and the totals."""
    result = R.final_result(parse_position(POS.replace("phase=playing", "phase=over")))
    assert_matches_ref(screens.end_screen(result), "railways_end")


def test_measure_screen(assert_matches_ref: Ref) -> None:
    """Two stations' straight distance in clips."""
    assert_matches_ref(screens.measure_screen("B2", "N7", 231.0, 14.0), "railways_measure")


def test_illegal_screen(assert_matches_ref: Ref) -> None:
    """An illegal link is shown inverted with a short reason."""
    assert_matches_ref(screens.illegal_screen(Refusal.TOO_SHORT, "3 < 4"), "railways_illegal")


def test_card_entry_screens(assert_matches_ref: Ref) -> None:
    """Entering an unknown card: a type step and a number step."""
    assert_matches_ref(screens.card_field_screen(0, "countryside"), "railways_card_type")
    assert_matches_ref(screens.card_field_screen(6, "-"), "railways_card_min")


@pytest.mark.parametrize("reason", list(Refusal))
def test_every_refusal_has_a_short_text_that_fits(reason: Refusal) -> None:
    """Each refusal has a short OLED text no wider than the screen at 12 px."""
    from firmware.screens.base import canvas, font, text_width
    _, draw = canvas()
    assert text_width(draw, screens.REFUSAL_SHORT[reason], font(12)) <= 126
