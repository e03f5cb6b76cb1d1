"""Town 77 OLED screens: pure functions from rules.town77 values to 128x64 mode "1" images.

Read from a seat across the table: the one fact that matters is drawn big (a player,
a cell, a count), everything else is a short title. Illegal placements and a lost
Challenge are inverted so they are noticed without reading.
"""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image, ImageDraw

from firmware.screens.base import (
    BODY_TOP,
    HEIGHT,
    OFF,
    ON,
    WIDTH,
    canvas,
    draw_title,
    ellipsize,
    fit_text,
    font,
    menu_screen,
    number_screen,
    text_screen,
    text_width,
)
from rules.town77.challenge import Hint, PlayLevel
from rules.town77.city import Cell
from rules.town77.game import Standing
from rules.town77.placement import Reason
from rules.town77.tiles import Tile, TileLabels

SOLO = 1
"""The player count that means the solo Challenge in SETUP_CHOICES."""

SETUP_CHOICES: tuple[tuple[str, int], ...] = (
    ("2 players", 2), ("3 players", 3), ("4 players", 4), ("5 players", 5),
    ("Solo challenge", SOLO))

LEVEL_SHORT: dict[PlayLevel, str] = {
    PlayLevel.KING: "King of the World!",
    PlayLevel.GOLD: "Gold medal soon!",
    PlayLevel.EUROPE: "Top-4 in Europe!",
    PlayLevel.NATIONALS: "Nationals in bag!",
    PlayLevel.DISTRICT: "District champion!",
    PlayLevel.MAYOR: "Beat the Mayor?!",
    PlayLevel.CLASS: "Top of the class?!",
    PlayLevel.GOOD_JOB: "Good job!",
    PlayLevel.SOME_DAYS: "Some days...",
}
"""The rulebook's Play Level texts cut to what fits one 12 px line."""

DEFAULT_LABELS = TileLabels()


def _centred(draw: ImageDraw.ImageDraw, text: str, y: int, sizes: Sequence[int],
             left: int = 0, right: int = WIDTH, fill: int = ON) -> int:
    """Draw `text` centred between left and right, as large as fits; returns its bottom."""
    f = fit_text(draw, text, right - left - 2, sizes)
    text = ellipsize(draw, text, f, right - left - 2)
    x = left + (right - left - text_width(draw, text, f)) // 2
    draw.text((x, y), text, font=f, fill=fill)
    ascent, descent = f.getmetrics()
    return y + int(ascent + descent)


def _two_lines(text: str) -> list[str]:
    """Split a short phrase into two balanced lines so it can be drawn larger."""
    words = text.split()
    if len(words) < 2:
        return [text]
    best = min(range(1, len(words)),
               key=lambda i: abs(len(" ".join(words[:i])) - len(" ".join(words[i:]))))
    return [" ".join(words[:best]), " ".join(words[best:])]


def _block(draw: ImageDraw.ImageDraw, lines: Sequence[str], top: int, bottom: int,
           left: int, right: int, sizes: Sequence[int], fill: int = ON) -> None:
    """Lines centred in the box by their ink (caps to descenders), as large as they fit."""
    width = right - left - 2
    for size in sorted(sizes, reverse=True):
        f = font(size)
        _, ink_top, _, ink_bottom = f.getbbox("Hg")
        step = ink_bottom - ink_top + 1
        if step * len(lines) <= bottom - top and all(
                text_width(draw, line, f) <= width for line in lines):
            break
    y = top + (bottom - top - step * len(lines)) // 2 - int(ink_top)
    for line in lines:
        text = ellipsize(draw, line, f, width)
        x = left + (right - left - text_width(draw, text, f)) // 2
        draw.text((x, y), text, font=f, fill=fill)
        y += int(step)


