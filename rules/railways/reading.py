"""Turn the camera's reading of one new link into the referee's BuiltLink.

The reader reports a link as {"colour", "clips", "stations": [a, b], "crosses": [...]}
with no direction; the rules pick the direction that is legal. A station may be written
"M:2" or "M2" for section 2 of the Metropolis board (sections numbered clockwise from
the top-left quadrant, as vision/synth draws them). `crosses` entries are
link ids ("L3" or "link:L3"), "obstacle", "river" or "station:<id>"; optional booleans
"outside", "middle_touch", "self_touch" carry the other geometric facts.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from rules.errors import CouldNotRead
from rules.railways.engine import Railways
from rules.railways.state import BuiltLink, Position


def _facts(reading: Mapping[str, Any]) -> dict[str, Any]:
    links: list[str] = []
    obstacles = river = 0
    stations: list[str] = []
    for item in reading.get("crosses", []):
        if not isinstance(item, str):
            raise CouldNotRead(f"link reading: crossing {item!r} is not text; use 'L3', 'obstacle', "
                               "'river' or 'station:<id>'")
        kind, _, ident = item.partition(":")
        if item == "obstacle":
            obstacles += 1
        elif item == "river":
            river += 1
        elif kind == "station" and ident:
            stations.append(ident)
        elif kind == "link" and ident:
            links.append(ident)
        elif item.startswith("L") and item[1:].isdigit():
            links.append(item)
        else:
            raise CouldNotRead(f"link reading: unknown crossing '{item}'; use 'L3', 'obstacle', "
                               "'river' or 'station:<id>'")
    return dict(touches_links=tuple(links), obstacles=obstacles, river_parts=river,
                crosses_stations=tuple(stations), outside_area=bool(reading.get("outside", False)),
                middle_clips_touch_stations=bool(reading.get("middle_touch", False)),
                touches_itself=bool(reading.get("self_touch", False)))


def _station(text: str, known: set[str]) -> tuple[str, int | None]:
    sid, colon, section = text.partition(":")
    if colon:
        return sid, int(section)
    if sid not in known and len(sid) == 2 and sid[0] == "M" and sid[1] in "1234" and "M" in known:
        return "M", int(sid[1])
    return sid, None


def link_from_reading(rules: Railways, pos: Position, reading: Mapping[str, Any],
                      cards_discarded: int = 1, new_card: str | None = None) -> BuiltLink:
    """The BuiltLink for a read link, oriented so it departs from a station its builder may
    use; when neither direction is legal, the one with fewer broken rules (so build()
    explains why)."""
    known = {s.sid for s in pos.stations}
    try:
        colour = str(reading["colour"])
        clips = int(reading["clips"])
        (a, sa), (b, sb) = (_station(str(s), known) for s in reading["stations"])
    except (KeyError, TypeError, ValueError):
        raise CouldNotRead("link reading needs 'colour', 'clips' and two 'stations'; "
                           f"got {dict(reading)!r}") from None
    facts = _facts(reading)
    options = []
    for (dep, ds), (dest, ts) in (((a, sa), (b, sb)), ((b, sb), (a, sa))):
        if new_card is not None and dest in known:
            continue
        link = BuiltLink(colour, clips, dep, dest, cards_discarded=cards_discarded,
                         new_card=new_card if dest not in known else None, from_section=ds, to_section=ts)
        options.append(replace(link, **facts))
    if not options:
        raise CouldNotRead(f"link reading: a new card '{new_card}' was given but both {a} and {b} are in play")
    return min(options, key=lambda o: len(rules.refusals(pos, o)))
