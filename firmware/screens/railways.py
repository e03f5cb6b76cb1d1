"""Paperclip Railways screens: pure functions from rules values to 128x64 1-bit images.

What players need from across the table after each build: whose link, how many clips,
between which stations, what it cost, who gained what; then the running scores, the
longest link, the end; and a measuring aid for planning a link.
"""

from __future__ import annotations

from typing import Sequence

from PIL import Image

from firmware.screens.base import (
    BODY_TOP, HEIGHT, ON, TITLE_BAR, WIDTH, canvas, confirm_screen, draw_title, ellipsize, error_screen, font,
    number_screen, text_screen, text_width,
)
from rules.railways.engine import BuildReport, FinalResult, Refusal
from rules.railways.geometry import clips_for_distance
from rules.railways.state import BuiltLink, Position

# Two or three words per refusal: the OLED is read from a seat, the log has the detail.
REFUSAL_SHORT: dict[Refusal, str] = {
    Refusal.GAME_OVER: "Game is over",
    Refusal.NOT_YOUR_TURN: "Not your turn",
    Refusal.WRONG_ACTION: "Draw first",
    Refusal.DECK_EMPTY: "Deck empty",
    Refusal.CANNOT_PASS: "Must draw",
    Refusal.DEPARTURE_NOT_IN_PLAY: "No such start",
    Refusal.DESTINATION_NOT_IN_PLAY: "No such station",
    Refusal.NEW_STATION_ID_TAKEN: "Station exists",
    Refusal.DEPARTURE_NOT_OWNED: "Start not yours",
    Refusal.DEPARTURE_FULL: "Start is full",
    Refusal.DESTINATION_FULL: "Station is full",
    Refusal.SAME_STATION: "Same station",
    Refusal.TYPE_NOT_ALLOWED: "Type not allowed",
    Refusal.TOO_SHORT: "Link too short",
    Refusal.NO_CLIPS: "No clips",
    Refusal.NO_CARD_DISCARDED: "Discard a card",
    Refusal.NOT_ENOUGH_CARDS_PAID: "Too few cards",
    Refusal.CARDS_NOT_IN_HAND: "Cards not held",
    Refusal.NOT_ENOUGH_CLIPS: "Out of clips",
    Refusal.NOT_ENOUGH_CUBES: "Out of cubes",
    Refusal.DUPLICATE_LINK: "Link exists",
    Refusal.MIDDLE_CLIPS_TOUCH: "Middle clip touches",
    Refusal.TOUCHES_ITSELF: "Link touches itself",
    Refusal.CROSSES_STATION: "Crosses a station",
    Refusal.OUTSIDE_AREA: "Outside the area",
    Refusal.NEW_STATION_TOUCHES_STATION: "Stations touch",
    Refusal.NEW_STATION_OUTSIDE: "Station outside",
}


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