def _tile_name(draw: ImageDraw.ImageDraw, name: str, top: int, bottom: int, left: int,
               right: int, sizes: Sequence[int]) -> None:
    """A tile's label: one line if it fits at 14 px or more, else colour over shape."""
    big = fit_text(draw, name, right - left - 2, sizes)
    if " " not in name or (big.size >= 14 and
                           text_width(draw, name, big) <= right - left - 2):
        _block(draw, [name], top, bottom, left, right, sizes)
    else:
        _block(draw, name.split(" ", 1), top, bottom, left, right, sizes)


def player_name(player: int) -> str:
    """Players are numbered from 0 in the rules, from 1 on the table."""
    return f"Player {player + 1}"


# -- setup and turns -------------------------------------------------------------------

def setup_screen(selected: int) -> Image.Image:
    """Choose 2-5 players or the solo Challenge; SETUP_CHOICES maps the row to a count."""
    return menu_screen("Town 77: who plays?", [label for label, _ in SETUP_CHOICES], selected)


def turn_screen(player: int, placed: int) -> Image.Image:
    """Whose turn it is, huge, with the city's tile count in the title."""
    return text_screen(f"Town 77   {placed} placed", [player_name(player)])


def placement_screen(cell: Cell, tile: Tile, legal: bool, player: int | None = None,
                     labels: TileLabels = DEFAULT_LABELS) -> Image.Image:
    """The last placement: the cell big on the left, the tile and OK/NO on the right.

    An illegal one shows NO in a filled box; illegal_screen then says why.
    """
    image, draw = canvas()
    draw_title(draw, f"{player_name(player)} placed" if player is not None else "Placed")
    half = WIDTH // 2
    _block(draw, [cell.name], BODY_TOP, HEIGHT, 0, half, (36, 32, 28, 24))
    draw.line([(half, BODY_TOP + 3), (half, HEIGHT - 4)], fill=ON)
    status_top = HEIGHT - 22
    _tile_name(draw, labels.name(tile), BODY_TOP + 1, status_top - 1, half + 1, WIDTH,
               (20, 16, 14, 12, 10))
    if legal:
        _block(draw, ["OK"], status_top, HEIGHT - 1, half + 1, WIDTH, (20,))
    else:
        draw.rectangle((half + 10, status_top, WIDTH - 10, HEIGHT - 1), fill=ON)
        _block(draw, ["NO"], status_top, HEIGHT - 1, half + 1, WIDTH, (20,), fill=OFF)
    return image


def illegal_screen(cell: Cell, reason: Reason) -> Image.Image:
    """The alert: which cell and why, in as few big words as the reason allows (inverted)."""
    return text_screen(f"NOT ALLOWED at {cell.name}", _two_lines(reason.short), inverted=True)


def left_screen(left: Sequence[int], players: int) -> Image.Image:
    """Who has left the game, in leaving order, and how many are still playing."""
    still = players - len(left)
    title = f"Left  ({still} still in)"
    if not left:
        return text_screen(title, ["Nobody yet"])
    return text_screen(title, ["  ".join(f"P{p + 1}" for p in left)])


def tiles_left_screen(player: int, count: int) -> Image.Image:
    """Entering a player's tiles left in hand at the end: PREV/NEXT change, SELECT accepts."""
    return number_screen(f"{player_name(player)}: tiles in hand", count, "SELECT to accept")


def ranking_screen(standings: Sequence[Standing], first: int = 0) -> Image.Image:
    """The final ranking, 3 rows at a time from row `first`: rank, player, tiles left.

    Rows read '1.  P2   0 tiles', the winner's row inverted; '(+n below)' in the title
    says NEXT scrolls to more rows (5 players).
    """
    image, draw = canvas()
    rows = list(standings)[first:first + 3]
    more = len(standings) - first - len(rows)
    draw_title(draw, "Ranking" + (f"  (+{more} below)" if more > 0 else ""))
    f = font(14)
    row_h = (HEIGHT - BODY_TOP) // 3
    for i, s in enumerate(rows):
        y = BODY_TOP + i * row_h - 1
        if s.rank == 1:
            draw.rectangle([(0, y + 1), (WIDTH - 1, y + row_h)], fill=ON)
        fill = OFF if s.rank == 1 else ON
        draw.text((3, y), f"{s.rank}.", font=f, fill=fill)
        draw.text((26, y), f"P{s.player + 1}", font=f, fill=fill)
        tiles = f"{s.tiles_left} tile" + ("" if s.tiles_left == 1 else "s")
        draw.text((WIDTH - 3 - text_width(draw, tiles, f), y), tiles, font=f, fill=fill)
    return image


