"""A seeded simulator of random legal games, with the geometry a camera would see.

Its purpose is the vision benchmark: lay each move out on a synthetic table and check
that the reader recovers the same link (colour, clip count, the two stations, what it
touches). Coordinates are play-area millimetres, (0, 0) the play area's top-left corner,
x right, y down (add the profile's area origin for table millimetres).

Every build is checked by the referee (Railways.refusals), so the moves are legal by
construction; the geometric facts (touches, obstacles, River parts) are measured from
the laid-out paths, not invented.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Sequence

from rules.railways.cards import Ability, AbilityKind, Catalogue, Role, StationCard, StationType
from rules.railways.engine import FinalResult, Railways, rules_for
from rules.railways.geometry import (
    Point, Rect, clips_for_distance, polyline_contacts, polyline_near_rect, polyline_rect_distance, polylines_near, trim,
)
from rules.railways.state import COLOURS, BuiltLink, Draw, Move, Pass, Phase, Position, Settings


@dataclass(frozen=True)
class SimGeometry:
    """Physical sizes; the vision helper may pass its own to match its renderer."""

    def chain_mm(self, clips: int) -> float:
        """Length of a straight chain of `clips` clips."""
        return (clips - 1) * self.clip_pitch_mm + self.clip_length_mm if clips > 0 else 0.0

    area_mm: float = 1000.0
    clip_pitch_mm: float = 22.0       # each further clip adds this much to a chain
    clip_length_mm: float = 32.0      # one clip alone (vision/synth/clips.py's standard clip)
    clip_width_mm: float = 9.0
    card_w_mm: float = 60.0           # stations are drawn as 60 mm squares by vision/synth
    card_h_mm: float = 60.0
    board_mm: float = 140.0           # the Metropolis board
    river_clips: int = 32
    station_gap_mm: float = 12.0      # sim keeps stations this far apart
    end_overlap_mm: float = 6.0       # how far the end clip reaches into its station


@dataclass(frozen=True)
class SimLayout:
    """Where things lie at the start (stations) and for the whole game (River, obstacles)."""

    stations: dict[str, Rect]
    river: tuple[Point, ...]
    obstacles: tuple[tuple[Rect, ...], ...]


@dataclass(frozen=True)
class SimMove:
    """One turn. For a build: `path` is the link's centre line (its length is
    SimGeometry.chain_mm(clips)) and `new_station` the rectangle of a station placed this turn."""

    colour: str
    move: Move
    path: tuple[Point, ...] = ()
    new_station: Rect | None = None
    scores: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class SimGame:
    variant: str
    layout: SimLayout
    start: Position
    moves: tuple[SimMove, ...]
    end: Position
    final: FinalResult


@dataclass(frozen=True)
class SimScene:
    """What lies on the table after some moves: the picture the camera should see.

    `stations` maps station id to (rectangle, card id); `links` are (link id, colour,
    clips, path) in build order.
    """

    stations: dict[str, tuple[Rect, str]]
    links: tuple[tuple[str, str, int, tuple[Point, ...]], ...]
    river: tuple[Point, ...]
    obstacles: tuple[tuple[Rect, ...], ...]


def scene_after(game: SimGame, moves: int) -> SimScene:
    """The table after the first `moves` moves of `game` (0: as set up)."""
    cards = {s.sid: s.card for s in game.start.stations}
    stations = {sid: (r, cards[sid]) for sid, r in game.layout.stations.items()}
    links: list[tuple[str, str, int, tuple[Point, ...]]] = []
    for m in game.moves[:moves]:
        b = m.move
        if isinstance(b, BuiltLink):
            if m.new_station is not None and b.new_card is not None:
                stations[b.to_station] = (m.new_station, b.new_card)
            links.append((f"L{len(links) + 1}", b.colour, b.clips, m.path))
    return SimScene(stations, tuple(links), game.layout.river, game.layout.obstacles)


def placeholder_catalogue() -> Catalogue:
    """The shipped catalogue.toml as values, so rules/ needs no file (a test keeps them equal)."""
    C, T, S, X = StationType.CITY, StationType.TOWN, StationType.SUBURBAN, StationType.COUNTRYSIDE

    def card(cid: str, name: str, t: StationType, pts: int, cap: int, count: int,
             mins: dict[StationType, int], abilities: tuple[Ability, ...] = (),
             role: Role = Role.STATION, also: frozenset[StationType] = frozenset(),
             sections: tuple[str, ...] = ()) -> StationCard:
        return StationCard(cid, name, t, pts, cap, MappingProxyType(mins), abilities, count, role, also,
                           sections)

    cards = [
        card("starting-city", "Starting City", C, 0, 3, 1, {C: 8, T: 4, S: 4, X: 6}, role=Role.STARTING_CITY),
        card("metropolis", "Metropolis", T, 2, 5, 1, {C: 6, T: 4, S: 3, X: 6}, role=Role.METROPOLIS,
             also=frozenset({S}), sections=("metro-1", "metro-2", "metro-3", "metro-4")),
        card("metro-1", "Metropolis Town 1", T, 2, 5, 1, {C: 6, T: 4, S: 4, X: 6}, role=Role.METROPOLIS_SECTION),
        card("metro-2", "Metropolis Suburb 2", S, 1, 5, 1, {C: 6, T: 3, S: 3, X: 6}, role=Role.METROPOLIS_SECTION),
        card("metro-3", "Metropolis Town 3", T, 2, 5, 1, {C: 6, T: 4, S: 4, X: 6}, role=Role.METROPOLIS_SECTION),
        card("metro-4", "Metropolis Suburb 4", S, 1, 5, 1, {C: 6, T: 3, S: 3, X: 6}, role=Role.METROPOLIS_SECTION),
        card("example", "Rulebook Example", T, 2, 3, 1, {T: 3, S: 3, X: 6},
             (Ability(AbilityKind.FREE_CLIPS, 1),)),
        card("city", "City", C, 4, 4, 11, {C: 8, T: 4, S: 4, X: 6}, (Ability(AbilityKind.END_POINTS, 2),)),
        card("town", "Town", T, 2, 3, 32, {C: 4, T: 3, S: 3, X: 5}),
        card("suburb", "Suburb", S, 1, 3, 29, {C: 4, T: 3, S: 2, X: 5},
             (Ability(AbilityKind.END_POINTS_PER_CUBE, 1),)),
        card("countryside", "Countryside", X, 3, 2, 23, {T: 5, S: 5, X: 4}, (Ability(AbilityKind.FREE_CLIPS, 1),)),
    ]
    return Catalogue(MappingProxyType({c.id: c for c in cards}))


def _layout(pos: Position, rng: random.Random, g: SimGeometry) -> SimLayout:
    centre = g.area_mm / 2
    rects: dict[str, Rect] = {}
    n = len(pos.players)
    turn0 = rng.uniform(0, 2 * math.pi)
    radius = g.river_clips * g.clip_pitch_mm
    for s in pos.stations:
        if s.sid == "M":
            rects[s.sid] = Rect(centre, centre, g.board_mm, g.board_mm)
        elif s.sid.startswith("G"):
            i = int(s.sid[1:]) - 1
            q = g.board_mm / 4
            rects[s.sid] = Rect(centre + (q if i % 2 else -q), centre + (q if i >= 2 else -q),
                                g.card_w_mm, g.card_h_mm)
        elif s.sid.startswith("B"):
            a = turn0 + 2 * math.pi * (int(s.sid[1:]) - 1) / n
            r = min(radius, centre - g.card_h_mm / 2 - 2)
            rects[s.sid] = Rect(centre + r * math.cos(a), centre + r * math.sin(a), g.card_w_mm, g.card_h_mm)
        elif s.start:
            i = pos.player_index(s.start)
            a = turn0 + 2 * math.pi * (i + 0.5) / n
            r = 0.55 * radius
            rects[s.sid] = Rect(centre + r * math.cos(a), centre + r * math.sin(a), g.card_w_mm, g.card_h_mm)
    river = ((centre, centre), (centre + radius * math.cos(turn0), centre + radius * math.sin(turn0)))
    obstacles: list[tuple[Rect, ...]] = []
    shapes = [((120, 80),), ((80, 120),), ((120, 40), (40, 80)), ((40, 120), (80, 40))]
    for shape in shapes:
        for _ in range(200):
            x, y = rng.uniform(80, g.area_mm - 80), rng.uniform(80, g.area_mm - 80)
            parts = [Rect(x + w / 2, y + h / 2, w, h) for w, h in shape[:1]]
            if len(shape) > 1:
                w, h = shape[1]
                parts.append(Rect(x + w / 2, y + shape[0][1] + h / 2, w, h))
            clear = all(p.gap(r) > 2 * g.station_gap_mm for p in parts for r in rects.values())
            clear = clear and all(polyline_rect_distance(river, p) > 10 for p in parts)
            inside = all(p.x0 > 0 and p.y0 > 0 and p.x1 < g.area_mm and p.y1 < g.area_mm for p in parts)
            if clear and inside:
                obstacles.append(tuple(parts))
                break
    return SimLayout(rects, river, tuple(obstacles))


class _Table:
    """The simulator's picture of the table: rectangles, link paths, River and obstacles."""

    def __init__(self, layout: SimLayout, g: SimGeometry) -> None:
        self.rects = dict(layout.stations)
        self.paths: dict[str, tuple[Point, ...]] = {}
        self.layout = layout
        self.g = g

    def path_between(self, a: Rect, b: Rect, clips: int, rng: random.Random) -> tuple[Point, ...] | None:
        """A bowed two-segment path of exactly chain_mm(clips) from border to border, or None."""
        g = self.g
        ang = math.atan2(b.cy - a.cy, b.cx - a.cx)
        da, db = a.exit_distance(ang) - g.end_overlap_mm, b.exit_distance(ang + math.pi) - g.end_overlap_mm
        p = (a.cx + da * math.cos(ang), a.cy + da * math.sin(ang))
        q = (b.cx - db * math.cos(ang), b.cy - db * math.sin(ang))
        straight = math.dist(p, q)
        length = g.chain_mm(clips)
        if length < straight - 1e-6:
            return None
        bow = math.sqrt(max(0.0, (length / 2) ** 2 - (straight / 2) ** 2)) * rng.choice((-1.0, 1.0))
        mid = ((p[0] + q[0]) / 2 - bow * math.sin(ang), (p[1] + q[1]) / 2 + bow * math.cos(ang))
        return (p, mid, q)

    def facts(self, pos: Position, b: BuiltLink, path: tuple[Point, ...],
              new_rect: Rect | None) -> BuiltLink:
        """Measure what the laid path touches, the way the camera would report it."""
        g = self.g
        reach = g.clip_width_mm
        ends = {b.from_station, b.to_station}
        inner = trim(path, g.clip_pitch_mm, g.clip_pitch_mm)
        rects = dict(self.rects)
        if new_rect is not None:
            rects[b.to_station] = new_rect
        crosses = tuple(sid for sid, r in rects.items()
                        if sid not in ends and polyline_near_rect(path, r, reach / 2))
        middle = any(polyline_near_rect(inner, rects[s], reach / 2) for s in ends if s in rects)
        touches = tuple(lid for lid, other in self.paths.items()
                        if polylines_near(inner, trim(other, g.clip_pitch_mm, g.clip_pitch_mm), reach))
        obstacles = sum(1 for ob in self.layout.obstacles
                        if any(polyline_near_rect(path, r, reach / 2) for r in ob))
        river = polyline_contacts(path, self.layout.river, reach)
        outside = any(not (reach / 2 <= x <= g.area_mm - reach / 2 and reach / 2 <= y <= g.area_mm - reach / 2)
                      for x, y in path)
        extra = {}
        if new_rect is not None:
            ob = sum(1 for o in self.layout.obstacles if min(new_rect.gap(r) for r in o) == 0)
            river_hit = polyline_rect_distance(self.layout.river, new_rect) < reach / 2
            near = any(new_rect.gap(r) < g.station_gap_mm for sid, r in self.rects.items())
            out = not (new_rect.x0 >= 0 and new_rect.y0 >= 0 and new_rect.x1 <= g.area_mm
                       and new_rect.y1 <= g.area_mm)  # the sim keeps new stations wholly inside
            extra = dict(new_station_obstacles=ob, new_station_river_parts=int(river_hit),
                         new_station_touches_station=near, new_station_outside=out)
        return replace(b, touches_links=touches, obstacles=obstacles, river_parts=river,
                       crosses_stations=crosses, middle_clips_touch_stations=middle,
                       outside_area=outside, **extra)  # type: ignore[arg-type]