def _rows(title: str, rows: Sequence[Sequence[str]], widths: Sequence[int],
          header: Sequence[str] = (), inverted_row: int | None = None) -> Image.Image:
    """A small table: right-aligned columns after the first, column names in the title bar.

    Up to four rows use 12 px text; five rows (a five-player game) use 10 px to fit.
    """
    image, draw = canvas()
    draw_title(draw, title)
    f10 = font(10)
    x = 0
    for j, (name, w) in enumerate(zip(header, widths)):
        if j and name:
            draw.rectangle([(x + 1, 0), (x + w - 1, TITLE_BAR - 2)], fill=0)
            draw.text((x + w - 2 - text_width(draw, name, f10), 0), name, font=f10, fill=ON)
        x += w
    size = 12 if len(rows) <= 4 else 10
    f = font(size)
    step = (HEIGHT - BODY_TOP) // max(4, len(rows))
    ink = f.getbbox("0Hl")  # centre digits and capitals in the row; descenders may dip
    y = BODY_TOP
    for i, row in enumerate(rows):
        fill = ON
        if i == inverted_row:
            draw.rectangle([(0, y), (WIDTH - 1, y + step - 1)], fill=ON)
            fill = 0
        x = 0
        for j, (cell, w) in enumerate(zip(row, widths)):
            text = ellipsize(draw, cell, f, w - 2 if j == 0 else w - 3)
            tx = x + 2 if j == 0 else x + w - 2 - text_width(draw, text, f)
            draw.text((tx, y + (step - (ink[3] - ink[1]) + 1) // 2 - ink[1]), text, font=f, fill=fill)
            x += w
        y += step
    return image


def build_screen(built: BuiltLink, report: BuildReport) -> Image.Image:
    """After a build: colour and clips big, the stations, the costs, each player's points."""
    image, draw = canvas()
    title = f"{built.colour.capitalize()} {built.clips} clips"
    draw_title(draw, title)
    f12, f10 = font(12), font(10)
    route = f"{built.from_station} - {built.to_station}"
    if built.new_card:
        route += " (new)"
    draw.text((1, BODY_TOP - 2), ellipsize(draw, route, f12, WIDTH - 2), font=f12, fill=ON)
    costs = []
    touched = [t for t in report.terms if t.kind == "link"]
    if touched:
        costs.append(f"{len(touched)} link{'s' if len(touched) > 1 else ''} -{len(touched)}")
    for kind, label in (("obstacle", "obst"), ("river", "river"), ("placement", "stn")):
        pts = sum(t.points for t in report.terms if t.kind == kind)
        if pts:
            costs.append(f"{label} {pts}")
    line = ", ".join(costs) if costs else "no crossings"
    draw.text((1, BODY_TOP + 11), ellipsize(draw, line, f10, WIDTH - 2), font=f10, fill=ON)
    gains: dict[str, int] = {}
    for t in report.terms:
        gains[t.colour] = gains.get(t.colour, 0) + t.points
    mine = f"{built.colour} {_signed(gains.pop(built.colour, 0))}"
    big = font(16)
    draw.text((1, BODY_TOP + 20), ellipsize(draw, mine, big, 60), font=big, fill=ON)
    others = [f"{c} {_signed(n)}" for c, n in gains.items()]
    for i, text in enumerate(others[:2]):  # at most two others can fit; the log has all
        text = ellipsize(draw, text, f10, 62)
        draw.text((WIDTH - 1 - text_width(draw, text, f10), BODY_TOP + 20 + 12 * i), text, font=f10, fill=ON)
    return image


def confirm_build_screen(built: BuiltLink) -> Image.Image:
    """The reading needs a yes before it counts: the link in a few words."""
    return confirm_screen(f"{built.colour} {built.clips}: {built.from_station}-{built.to_station}",
                          question="Link read - confirm?")


def cards_paid_screen(cards: int, clips: int) -> Image.Image:
    """The one fact the camera cannot see: how many cards were discarded (PREV/NEXT edit)."""
    return number_screen("Cards discarded", cards, hint=f"{clips} clips - SELECT ok")


def illegal_screen(reason: Refusal, detail: str = "") -> Image.Image:
    """An illegal link, inverted so it is noticed; the short reason and one detail."""
    text = REFUSAL_SHORT[reason] + (f": {detail}" if detail else "")
    return error_screen("Illegal link", text)


def scores_screen(pos: Position, selected: str | None = None) -> Image.Image:
    """Running scores with clips and cubes left per player (the player to move highlighted)."""
    rows = [(p.colour, str(p.score), str(p.clips), str(p.cubes)) for p in pos.players]
    who = selected or pos.to_move
    at = next((i for i, p in enumerate(pos.players) if p.colour == who), None)
    return _rows(f"T{pos.turn + 1}", rows, (38, 22, 34, 34), header=("", "pts", "clips", "cubes"),
                 inverted_row=at)


def longest_link_screen(pos: Position) -> Image.Image:
    """The longest link so far and who holds it (ties share the +5)."""
    if not pos.links:
        return text_screen("Longest link", ["none yet"])
    longest = max(k.clips for k in pos.links)
    holders = list(dict.fromkeys(k.colour for k in pos.links if k.clips == longest))
    return text_screen("Longest link", [f"{longest} clips", ", ".join(holders)])


def end_screen(result: FinalResult) -> Image.Image:
    """The end: the winner (or the shared win) and everyone's total."""
    ranked = sorted(result.totals.items(), key=lambda kv: -kv[1])
    win = " & ".join(w.capitalize() for w in result.winners)
    title = f"{win} wins!" if len(result.winners) == 1 else f"Shared: {win}"
    rows = [(c, str(t)) for c, t in ranked]
    top = next(i for i, (c, _) in enumerate(rows) if c in result.winners)
    return _rows(title, rows, (80, 48), inverted_row=top)


def measure_screen(a: str, b: str, distance_mm: float, pitch_mm: float,
                   clip_length_mm: float | None = None) -> Image.Image:
    """Planning aid: the straight distance between two stations picked with the buttons,
    in the fewest clips that span it (see rules.railways.geometry.clips_for_distance)."""
    clips = clips_for_distance(distance_mm, pitch_mm, clip_length_mm)
    return text_screen(f"Measure {a} - {b}", [f"{clips} clips", f"{distance_mm:.0f} mm straight"])


# The fields a person enters with PREV/NEXT/SELECT when the camera meets an unknown card,
# in order; a blank minimum ("-") means no link may go to that type.
CARD_FIELDS = ("Type", "Points", "Capacity", "Min to City", "Min to Town", "Min to Suburb",
               "Min to Country", "Free clips", "End points")


def card_field_screen(step: int, value: int | str) -> Image.Image:
    """One step of entering a new station card: the field, its value, the progress."""
    field = CARD_FIELDS[step]
    return number_screen(field, value, hint=f"new card {step + 1}/{len(CARD_FIELDS)} - SELECT ok")


__all__ = ["CARD_FIELDS", "card_field_screen", "REFUSAL_SHORT", "build_screen", "confirm_build_screen", "cards_paid_screen",
           "illegal_screen", "scores_screen", "longest_link_screen", "end_screen", "measure_screen",
           "WIDTH", "HEIGHT"]