# -- the solo Challenge ----------------------------------------------------------------------

def level_screen(placed: int) -> Image.Image:
    """The live Play Level: tiles placed big, the level's words under it."""
    level = PlayLevel.for_count(placed)
    image, draw = canvas()
    draw_title(draw, f"Solo   level {level.range_text}")
    bottom = _centred(draw, f"{placed} placed", BODY_TOP, (28, 24, 20))
    _centred(draw, LEVEL_SHORT[level], max(bottom, HEIGHT - 16), (12,))
    return image


def challenge_end_screen(placed: int, lost: Reason | None = None,
                         misplaced: bool = False) -> Image.Image:
    """End A shows the final level; end B (a tile placed wrong) is 'You lose!' inverted."""
    if lost is not None or misplaced:
        why = lost.short if lost is not None else "Tile misplaced"
        return text_screen("Challenge over", ["You lose!", why], inverted=True)
    level = PlayLevel.for_count(placed)
    image, draw = canvas()
    draw_title(draw, "Challenge over")
    bottom = _centred(draw, f"{placed} tiles", BODY_TOP, (28, 24, 20))
    _centred(draw, LEVEL_SHORT[level], max(bottom, HEIGHT - 16), (12,))
    return image


def tops_screen(tops: Sequence[Tile | None], placeable: Sequence[bool],
                labels: TileLabels = DEFAULT_LABELS) -> Image.Image:
    """The three pile tops side by side; a pile whose top fits nowhere is crossed out."""
    image, draw = canvas()
    fits = sum(1 for t, ok in zip(tops, placeable) if t is not None and ok)
    draw_title(draw, f"Pile tops: {fits} fit")
    col = WIDTH // 3
    for i, (tile, ok) in enumerate(zip(tops, placeable)):
        left, right = i * col, (i + 1) * col if i < 2 else WIDTH
        if i:
            draw.line([(left, BODY_TOP + 2), (left, HEIGHT - 3)], fill=ON)
        status_top = HEIGHT - 14
        if tile is None:
            _block(draw, ["empty"], BODY_TOP, status_top, left, right, (12,))
        else:
            _tile_name(draw, labels.name(tile), BODY_TOP, status_top, left, right,
                       (20, 16, 14, 12, 10))
        if tile is None:
            status = str(i + 1)
        else:
            status = f"{i + 1} " + ("fits" if ok else "no")
        if tile is None or ok:
            _block(draw, [status], status_top, HEIGHT, left, right, (12,))
        else:
            draw.rectangle((left + 3, status_top, right - 3, HEIGHT - 1), fill=ON)
            _block(draw, [status], status_top, HEIGHT, left, right, (12,), fill=OFF)
    return image


def hint_screen(hint: Hint | None, labels: TileLabels = DEFAULT_LABELS) -> Image.Image:
    """The suggested move: the pile and the cell big, the tile named small."""
    if hint is None:
        return text_screen("Hint", ["No tile fits"])
    image, draw = canvas()
    draw_title(draw, f"Hint: {labels.name(hint.tile)} from pile {hint.pile + 1}")
    _centred(draw, f"Pile {hint.pile + 1} > {hint.cell.name}", BODY_TOP + 2, (28, 24, 20))
    _centred(draw, f"keeps {hint.placeable} tiles playable", HEIGHT - 14, (12, 10))
    return image


__all__ = [
    "SETUP_CHOICES", "SOLO", "LEVEL_SHORT", "player_name", "setup_screen", "turn_screen",
    "placement_screen", "illegal_screen", "left_screen", "tiles_left_screen",
    "ranking_screen", "level_screen", "challenge_end_screen", "tops_screen", "hint_screen",
]
