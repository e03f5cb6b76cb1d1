"""The shared screen toolkit: sizes, fitting, scrolling, and the generic screens' pixels."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest
from PIL import Image, ImageDraw

from firmware.screens import base

Ref = Callable[[Image.Image, str], None]
ITEMS = ["Confirm", "Undo last move", "Change game", "Calibrate", "Shutdown"]


def _lit(image: Image.Image, box: tuple[int, int, int, int]) -> int:
    """How many pixels are on inside box (x0, y0, x1, y1), x1/y1 exclusive."""
    return sum(1 for y in range(box[1], box[3]) for x in range(box[0], box[2])
               if image.getpixel((x, y)))


def test_canvas_is_blank_128x64_mode_1() -> None:
    """canvas() gives an all-black 128x64 1-bit image."""
    image, _ = base.canvas()
    assert (image.mode, image.size, image.getbbox()) == ("1", (128, 64), None)


def test_font_is_scalable_and_cached() -> None:
    """font(n) scales with n and the same object is reused."""
    assert base.font(24) is base.font(24)
    assert base.font(24).getbbox("Hg")[3] > base.font(12).getbbox("Hg")[3]


def test_fit_text_picks_largest_size_that_fits() -> None:
    """fit_text returns the biggest size whose width fits, and the smallest when none does."""
    _, draw = base.canvas()
    assert base.fit_text(draw, "42", 128).size == 24
    long = "Paperclip Railways"
    chosen = base.fit_text(draw, long, 128)
    assert base.text_width(draw, long, chosen) <= 128
    bigger = [s for s in base.FACT_SIZES if s > chosen.size]
    assert all(base.text_width(draw, long, base.font(s)) > 128 for s in bigger)
    assert base.fit_text(draw, "x" * 200, 50, sizes=(16, 12)).size == 12


def test_ellipsize_cuts_to_width() -> None:
    """A name too long for the row ends in an ellipsis and fits; a short one is unchanged."""
    _, draw = base.canvas()
    f = base.font(14)
    assert base.ellipsize(draw, "Town", f, 100) == "Town"
    cut = base.ellipsize(draw, "Paperclip Railways extended", f, 80)
    assert cut.endswith("\u2026") and base.text_width(draw, cut, f) <= 80


def test_clean_replaces_missing_glyphs() -> None:
    """Em dashes and arrows (absent from the font) become ASCII."""
    assert base.clean("Camera lost \u2014 retry \u2192") == "Camera lost - retry >"


def test_invert_flips_every_pixel() -> None:
    """invert() turns lit pixels off and the rest on, keeping mode "1"."""
    image = base.text_screen("T", ["x"])
    inv = base.invert(image)
    assert inv.mode == "1"
    assert all(bool(image.getpixel((x, y))) != bool(inv.getpixel((x, y)))
               for x in range(0, 128, 3) for y in range(0, 64, 3))


def test_menu_keeps_selection_visible() -> None:
    """Whatever item is selected, its highlighted row is on screen, with scroll marks as needed."""
    for selected in range(len(ITEMS)):
        image = base.menu_screen("Menu", ITEMS, selected)
        rows = [r for r in range(base.MENU_ROWS)
                if image.getpixel((1, base.BODY_TOP + r * base.MENU_ROW + 1))]
        assert len(rows) == 1, (selected, rows)
        first = min(max(0, selected - 1), len(ITEMS) - base.MENU_ROWS)
        assert rows[0] == selected - first
        up = _lit(image, (121, base.BODY_TOP, 128, base.BODY_TOP + 9)) > 0
        down = _lit(image, (121, 56, 128, 64)) > 0
        assert (up, down) == (first > 0, first + base.MENU_ROWS < len(ITEMS))


def test_menu_clamps_out_of_range_selection() -> None:
    """A selection past the end shows the last item selected instead of failing."""
    assert base.menu_screen("M", ITEMS, 99).tobytes() == base.menu_screen("M", ITEMS, 4).tobytes()


def test_text_screen_shrinks_long_lines() -> None:
    """A long line is drawn smaller than a short one, and stays inside the screen."""
    short = base.text_screen("", ["42"])
    long = base.text_screen("", ["Paperclip Railways wins"])
    sbox, lbox = short.getbbox(), long.getbbox()
    assert sbox is not None and lbox is not None
    assert sbox[3] - sbox[1] > lbox[3] - lbox[1]
    assert lbox[0] >= 0 and lbox[2] <= 128


@pytest.mark.parametrize("name, make", [
    ("base_text", lambda: base.text_screen("Town 77", ["Score 42", "Round 3 of 12"])),
    ("base_error", lambda: base.error_screen("Illegal move", "Tile not adjacent")),
    ("base_menu_top", lambda: base.menu_screen("Menu", ITEMS, 0)),
    ("base_menu_scrolled", lambda: base.menu_screen("Menu", ITEMS, 3)),
    ("base_number", lambda: base.number_screen("Players", 4, "SELECT to accept")),
    ("base_splash", lambda: base.splash_screen("tableref", "starting")),
    ("base_parked", lambda: base.parked_screen()),
    ("base_game_menu", lambda: base.game_menu_screen(
        ["Town 77", "Paperclip Railways", "Papertown", "Paper Tales"], 1)),
    ("base_confirm", lambda: base.confirm_screen("2 tiles changed")),
    ("base_camera_lost", lambda: base.camera_lost_screen(4)),
    ("base_camera_moved", lambda: base.camera_moved_screen()),
    ("base_unclear", lambda: base.unclear_screen("A3 changed")),
])
def test_generic_screens_match_reference(name: str, make: Callable[[], Image.Image],
                                         assert_matches_ref: Ref) -> None:
    """Each generic screen is pixel-identical to its reviewed reference image."""
    assert_matches_ref(make(), name)


def test_reference_check_reports_difference(assert_matches_ref: Callable[..., None],
                                            tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The checker passes an equal image, fails on a one-pixel change, and on a missing reference."""
    monkeypatch.delenv("TABLEREF_UPDATE_REFS", raising=False)
    image = base.camera_moved_screen()
    image.save(tmp_path / "moved.png")
    assert_matches_ref(image, "moved", tmp_path)
    changed = image.copy()
    ImageDraw.Draw(changed).point((0, 63), fill=255)
    with pytest.raises(AssertionError, match=r"'moved' differs from .* in 1 pixels"):
        assert_matches_ref(changed, "moved", tmp_path)
    with pytest.raises(AssertionError, match=r"absent.png: no reference image; run the test with "
                                             r"TABLEREF_UPDATE_REFS=1"):
        assert_matches_ref(image, "absent", tmp_path)


def test_many_lines_are_packed_not_dropped() -> None:
    """Four lines under a title and five without one all get drawn (packed by ink height)."""
    four = base.text_screen("Scores", ["Ann 12", "Bob 9", "Cy 7", "Dee 15"])
    five = base.text_screen("", ["one", "two", "three", "four", "five"])

    def bands(image: Image.Image, top: int) -> int:
        """Runs of lit rows below `top`: one per text line."""
        rows = [any(image.getpixel((x, y)) for x in range(128)) for y in range(top, 64)]
        return sum(1 for i, lit in enumerate(rows) if lit and (i == 0 or not rows[i - 1]))
    assert bands(four, base.BODY_TOP) == 4
    assert bands(five, 0) == 5
