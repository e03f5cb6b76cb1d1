"""The screen toolkit: pure functions from state to a 128x64 1-bit image.

Screens never touch the display; the loop passes what they return to Display.show().
That keeps every screen testable pixel-for-pixel (tests/screens/refimg.py) and lets the
same screen show on an OLED, in PNG files or in a terminal.

Readability from a seat at the table drives the sizes: titles 12 px, key facts 16-24 px,
few words. The font is Pillow's built-in scalable default (Aileron, Pillow >= 10.1),
so no font files ship; it has no em dash or arrow glyphs, so `clean()` swaps those for
ASCII and arrows are drawn as triangles.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

from PIL import Image, ImageChops, ImageDraw, ImageFont

from firmware.display.base import HEIGHT, WIDTH

__all__ = [
    "WIDTH", "HEIGHT", "ON", "OFF", "TITLE_SIZE", "BODY_TOP", "Font",
    "canvas", "font", "clean", "text_width", "fit_text", "ellipsize", "invert",
    "draw_title", "text_screen", "menu_screen", "number_screen",
    "splash_screen", "parked_screen", "game_menu_screen", "confirm_screen",
    "camera_lost_screen", "camera_moved_screen", "error_screen",
]

Font = ImageFont.FreeTypeFont

TITLE_SIZE = 12
TITLE_BAR = 14          # title text plus the rule under it
BODY_TOP = TITLE_BAR + 1
FACT_SIZES: tuple[int, ...] = (24, 20, 16, 14, 12, 10)
ON, OFF = 255, 0   # mode "1" pixel values (Pillow stores lit pixels as 255)

# Glyphs the default font lacks (they would draw as an empty box) -> ASCII stand-ins.
_REPLACEMENTS = {"\u2014": "-", "\u2013": "-", "\u2192": ">", "\u2190": "<",
                 "\u00d7": "x", "\u2713": "ok", "\u2018": "'", "\u2019": "'",
                 "\u201c": '"', "\u201d": '"'}


def canvas() -> tuple[Image.Image, ImageDraw.ImageDraw]:
    """A blank (black) 128x64 mode "1" image and a draw handle on it."""
    image = Image.new("1", (WIDTH, HEIGHT), 0)
    draw = ImageDraw.Draw(image)
    draw.fontmode = "1"  # no anti-aliasing: the OLED has 1-bit pixels
    return image, draw


@lru_cache(maxsize=None)
def font(size: int) -> Font:
    """The built-in scalable font at `size` px (cached: loading costs ~1 ms)."""
    f = ImageFont.load_default(size=size)
    assert isinstance(f, ImageFont.FreeTypeFont), "Pillow >= 10.1 with FreeType is required"
    return f


def clean(text: str) -> str:
    """Replace characters the built-in font cannot draw with ASCII look-alikes."""
    for bad, good in _REPLACEMENTS.items():
        text = text.replace(bad, good)
    return text


def text_width(draw: ImageDraw.ImageDraw, text: str, fnt: Font) -> int:
    return int(round(draw.textlength(clean(text), font=fnt)))


def fit_text(draw: ImageDraw.ImageDraw, text: str, max_width: int,
             sizes: Sequence[int] = FACT_SIZES) -> Font:
    """The largest font among `sizes` in which `text` fits `max_width`; the smallest if none does."""
    ordered = sorted(sizes, reverse=True)
    for size in ordered:
        f = font(size)
        if text_width(draw, text, f) <= max_width:
            return f
    return font(ordered[-1])


def ellipsize(draw: ImageDraw.ImageDraw, text: str, fnt: Font, max_width: int) -> str:
    """`text` cut to `max_width` with a trailing "..." (so a long name never runs off-screen)."""
    text = clean(text)
    if text_width(draw, text, fnt) <= max_width:
        return text
    while text and text_width(draw, text + "\u2026", fnt) > max_width:
        text = text[:-1]
    return text.rstrip() + "\u2026"


def invert(image: Image.Image) -> Image.Image:
    """Black on white: used to flag an illegal move so it is noticed across the table."""
    return ImageChops.invert(image.convert("1"))


def draw_title(draw: ImageDraw.ImageDraw, title: str, fill: int = ON) -> None:
    """The 12 px title on the top line with a rule under it."""
    f = font(TITLE_SIZE)
    # y = -2: caps sit at rows 1-10, descenders end above the rule at row 13
    draw.text((1, -2), ellipsize(draw, title, f, WIDTH - 2), font=f, fill=fill)
    draw.line([(0, TITLE_BAR - 1), (WIDTH - 1, TITLE_BAR - 1)], fill=fill)


def _line_height(fnt: Font) -> int:
    ascent, descent = fnt.getmetrics()
    return int(ascent + descent)


def _fit_block(draw: ImageDraw.ImageDraw, lines: Sequence[str], width: int, height: int,
               sizes: Sequence[int] = FACT_SIZES) -> Font:
    """The largest size in which every line fits the width and all lines fit the height."""
    ordered = sorted(sizes, reverse=True)
    for size in ordered:
        f = font(size)
        if _line_height(f) * len(lines) <= height and all(
                text_width(draw, line, f) <= width for line in lines):
            return f
    return font(ordered[-1])


def _draw_lines(draw: ImageDraw.ImageDraw, lines: Sequence[str], top: int, bottom: int,
                sizes: Sequence[int] = FACT_SIZES) -> None:
    """Lines centred horizontally, the block centred vertically, as large as they fit.

    When even the smallest size at normal spacing cannot hold every line, the lines are
    packed by their ink height instead (descenders of one line may then touch the next
    line's accents, never its letters), and only what still does not fit is dropped.
    """
    if not lines:
        return
    width = WIDTH - 2
    f = _fit_block(draw, lines, width, bottom - top, sizes)
    step = _line_height(f)
    lift = 0
    if step * len(lines) > bottom - top:
        ink_top, ink_bottom = f.getbbox("Hgjy")[1], f.getbbox("Hgjy")[3]
        step, lift = int(ink_bottom - ink_top) + 1, int(ink_top)
    shown = list(lines[: max(1, (bottom - top) // step)])
    y = top + max(0, (bottom - top - step * len(shown)) // 2)
    for line in shown:
        text = ellipsize(draw, line, f, width)
        x = (WIDTH - text_width(draw, text, f)) // 2
        draw.text((x, y - lift), text, font=f, fill=ON)
        y += step


def text_screen(title: str, lines: Sequence[str], inverted: bool = False) -> Image.Image:
    """A title and a few lines, each line as large as the space allows (24 px down to 10 px)."""
    image, draw = canvas()
    top = 0
    if title:
        draw_title(draw, title)
        top = BODY_TOP
    _draw_lines(draw, lines, top, HEIGHT)
    return invert(image) if inverted else image


def _triangle(draw: ImageDraw.ImageDraw, x: int, y: int, size: int, direction: str,
              fill: int = ON) -> None:
    """A small filled arrow (the font has no arrow glyphs). (x, y) is the box's top-left."""
    s = size - 1
    points = {
        "up": [(x, y + s), (x + s, y + s), (x + s // 2, y)],
        "down": [(x, y), (x + s, y), (x + s // 2, y + s)],
        "left": [(x + s, y), (x + s, y + s), (x, y + s // 2)],
        "right": [(x, y), (x, y + s), (x + s, y + s // 2)],
    }[direction]
    draw.polygon(points, fill=fill)


MENU_SIZE = 14
MENU_ROW = 16
MENU_ROWS = (HEIGHT - BODY_TOP) // MENU_ROW   # 3 rows under the title


def menu_screen(title: str, items: Sequence[str], selected: int) -> Image.Image:
    """A list with the selected row inverted; scrolls so the selection is always visible.

    Triangles at the right edge say there is more above / below.
    """
    image, draw = canvas()
    draw_title(draw, title)
    if not items:
        _draw_lines(draw, ["(empty)"], BODY_TOP, HEIGHT, sizes=(12,))
        return image
    selected = max(0, min(selected, len(items) - 1))
    rows = MENU_ROWS
    first = min(max(0, selected - rows // 2), max(0, len(items) - rows))
    f = font(MENU_SIZE)
    text_room = WIDTH - 4 - 8   # leave a column for the scroll marks
    for row, index in enumerate(range(first, min(first + rows, len(items)))):
        y = BODY_TOP + row * MENU_ROW
        label = ellipsize(draw, items[index], f, text_room)
        if index == selected:
            draw.rectangle([(0, y), (WIDTH - 10, y + MENU_ROW - 1)], fill=ON)
            draw.text((3, y), label, font=f, fill=OFF)
        else:
            draw.text((3, y), label, font=f, fill=ON)
    if first > 0:
        _triangle(draw, WIDTH - 7, BODY_TOP + 1, 7, "up")
    if first + rows < len(items):
        _triangle(draw, WIDTH - 7, HEIGHT - 8, 7, "down")
    return image


def number_screen(title: str, value: int | float | str, hint: str = "") -> Image.Image:
    """A number being edited: PREV/NEXT change it (the side arrows), SELECT accepts (the hint)."""
    image, draw = canvas()
    draw_title(draw, title)
    bottom = HEIGHT
    if hint:
        hf = font(10)
        hint_text = ellipsize(draw, hint, hf, WIDTH - 2)
        draw.text(((WIDTH - text_width(draw, hint_text, hf)) // 2, HEIGHT - 12),
                  hint_text, font=hf, fill=ON)
        bottom = HEIGHT - 12
    text = clean(str(value))
    f = fit_text(draw, text, WIDTH - 28, sizes=(28, 24, 20, 16, 12))
    ascent, descent = f.getmetrics()
    y = BODY_TOP + max(0, (bottom - BODY_TOP - (ascent + descent)) // 2)
    draw.text(((WIDTH - text_width(draw, text, f)) // 2, y), text, font=f, fill=ON)
    mid = BODY_TOP + (bottom - BODY_TOP) // 2 - 4
    _triangle(draw, 2, mid, 9, "left")
    _triangle(draw, WIDTH - 11, mid, 9, "right")
    return image


# --- the generic screens every game shares ------------------------------------------

def splash_screen(message: str = "tableref", detail: str = "") -> Image.Image:
    """Start-up and "parked" messages: one big word and an optional small line."""
    image, draw = canvas()
    big = fit_text(draw, message, WIDTH - 4, sizes=(24, 20, 16, 12))
    lines_h = _line_height(big) + (14 if detail else 0)
    y = max(0, (HEIGHT - lines_h) // 2)
    text = ellipsize(draw, message, big, WIDTH - 2)
    draw.text(((WIDTH - text_width(draw, text, big)) // 2, y), text, font=big, fill=ON)
    if detail:
        small = font(12)
        d = ellipsize(draw, detail, small, WIDTH - 2)
        draw.text(((WIDTH - text_width(draw, d, small)) // 2, y + _line_height(big) + 1),
                  d, font=small, fill=ON)
    return image


def parked_screen(reason: str = "Paused") -> Image.Image:
    """The referee is idle (no game, or paused); SELECT wakes it."""
    return splash_screen(reason, "SELECT to resume")


def game_menu_screen(games: Sequence[str], selected: int) -> Image.Image:
    """Which game is on the table."""
    return menu_screen("Choose game", games, selected)


def confirm_screen(message: str, question: str = "confirm?",
                   yes: str = "OK", no: str = "Fix") -> Image.Image:
    """"2 tiles changed - confirm?": the reading needs a human yes before it counts.

    The button legend along the bottom sits over the buttons: left = `no` (PREV),
    right = `yes` (NEXT)... the loop decides the mapping; the legend only has to match it.
    """
    image, draw = canvas()
    draw_title(draw, question)
    legend_top = HEIGHT - 13
    _draw_lines(draw, [message], BODY_TOP, legend_top, sizes=(20, 16, 14, 12, 10))
    f = font(12)
    draw.line([(0, legend_top), (WIDTH - 1, legend_top)], fill=ON)
    draw.text((2, legend_top - 1), ellipsize(draw, no, f, 56), font=f, fill=ON)
    yes_text = ellipsize(draw, yes, f, 56)
    draw.text((WIDTH - 2 - text_width(draw, yes_text, f), legend_top - 1), yes_text, font=f,
              fill=ON)
    return image


def camera_lost_screen(retry_in_s: float) -> Image.Image:
    """Shown while the camera is unplugged or busy, so players know the referee is blind."""
    seconds = max(0, int(round(retry_in_s)))
    return text_screen("Camera lost", ["No picture", f"retrying in {seconds} s"])


def camera_moved_screen() -> Image.Image:
    """The markers moved in the frame: the table is being located again."""
    return text_screen("Camera moved", ["Re-fitting", "the table..."])


def unclear_screen(reason: str) -> Image.Image:
    """The referee has looked at the table several times and cannot make it out: what
    it cannot read, so the players can straighten a tile or move what is in the way."""
    what = reason.strip()
    return text_screen("Can't read", [what[:1].upper() + what[1:], "Check the table"])


def error_screen(title: str, message: str) -> Image.Image:
    """An error the players must act on (inverted, to be seen across the table)."""
    return text_screen(title, [message], inverted=True)