def _section(rules: Railways, pos: Position, sid: str, table: _Table, end: Point) -> int | None:
    """The Metropolis section (1-4 clockwise from top-left) a link end lies in, else None."""
    station = pos.station(sid)
    if station is None or not rules.card(station).sections:
        return None
    r = table.rects[sid]
    right, below = end[0] >= r.cx, end[1] >= r.cy
    return {(False, False): 1, (True, False): 2, (True, True): 3, (False, True): 4}[(right, below)]


def _cards_needed(clips: int, free: int, per_card: int) -> int:
    return max(1, math.ceil(max(0, clips - free) / per_card))


def _try_build(rules: Railways, pos: Position, table: _Table, rng: random.Random,
               tries: int = 40) -> tuple[BuiltLink, tuple[Point, ...], Rect | None] | None:
    """A random legal build for the player to move, or None after `tries` attempts."""
    me = pos.player(pos.to_move)
    g = table.g
    free = rules.free_clips(pos, me.colour)
    per = rules.settings.clips_per_card
    deps = [s for s in pos.stations if (s.start == me.colour or me.colour in s.cubes) and not rules.is_full(s)]
    if not deps or not me.hand or me.clips == 0:
        return None
    station_cards = [c for c in dict.fromkeys(me.hand) if c in rules.catalogue
                     and rules.catalogue[c].role is Role.STATION]
    for _ in range(tries):
        dep = rng.choice(deps)
        dep_card = rules.card(dep)
        new_card = None
        if station_cards and len(me.hand) >= 2 and rng.random() < 0.5:
            new_card = rng.choice(station_cards)
            dest_card = rules.catalogue[new_card]
            least = rules.min_length(dep_card, dest_card)
            if least is None:
                continue
            most = min(me.clips, per * (len(me.hand) - 1) + free)
            if most < least:
                continue
            clips = rng.randint(least, min(most, least + 6))
            ang = rng.uniform(0, 2 * math.pi)
            a = table.rects[dep.sid]
            probe = Rect(0, 0, g.card_w_mm, g.card_h_mm)
            dist = (a.exit_distance(ang) + probe.exit_distance(ang) - 2 * g.end_overlap_mm
                    + g.chain_mm(clips))
            rect = Rect(a.cx + dist * math.cos(ang), a.cy + dist * math.sin(ang), g.card_w_mm, g.card_h_mm)
            sid = f"N{len(pos.stations) + 1}"
            path = table.path_between(a, rect, clips, rng)
            if path is None:
                continue
            dest_sid = sid
        else:
            dest = rng.choice(pos.stations)
            if dest.sid == dep.sid or rules.is_full(dest):
                continue
            least = rules.min_length(dep_card, rules.card(dest))
            if least is None:
                continue
            a, rect = table.rects[dep.sid], table.rects[dest.sid]
            path0 = table.path_between(a, rect, 10_000, rng)
            if path0 is None:
                continue
            need = clips_for_distance(math.dist(path0[0], path0[-1]), g.clip_pitch_mm, g.clip_length_mm)
            clips = max(least, need) + rng.choice((0, 0, 1))
            path = table.path_between(a, rect, clips, rng)
            if path is None:
                continue
            dest_sid = dest.sid
            rect = None
        cards = _cards_needed(clips, free, per)
        b = BuiltLink(me.colour, clips, dep.sid, dest_sid, cards_discarded=cards, new_card=new_card,
                      from_section=_section(rules, pos, dep.sid, table, path[0]),
                      to_section=_section(rules, pos, dest_sid, table, path[-1]))
        if rules.refusals(pos, b):
            continue  # measuring the geometry only adds refusals, so skip it early
        b = table.facts(pos, b, path, rect)
        if b.new_station_obstacles or b.new_station_river_parts:
            if rng.random() < 0.8:
                continue  # players mostly avoid paying to put a station on an obstacle
        if not rules.refusals(pos, b):
            return b, path, rect
    return None


