"""Town 77 OLED screens, pixel-exact against tests/screens/ref/town77_*.png.

Regenerate with TABLEREF_UPDATE_REFS=1 .venv/bin/python -m pytest tests/screens/test_town77_screens.py
and look at the PNGs before committing.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PIL import Image

from firmware.screens import town77 as scr
from rules.town77.challenge import Hint, PlayLevel
from rules.town77.city import Cell
from rules.town77.game import rank_players
from rules.town77.placement import Reason
from rules.town77.tiles import Tile, TileLabels

Ref = Callable[[Image.Image, str], None]
WORDS = TileLabels(("house", "tower", "villa", "barn", "church", "shop", "mill"),
                   ("red", "blue", "green", "yellow", "pink", "black", "white"))

SCREENS: dict[str, Callable[[], Image.Image]] = {
    "town77_setup": lambda: scr.setup_screen(4),
    "town77_turn": lambda: scr.turn_screen(1, 12),
    "town77_placed_ok": lambda: scr.placement_screen(Cell.parse("C4"), Tile.parse("c4"), True, 0),
    "town77_placed_words": lambda: scr.placement_screen(
        Cell.parse("G7"), Tile(0, 1), True, 2, WORDS),
    "town77_placed_no": lambda: scr.placement_screen(Cell.parse("B2"), Tile.parse("d1"), False, 1),
    "town77_illegal_colour": lambda: scr.illegal_screen(Cell.parse("B2"),
                                                        Reason.SAME_COLOUR_IN_COLUMN),
    "town77_illegal_touch": lambda: scr.illegal_screen(Cell.parse("E5"), Reason.NOT_TOUCHING),
    "town77_left": lambda: scr.left_screen([2, 0], 4),
    "town77_left_none": lambda: scr.left_screen([], 3),
    "town77_tiles_left": lambda: scr.tiles_left_screen(2, 3),
    "town77_ranking": lambda: scr.ranking_screen(rank_players([0, 0, 2], [0, 1, 2])),
    "town77_ranking_more": lambda: scr.ranking_screen(
        rank_players([3, 0, 1, 0, 2], [1, 3, 0, 2, 4])),
    "town77_level": lambda: scr.level_screen(23),
    "town77_end_level": lambda: scr.challenge_end_screen(41),
    "town77_end_lost": lambda: scr.challenge_end_screen(9, Reason.SAME_SHAPE_IN_ROW),
    "town77_tops": lambda: scr.tops_screen([Tile.parse("a3"), None, Tile.parse("g6")],
                                           [True, False, False]),
    "town77_tops_words": lambda: scr.tops_screen(
        [Tile(4, 0), Tile(1, 6), Tile(2, 2)], [True, True, False], WORDS),
    "town77_hint": lambda: scr.hint_screen(Hint(1, Tile.parse("b5"), Cell.parse("D3"), 31, 29)),
    "town77_hint_none": lambda: scr.hint_screen(None),
}


@pytest.mark.parametrize("name", sorted(SCREENS))
def test_screen_matches_reference(name: str, assert_matches_ref: Ref) -> None:
    """Each Town 77 screen is pixel-for-pixel its reference image."""
    assert_matches_ref(SCREENS[name](), name)


def _lit(image: Image.Image) -> int:
    return int(image.convert("L").histogram()[255])


def test_illegal_alert_is_inverted() -> None:
    """The illegal-placement alert is mostly lit (black on white), unlike a normal screen."""
    alert = scr.illegal_screen(Cell.parse("B2"), Reason.CELL_TAKEN)
    normal = scr.turn_screen(0, 5)
    assert _lit(alert) > 128 * 64 // 2 > _lit(normal)


def test_every_reason_and_level_has_a_screen() -> None:
    """No reason or play level is missing its screen text, and all render 128x64 mode 1."""
    for reason in Reason:
        image = scr.illegal_screen(Cell(0, 0), reason)
        assert (image.mode, image.size) == ("1", (128, 64))
    assert set(scr.LEVEL_SHORT) == set(PlayLevel)
    for placed in range(50):
        assert scr.level_screen(placed).size == (128, 64)


def test_setup_choices_cover_two_to_five_and_solo() -> None:
    """The setup menu offers 2, 3, 4, 5 players and the solo Challenge."""
    assert [n for _, n in scr.SETUP_CHOICES] == [2, 3, 4, 5, scr.SOLO]


def test_ranking_scrolls() -> None:
    """Rows past the third are reached by scrolling, and the title says more follow."""
    standings = rank_players([3, 0, 1, 0, 2], [1, 3, 0, 2, 4])
    assert scr.ranking_screen(standings, 0).tobytes() != scr.ranking_screen(standings, 3).tobytes()
