"""A compact, line-based text notation for a railways position, so tests and logs can
write any position by hand and read it back exactly.

    railways metropolis turn=4 phase=playing penalty=2 last=-
    player red clips=52 cubes=21 score=13 hand=town,?*2
    player white clips=60 cubes=23 score=0 hand=?*7
    station S-red starting-city start=red cubes=red
    station M metropolis cubes=red
    link L1 red 8 S-red M
    deck ?*40,end-of-line,?*9

Lists are comma-separated, `-` when empty, `card*N` repeats a card; `#` starts a comment.
Card ids are not checked here (the catalogue does that when the card is used).
"""

from __future__ import annotations

import re

from rules.errors import CouldNotRead
from rules.railways.state import COLOURS, Link, Phase, PlayerState, Position, StationInPlay

_TOKEN = re.compile(r"^[A-Za-z0-9?][A-Za-z0-9_?-]*$")


def _list(items: tuple[str, ...]) -> str:
    if not items:
        return "-"
    out: list[str] = []
    i = 0
    while i < len(items):
        j = i
        while j < len(items) and items[j] == items[i]:
            j += 1
        out.append(items[i] if j - i == 1 else f"{items[i]}*{j - i}")
        i = j
    return ",".join(out)


def format_position(pos: Position) -> str:
    """The notation of `pos`; parse_position(format_position(p)) == p."""
    lines = [f"railways {pos.variant} turn={pos.turn} phase={pos.phase.value} "
             f"penalty={pos.penalty} last={pos.last_player or '-'}"]
    for p in pos.players:
        lines.append(f"player {p.colour} clips={p.clips} cubes={p.cubes} score={p.score} hand={_list(p.hand)}")
    for s in pos.stations:
        start = f" start={s.start}" if s.start else ""
        lines.append(f"station {s.sid} {s.card}{start} cubes={_list(s.cubes)}")
    for k in pos.links:
        lines.append(f"link {k.lid} {k.colour} {k.clips} {k.a} {k.b}")
    lines.append(f"deck {_list(pos.deck)}")
    return "\n".join(lines) + "\n"


class _Line:
    def __init__(self, number: int, text: str) -> None:
        self.number = number
        self.text = text

    def fail(self, problem: str) -> CouldNotRead:
        return CouldNotRead(f"railways position line {self.number} '{self.text}': {problem}")

    def fields(self, words: list[str], keys: tuple[str, ...]) -> dict[str, str]:
        out: dict[str, str] = {}
        for w in words:
            key, eq, value = w.partition("=")
            if not eq or key not in keys:
                raise self.fail(f"expected {' '.join(k + '=...' for k in keys)}, got '{w}'")
            if key in out:
                raise self.fail(f"'{key}' given twice")
            out[key] = value
        return out

    def int(self, value: str | None, what: str) -> int:
        if value is None or not re.fullmatch(r"-?\d+", value):
            raise self.fail(f"{what} must be a whole number, got '{value}'")
        return int(value)

    def list(self, value: str | None, what: str) -> tuple[str, ...]:
        if value is None or value == "-":
            return ()
        out: list[str] = []
        for part in value.split(","):
            name, star, times = part.partition("*")
            if not _TOKEN.match(name) or (star and not times.isdigit()):
                raise self.fail(f"bad {what} entry '{part}' (use id or id*N)")
            out.extend([name] * (int(times) if star else 1))
        return tuple(out)

    def colour(self, value: str) -> str:
        if value not in COLOURS:
            raise self.fail(f"unknown colour '{value}' (use {', '.join(COLOURS)})")
        return value


def parse_position(text: str) -> Position:
    """Read the notation; any mistake raises CouldNotRead naming the line and the fix."""
    head: dict[str, str] | None = None
    variant = ""
    players: list[PlayerState] = []
    stations: list[StationInPlay] = []
    links: list[Link] = []
    deck: tuple[str, ...] = ()
    for number, raw in enumerate(text.splitlines(), 1):
        body = raw.split("#", 1)[0].strip()
        if not body:
            continue
        line = _Line(number, body)
        word, *rest = body.split()
        if word == "railways":
            if head is not None or not rest:
                raise line.fail("one header 'railways <variant> turn=.. phase=.. penalty=.. last=..' is allowed")
            variant = rest[0]
            head = line.fields(rest[1:], ("turn", "phase", "penalty", "last"))
        elif head is None:
            raise line.fail("the first line must be the header 'railways <variant> ...'")
        elif word == "player":
            if not rest:
                raise line.fail("expected 'player <colour> clips=N cubes=N score=N hand=...'")
            colour = line.colour(rest[0])
            f = line.fields(rest[1:], ("clips", "cubes", "score", "hand"))
            if any(p.colour == colour for p in players):
                raise line.fail(f"player {colour} listed twice")
            players.append(PlayerState(colour, line.int(f.get("clips"), "clips"),
                                       line.int(f.get("cubes"), "cubes"), line.list(f.get("hand"), "hand"),
                                       line.int(f.get("score", "0"), "score")))
        elif word == "station":
            if len(rest) < 2:
                raise line.fail("expected 'station <id> <card> [start=<colour>] cubes=...'")
            f = line.fields(rest[2:], ("start", "cubes"))
            start = line.colour(f["start"]) if "start" in f else None
            if any(s.sid == rest[0] for s in stations):
                raise line.fail(f"station {rest[0]} listed twice")
            cubes = line.list(f.get("cubes"), "cubes")
            for c in cubes:
                line.colour(c)
            stations.append(StationInPlay(rest[0], rest[1], cubes, start))
        elif word == "link":
            if len(rest) != 5:
                raise line.fail("expected 'link <id> <colour> <clips> <station> <station>'")
            links.append(Link(rest[0], line.colour(rest[1]), line.int(rest[2], "clips"), rest[3], rest[4]))
        elif word == "deck":
            deck = line.list(rest[0] if rest else None, "deck")
        else:
            raise line.fail(f"unknown line kind '{word}' (railways, player, station, link, deck)")
    if head is None:
        raise CouldNotRead("railways position is empty; start with 'railways <variant> turn=0 ...'")
    top = _Line(0, "header")
    try:
        phase = Phase(head.get("phase", "playing"))
    except ValueError:
        raise top.fail(f"unknown phase '{head.get('phase')}' (use {', '.join(p.value for p in Phase)})") from None
    last = head.get("last", "-")
    if not 2 <= len(players) <= 5:
        raise CouldNotRead(f"railways position has {len(players)} players; list 2 to 5 'player' lines")
    sids = {s.sid for s in stations}
    for k in links:
        for end in (k.a, k.b):
            if end not in sids:
                raise CouldNotRead(f"railways position: link {k.lid} ends at unknown station '{end}'; add a station line")
    return Position(variant, tuple(players), tuple(stations), tuple(links),
                    penalty=top.int(head.get("penalty", "2"), "penalty"), deck=deck,
                    turn=top.int(head.get("turn", "0"), "turn"), phase=phase,
                    last_player=None if last == "-" else top.colour(last))