def simulate_game(rng: random.Random, players: int, variant: str = "metropolis",
                  catalogue: Catalogue | None = None, settings: Settings | None = None,
                  geometry: SimGeometry | None = None, build_chance: float = 0.7,
                  max_turns: int = 2000) -> SimGame:
    """Play one random legal game to its end; every build carries its measured facts.

    Players are the first `players` colours of COLOURS in turn order; the same `rng`
    seed always gives the same game.
    """
    rules = rules_for(variant, catalogue or placeholder_catalogue(), settings)
    g = geometry or SimGeometry()
    start = rules.setup(rng, COLOURS[:players])
    layout = _layout(start, rng, g)
    table = _Table(layout, g)
    pos = start
    moves: list[SimMove] = []
    for _ in range(max_turns):
        if pos.phase is Phase.OVER:
            break
        colour = pos.to_move
        built = None
        if pos.phase is not Phase.LAST_DRAW and (not pos.deck or pos.phase is Phase.LAST_BUILD
                                                 or rng.random() < build_chance):
            built = _try_build(rules, pos, table, rng)
        if built is not None:
            b, path, rect = built
            pos, report = rules.build(pos, b)
            table.paths[report.link.lid] = path
            if rect is not None:
                table.rects[b.to_station] = rect
            moves.append(SimMove(colour, b, path, rect, {p.colour: p.score for p in pos.players}))
        elif pos.deck and pos.phase is not Phase.LAST_BUILD:
            pos = rules.draw(pos, Draw(colour))
            moves.append(SimMove(colour, Draw(colour), scores={p.colour: p.score for p in pos.players}))
        else:
            pos = rules.pass_turn(pos, Pass(colour))
            moves.append(SimMove(colour, Pass(colour), scores={p.colour: p.score for p in pos.players}))
    return SimGame(variant, layout, start, tuple(moves), pos, rules.final_result(pos))


def replayed(game: SimGame, moves: Sequence[Move], catalogue: Catalogue | None = None,
             settings: Settings | None = None) -> SimGame:
    """The same turns with other moves (e.g. a build's crossings measured again) played
    through the rules again: each move's scores, the end position and the final result.
    Raises the rules' error when a new move is illegal."""
    if len(moves) != len(game.moves):
        raise ValueError(f"replayed: {len(moves)} moves for a game of {len(game.moves)}")
    rules = rules_for(game.variant, catalogue or placeholder_catalogue(), settings)
    pos = game.start
    out: list[SimMove] = []
    for old, move in zip(game.moves, moves):
        pos = rules.play(pos, move)
        out.append(replace(old, move=move, scores={p.colour: p.score for p in pos.players}))
    return replace(game, moves=tuple(out), end=pos, final=rules.final_result(pos))
