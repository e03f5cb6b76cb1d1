"""Paperclip Railways on the device: the table the camera sees, turned into referee moves.

The camera sees stations, cubes and clip chains, never the cards in hand. So the
session keeps hands and the deck as unknown cards ('?', which the engine accepts): only
their counts matter to legality, and the players tell what the camera cannot see (a
draw, End of Line, how many cards paid for a build). The first reading of the table
sets the game up: Starting Cities by their colour band, the Metropolis (or the four
Gigantopolis stations), the Boundary Stations, each card by its type. After that a still
frame whose links differ from the game by exactly one new link is a build by the player
whose colour it is; anything else is a question for the players.

Reader station ids are the reader's own, frame by frame; the session matches them to
its stations by position (table millimetres), and the reader's link references to its
links by colour and end stations. The geometric facts the engine needs (links touched,
obstacles, River parts, stations crossed) come from the reader; a station crossed is
also checked here from the link's path, so a missed report cannot hide an illegal link.

A clip count is trusted only when the reader is confident, and the reader almost never
is. An unsure count never raises an alert by itself: the link is judged at each count it
may have (plausible_counts: around the read count, never below the fewest clips that
span the gap between its stations). Illegal at every one of them (a departure not
owned, a station crossed, too short however miscounted) it is alerted; otherwise the
players are asked, offered the legal counts and a count refused for its length alone
("red 3: Link too short"), which, chosen, the session refuses with the rule.
"""

from __future__ import annotations

import dataclasses
import math
import random
import re
from dataclasses import dataclass, replace
from typing import Any, Iterable, Sequence

from PIL import Image

from firmware.games.base import (
    Action, Applied, Ask, GameKind, Illegal, Move, NoChange, Proposed, RecordsMoves, Rect, Setting, Unclear,
    Verdict, missing, point_mm,
)
from firmware.motion import ChangeMap
from firmware.screens import base as scr
from firmware.screens.railways import REFUSAL_SHORT, build_screen, end_screen, scores_screen
from firmware.screens.railways import illegal_screen as refusal_screen
from rules.errors import CouldNotRead, RulesError
from rules.railways.cards import Catalogue, Role, StationType
from rules.railways.engine import BuildReport, FinalResult, Railways, Refusal, rules_for
from rules.railways.geometry import Rect as Box
from rules.railways.geometry import clips_for_distance, polyline_rect_distance
from rules.railways.notation import format_position
from rules.railways.reading import link_from_reading
from rules.railways.state import (
    COLOURS, END_OF_LINE, UNKNOWN_CARD, BuiltLink, Draw, Pass, Phase, Position, Settings,
    StationInPlay,
)

STATION_MM = 60.0           # a station card as vision/synth draws it
BOARD_MM = 140.0            # the Metropolis board
MATCH_FRACTION = 0.6        # a reader station within this many sizes of ours is ours
LOW_CONFIDENCE = 0.5        # below this the clip count is asked, not proposed (the reader's `confident`)
UNSURE_BELOW = (2, 6)       # an unsure count n may be 2 + n // 6 clips too many ...
UNSURE_ABOVE = (3, 5)       # ... or 3 + n // 5 too few (the reader's counts run short)
# refusals that a miscount alone can cause: never alerted on an unsure count
DANGLING_MM = 120.0         # a link end at no station may be at a station this near where its path stops
DANGLING_STATIONS = 2       # ... the nearest this many are offered
CLIP_MM = 32.0              # a standard clip's length, when the reader did not measure it
FLOOR_PITCH = 0.8           # the longest clip-to-clip pitch, as a fraction of a clip's length
COUNT_REFUSALS = frozenset({Refusal.TOO_SHORT, Refusal.NO_CLIPS, Refusal.NOT_ENOUGH_CARDS_PAID,
                            Refusal.CARDS_NOT_IN_HAND, Refusal.NOT_ENOUGH_CLIPS})
END_FREE_MM = 30.0          # a link's path may lie inside a station this far from its ends
NEW_STATION_TOUCH_MM = 2.0  # a new station closer than this to another touches it
SAME_PATH_MM = 12.0         # two readings of one chain lie this close on average
PIECE_PATH_MM = 4.5         # a piece of a chain read apart lies this close to it (half a clip's width)
READER_TYPES = {"city": StationType.CITY, "town": StationType.TOWN, "suburban": StationType.SUBURBAN,
                "suburb": StationType.SUBURBAN, "countryside": StationType.COUNTRYSIDE}
START_TYPES = ("start", "starting-city", "starting_city")
METRO_KINDS = ("metropolis", "metro_part", "metropolis_section")


# ---- small geometry ------------------------------------------------------------------------

Point = tuple[float, float]


@dataclass(frozen=True)
class Spot:
    """Where a station of the game lies on the table (centre and side, table mm)."""

    x: float
    y: float
    size: float

    def box(self) -> Box:
        return Box(self.x, self.y, self.size, self.size)

    def dist(self, p: Point) -> float:
        return math.hypot(p[0] - self.x, p[1] - self.y)


def _path(value: Any) -> tuple[Point, ...]:
    if not isinstance(value, (list, tuple)):
        return ()
    pts = [point_mm(p) for p in value]
    return tuple(p for p in pts if p is not None)


def _arc_trimmed(path: Sequence[Point], start: float, end: float) -> list[Point]:
    """The points of a path more than `start` mm from its beginning and `end` mm from its
    end along the path (densified every 2 mm so short paths still have inner points)."""
    dense: list[Point] = []
    for a, b in zip(path, path[1:]):
        n = max(1, int(math.dist(a, b) / 2.0))
        dense += [(a[0] + (b[0] - a[0]) * i / n, a[1] + (b[1] - a[1]) * i / n) for i in range(n)]
    if path:
        dense.append(path[-1])
    cum = [0.0]
    for a, b in zip(dense, dense[1:]):
        cum.append(cum[-1] + math.dist(a, b))
    total = cum[-1] if cum else 0.0
    return [p for p, s in zip(dense, cum) if start <= s <= total - end]


def _footprint(path: Sequence[Point], extra: Iterable[Spot] = (), margin: float = 25.0) -> tuple[Rect, ...]:
    pts = list(path) + [(s.x + dx, s.y + dy) for s in extra for dx in (-s.size / 2, s.size / 2)
                        for dy in (-s.size / 2, s.size / 2)]
    if not pts:
        return ()
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return ((min(xs) - margin, min(ys) - margin, max(xs) + margin, max(ys) + margin),)


def _polygon_box(poly: Any) -> Box | None:
    pts = _path(poly)
    if len(pts) < 3:
        return None
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return Box((min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2, max(xs) - min(xs), max(ys) - min(ys))


# ---- moves as JSON -------------------------------------------------------------------------

def link_to_json(b: BuiltLink) -> dict[str, Any]:
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in dataclasses.asdict(b).items()}


def link_from_json(d: dict[str, Any]) -> BuiltLink:
    names = {f.name for f in dataclasses.fields(BuiltLink)}
    unknown = set(d) - names
    if unknown:
        raise CouldNotRead(f"railways build move has unknown fields {sorted(unknown)}; "
                           "the journal may be from a newer version")
    args: dict[str, Any] = {k: (tuple(v) if isinstance(v, list) else v) for k, v in d.items()}
    return BuiltLink(**args)


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else str(n)


@dataclass
class _Seen:
    """One reader link, resolved against the game: its ends as our station ids."""

    index: int
    entry: dict[str, Any]
    colour: str
    clips: int
    ends: list[tuple[str, int | None] | None]     # (sid, section) or None (unresolved)
    new_ends: list[int]                           # positions in `ends` at a new station
    path: tuple[Point, ...]


class RailwaysSession(RecordsMoves):
    """A Paperclip Railways game being refereed: the engine's Position plus where things lie."""

    game = "railways"

    def __init__(self, options: dict[str, Any], catalogue: Catalogue | None = None,
                 settings: Settings | None = None) -> None:
        players = int(options.get("players", 2))
        variant = str(options.get("variant", "metropolis"))
        first = str(options.get("first", COLOURS[0]))
        self.options: dict[str, Any] = {"players": players, "variant": variant, "first": first}
        if options.get("colours"):
            self.options["colours"] = str(options["colours"])
        if catalogue is None:
            from firmware.railways_catalogue import load_catalogue
            catalogue = load_catalogue()
        self.catalogue = catalogue
        self.settings = settings or Settings()
        self.rules: Railways = rules_for(variant, catalogue, self.settings)
        self.moves: list[Move] = []
        self.pos: Position | None = None
        self.spots: dict[str, Spot] = {}
        self.paths: dict[str, tuple[Point, ...]] = {}
        self.last_text = ""
        self.last_report: BuildReport | None = None
        self.finished = False
        self.result: FinalResult | None = None

    # ---- cards by what the camera sees -------------------------------------------------------
    def card_for_type(self, kind: str) -> str | None:
        """The catalogue card a station of this printed type is (the commonest of the type)."""
        t = READER_TYPES.get(kind.strip().lower())
        if t is None:
            return None
        cards = [c for c in self.catalogue.cards.values() if c.role is Role.STATION and c.type is t]
        if not cards:
            return None
        return max(cards, key=lambda c: c.count).id

    # ---- setting up from the first look ----------------------------------------------------
    def _setup_verdict(self, obs: dict[str, Any]) -> Verdict:
        entries = [s for s in obs.get("stations", []) or [] if isinstance(s, dict)]
        starts: list[tuple[str, Point]] = []
        metro: list[Point] = []
        plain: list[tuple[str, Point]] = []
        giganto = self.options["variant"] == "gigantopolis"
        for s in entries:
            c = point_mm(s.get("centre_mm"))
            if c is None:
                continue
            kind = str(s.get("type", "")).lower()
            if _is_metro(s) and not (giganto and self.card_for_type(kind) is not None):
                # on Gigantopolis the blank board carries station cards: the reader marks
                # them as the board's parts, but each is a plain card of its printed type
                metro.append(c)
            elif kind in START_TYPES or s.get("start"):
                colour = s.get("player") or s.get("colour") or s.get("start")
                cubes = s.get("cubes") or []
                if not colour and len(set(cubes)) == 1:
                    colour = cubes[0]   # before any build, the only "cube" is the colour band
                if not isinstance(colour, str) or colour not in COLOURS:
                    return Ask("Starting City colour unread")
                starts.append((colour, c))
            else:
                card = self.card_for_type(kind)
                if card is None:
                    return Ask(f"Unknown station type '{kind}'")
                plain.append((card, c))
        n = self.options["players"]
        if len(starts) != n:
            return Ask(f"Set out {n} Starting Cities ({len(starts)} seen)")
        if len({c for c, _ in starts}) != n:
            return Ask("Two Starting Cities alike")
        allc = [c for _, c in starts] + metro + [c for _, c in plain]
        centre = (sum(p[0] for p in allc) / len(allc), sum(p[1] for p in allc) / len(allc))
        stations: list[dict[str, Any]] = []
        if self.options["variant"] == "gigantopolis":
            if len(plain) < 4:
                return Ask("Put 4 stations on the board")
            plain.sort(key=lambda cp: math.dist(cp[1], centre))
            board, plain = plain[:4], plain[4:]
            bc = (sum(p[0] for _, p in board) / 4, sum(p[1] for _, p in board) / 4)
            board.sort(key=lambda cp: (cp[1][1] > bc[1], cp[1][0] > bc[0]))
            for i, (card, c) in enumerate(board):
                stations.append({"sid": f"G{i + 1}", "card": card, "centre_mm": list(c), "size_mm": STATION_MM})
        else:
            if not metro:
                return Ask("Metropolis not seen")
            mc = (sum(p[0] for p in metro) / len(metro), sum(p[1] for p in metro) / len(metro))
            stations.append({"sid": "M", "card": self.catalogue.with_role(Role.METROPOLIS).id,
                             "centre_mm": list(mc), "size_mm": BOARD_MM})
        start_card = self.catalogue.with_role(Role.STARTING_CITY).id

        def angle(p: Point) -> float:
            return math.atan2(p[1] - centre[1], p[0] - centre[0]) % (2 * math.pi)

        for colour, c in starts:
            stations.append({"sid": f"S-{colour}", "card": start_card, "centre_mm": list(c),
                             "size_mm": STATION_MM, "start": colour})
        for i, (card, c) in enumerate(sorted(plain, key=lambda cp: angle(cp[1]))):
            stations.append({"sid": f"B{i + 1}", "card": card, "centre_mm": list(c), "size_mm": STATION_MM})
        if self.options.get("colours"):
            colours = [c.strip() for c in str(self.options["colours"]).split(",") if c.strip()]
        else:  # play passes clockwise round the table from the first player
            ring = [c for c, _ in sorted(starts, key=lambda cp: angle(cp[1]))]
            k = ring.index(self.options["first"]) if self.options["first"] in ring else 0
            colours = ring[k:] + ring[:k]
        if sorted(colours) != sorted(c for c, _ in starts):
            return Ask(f"Colours {','.join(colours)} but Starting Cities "
                       f"{','.join(sorted(c for c, _ in starts))}")
        move = {"type": "setup", "colours": colours, "stations": stations}
        text = (f"{len(starts)} players, {len(plain)} Boundary"
                + (", Metropolis" if self.options["variant"] != "gigantopolis" else ", Gigantopolis"))
        return Proposed(move, text, ())

    # ---- reading the table ---------------------------------------------------------------------
    def interpret(self, observation: dict[str, Any], change: ChangeMap | None = None) -> Verdict:
        if self.pos is None:
            return self._setup_verdict(observation)
        pos = self.pos
        if self.finished or pos.phase is Phase.OVER:
            return NoChange()
        resolve, new_stations = self._match_stations(observation)
        seen: list[_Seen] = []
        for i, e in enumerate(observation.get("links", []) or []):
            if not isinstance(e, dict):
                continue
            try:
                colour, clips = str(e["colour"]), int(e["clips"])
                ends_raw = list(e["stations"])
            except (KeyError, TypeError, ValueError):
                return Ask("A link is unreadable")
            ends: list[tuple[str, int | None] | None] = []
            new_ends: list[int] = []
            for k, rid in enumerate(ends_raw[:2]):
                got = resolve.get(str(rid)) if rid is not None else None
                if got is None and rid is not None and str(rid) in new_stations:
                    new_ends.append(k)
                ends.append(got)
            while len(ends) < 2:
                ends.append(None)
            seen.append(_Seen(i, e, colour, clips, ends, new_ends, _path(e.get("path_mm"))))
        known = {frozenset((k.a, k.b)) | {k.colour}: k.lid for k in pos.links}
        matched: dict[int, str] = {}
        for s in seen:
            if all(x is not None for x in s.ends):
                key = frozenset(x[0] for x in s.ends if x is not None) | {s.colour}
                if key in known and known[key] not in matched.values():
                    matched[s.index] = known[key]
        links = {k.lid: k for k in pos.links}
        seen_by_index = {o.index: o for o in seen}
        for s in seen:   # ends misread: the same colour along the same path is the same link
            if s.index in matched or len(s.path) < 2:
                continue
            # (a piece of a link is that link too, though another piece was matched already:
            # a reader breaks chains at crossings and cards; then it must lie closer than
            # two chains side by side can, and end at no new station, so a new link laid
            # along an old one stays new)
            gaps = {lid: _path_gap(s.path, self.paths.get(lid, ())) for lid, k in links.items()
                    if k.colour == s.colour}
            free = [lid for lid, g in gaps.items() if g < SAME_PATH_MM and lid not in matched.values()]
            # (a piece ends short of one of its link's stations, at the crossing or card
            # the reader broke it at: a reading from one of them to the other is a whole
            # second link, however close to the first it was laid)
            reached = {x[0] for x in s.ends if x is not None}
            # (and a reading between two stations that lies along a reading of its link
            # already taken is a second chain: a station set on a player's own link, then
            # a link from it back along that link; a piece adds a part of the link unseen)
            def copies(lid: str) -> bool:
                return None not in s.ends and any(
                    _path_gap(s.path, seen_by_index[i].path) < PIECE_PATH_MM
                    for i, m in matched.items() if m == lid)
            piece = [lid for lid, g in gaps.items() if g < PIECE_PATH_MM and not s.new_ends
                     and not reached >= {links[lid].a, links[lid].b} and not copies(lid)]
            if free or piece:
                matched[s.index] = (free or piece)[0]
        fresh = [s for s in seen if s.index not in matched and _could_be_a_build(s)]
        vanished = [k.lid for k in pos.links if k.lid not in matched.values()]
        if vanished and fresh:
            # an old link the reader missed is likelier than one moved, unless the new link
            # looks like it (same colour and clip count): then ask
            moved = [(lid, f) for lid in vanished for f in fresh
                     if links[lid].colour == f.colour and links[lid].clips == f.clips]
            if moved:
                # the count alone is weak evidence (counts are rarely sure): the new link is
                # offered as a build too, and the players say which
                lid, f = moved[0]
                offered: tuple[Move, ...] = ()
                named: tuple[str, ...] = ()
                if len(fresh) == 1:
                    v = self._judge(f, observation, matched, new_stations)
                    if isinstance(v, Proposed):
                        offered, named = (v.move,), (v.text,)
                    elif isinstance(v, Ask):
                        offered, named = v.candidates, v.labels
                else:
                    # more new links beside it: the real build is likelier among them than a
                    # link moved while another was built, so each is offered as in "N new
                    # links at once" (games bench seed 0 game 5: a phantom red reading beside
                    # the true green build left nothing offered)
                    offered, named = self._offers(fresh, observation, matched, new_stations)
                fp = tuple(r for g in fresh for r in _footprint(g.path))   # fresh is [f] when alone
                return Ask(f"Link moved? {lid} gone, new {f.colour} link", offered, named, fp)
            vanished = []
        if vanished and not fresh:
            if len(vanished) > 2:
                return Unclear(f"{len(vanished)} links hidden")
            fp = tuple(r for lid in vanished for r in _footprint(self.paths.get(lid, ())))
            return missing(", ".join(vanished), fp)
        if not fresh:
            return NoChange()
        if len(fresh) > 1:
            options, labels = self._offers(fresh, observation, matched, new_stations)
            fp = tuple(r for s in fresh for r in _footprint(s.path))
            return Ask(f"{len(fresh)} new links at once", options, labels, fp)
        return self._judge(fresh[0], observation, matched, new_stations)

    def _offers(self, fresh: list[_Seen], observation: dict[str, Any], matched: dict[int, str],
                new_stations: dict[str, dict[str, Any]]) -> tuple[tuple[Move, ...], tuple[str, ...]]:
        """Every build the new links could be, one of each label: each legal one, each
        plausible count of an unsure one, and each illegal one (chosen, it is refused)."""
        options: list[Move] = []
        labels: list[str] = []
        for s in fresh:
            verdict = self._judge(s, observation, matched, new_stations)
            if isinstance(verdict, Proposed):
                options.append(verdict.move)
                labels.append(verdict.text)
            elif isinstance(verdict, Ask):   # an unsure count: each plausible count
                options += verdict.candidates
                labels += verdict.labels
            elif isinstance(verdict, Illegal):   # offered too: chosen, it is refused (alerted)
                label = f"{s.colour} {s.clips}: {verdict.short}"
                if label not in labels:
                    options.append(verdict.move)
                    labels.append(label)
        first = {label: i for i, label in reversed(list(enumerate(labels)))}   # one of each label
        keep = sorted(first.values())
        return tuple(options[i] for i in keep), tuple(labels[i] for i in keep)

    def _match_stations(self, obs: dict[str, Any]) -> tuple[dict[str, tuple[str, int | None]],
                                                              dict[str, dict[str, Any]]]:
        """Reader station id -> (our sid, Metropolis section or None); and the reader's
        stations that are none of ours (a station put down this turn)."""
        resolve: dict[str, tuple[str, int | None]] = {}
        unknown: dict[str, dict[str, Any]] = {}
        for s in obs.get("stations", []) or []:
            if not isinstance(s, dict) or "id" not in s:
                continue
            c = point_mm(s.get("centre_mm"))
            if c is None:
                continue
            best = min(self.spots.items(), key=lambda kv: kv[1].dist(c), default=None)
            if best is not None and best[1].dist(c) <= MATCH_FRACTION * best[1].size:
                sid, spot = best
                section = None
                if self._has_sections(sid) and spot.dist(c) > spot.size * 0.1:
                    section = _quadrant(spot, c)
                m = re.fullmatch(r"M:?([1-4])", str(s["id"]))
                if m and self._has_sections(sid):
                    section = int(m.group(1))
                resolve[str(s["id"])] = (sid, section)
            else:
                unknown[str(s["id"])] = s
        return resolve, unknown

    def _has_sections(self, sid: str) -> bool:
        assert self.pos is not None
        st = self.pos.station(sid)
        return st is not None and bool(self.rules.card(st).sections)

    def _judge(self, s: _Seen, obs: dict[str, Any], matched: dict[int, str],
               new_stations: dict[str, dict[str, Any]]) -> Verdict:
        """One new link: proposed, alerted, or its count asked.

        A sure count stands as read. An unsure count is judged at every plausible count
        (plausible_counts): illegal at all of them (a departure not owned, a station
        crossed, too short however it is miscounted) it is alerted; otherwise the players
        are asked, offered each legal count and, once per reason, a count the rules refuse
        only for its length or cost ("red 6: Link too short"), so a link that really is
        too short is confirmed and then refused (applying that candidate raises
        IllegalMove with the rule). An undercount never becomes an alert by itself."""
        pos = self.pos
        assert pos is not None
        fp = _footprint(s.path)
        if s.colour not in [p.colour for p in pos.players]:
            return Ask(f"A {s.colour} link: not a player", (), (), fp)
        new_card: str | None = None
        new_spot: Spot | None = None
        if sum(x is None and k not in s.new_ends for k, x in enumerate(s.ends)) == 1:
            return self._dangling(s, obs, matched, new_stations, fp)
        if s.new_ends and sum(x is None for x in s.ends) == 1:
            entry = new_stations[str(s.entry["stations"][s.new_ends[0]])]
            new_card = self.card_for_type(str(entry.get("type", "")))
            c = point_mm(entry.get("centre_mm"))
            if new_card is None or c is None:
                return Ask(f"New station: type '{entry.get('type')}' unknown", (), (), fp)
            new_spot = Spot(c[0], c[1], float(entry.get("size_mm", STATION_MM)))
        elif any(x is None for x in s.ends):
            return Ask(f"{s.colour} link: an end is not at a station", (), (), fp)
        # the end stations get cubes: the move may change their pixels too
        fp = _footprint(s.path, [self.spots[x[0]] for x in s.ends if x is not None and x[0] in self.spots]
                        + ([new_spot] if new_spot is not None else []))
        new_sid = f"N{len(pos.stations) + 1}"
        names = [new_sid if x is None else (f"{x[0]}:{x[1]}" if x[1] else x[0]) for x in s.ends]
        reading = {"colour": s.colour, "clips": s.clips, "stations": names,
                   "crosses": self._crosses(s, obs, matched),
                   "outside": bool(s.entry.get("outside", False))
                   or any(str(c) in ("edge", "outside") for c in s.entry.get("crosses", []) or []),
                   "middle_touch": bool(s.entry.get("middle_touch", False)),
                   "self_touch": bool(s.entry.get("self_touch", False))}
        conf = s.entry.get("confidence", 1.0)
        floor = self._fewest_clips(s, new_spot, obs)
        counts = plausible_counts(s.clips, float(conf) if isinstance(conf, (int, float)) else 1.0, floor)
        before, pos_then = self._turns_between(pos, s.colour)
        more: tuple[list[Move], Position] | None = None
        verdicts: list[Verdict] = []
        at: list[Position] = []
        for n in counts:
            v = self._verdict_for(dict(reading, clips=n), s, new_card, new_spot, obs, fp, pos_then, before)
            where = pos_then
            if self._only(pos_then, v, {Refusal.CARDS_NOT_IN_HAND}):
                # the hand cannot pay this count: a whole round of draws went by unseen (the
                # players tell End of Line); each count keeps the fewest draws that pay for it
                more = more or self._turns_between(pos, s.colour, 1)
                if more[0]:
                    again = self._verdict_for(dict(reading, clips=n), s, new_card, new_spot, obs, fp,
                                              more[1], more[0])
                    if isinstance(again, Proposed):
                        v, where = again, more[1]
            verdicts.append(v)
            at.append(where)
        if len(counts) == 1 or not any(isinstance(v, Proposed) for v in verdicts):
            return verdicts[0]   # a sure count, or illegal whatever the count: the verdict stands
        options: list[Move] = []
        labels: list[str] = []
        reasons: set[str] = set()
        for n, v, where in zip(counts, verdicts, at):
            if isinstance(v, Proposed):
                options.append(v.move)
                labels.append(v.text)
            elif isinstance(v, Illegal) and self._only(where, v, COUNT_REFUSALS) \
                    and v.move.get("refusal") not in reasons:
                reasons.add(str(v.move.get("refusal")))
                options.append(v.move)
                labels.append(f"{s.colour} {n}: {v.short}")
        return Ask(f"{s.colour} link: how many clips?", tuple(options), tuple(labels), fp)

    def _dangling(self, s: _Seen, obs: dict[str, Any], matched: dict[int, str],
                  new_stations: dict[str, dict[str, Any]], fp: tuple[Rect, ...]) -> Verdict:
        """A link with one end at no station: the reader lost the chain's last clips (its
        path stops short, its count with it). The stations of the game near where the path
        stops are asked, each judged as that end (its count from the gap up, see
        _fewest_clips; one illegal whatever its count is offered as refused, so a link
        that is illegal still ends in an alert); none near and the players are asked to look."""
        k = next(i for i, x in enumerate(s.ends) if x is None and i not in s.new_ends)
        other = s.ends[1 - k]
        tip = s.path[0] if k == 0 else s.path[-1] if s.path else None
        options: list[Move] = []
        labels: list[str] = []
        if tip is not None:
            near = sorted((_box_gap(spot, tip), sid) for sid, spot in self.spots.items()
                          if other is None or sid != other[0])
            for gap, sid in near[:DANGLING_STATIONS]:
                if gap > DANGLING_MM:
                    break
                spot = self.spots[sid]
                ends = list(s.ends)
                ends[k] = (sid, _quadrant(spot, tip) if self._has_sections(sid) else None)
                # the path carried on to the station, so later readings of the whole chain match it
                path = ((spot.x, spot.y),) + s.path if k == 0 else s.path + ((spot.x, spot.y),)
                v = self._judge(replace(s, ends=ends, path=path), obs, matched, new_stations)
                if isinstance(v, Proposed):
                    options.append(v.move)
                    labels.append(v.text)
                elif isinstance(v, Ask):
                    options += v.candidates
                    labels += v.labels
                elif isinstance(v, Illegal):   # chosen, it is refused (alerted)
                    link = v.move["link"]
                    options.append(v.move)
                    labels.append(f"{s.colour} {link['from_station']}-{link['to_station']}: {v.short}")
        return Ask(f"{s.colour} link: an end is not at a station", tuple(options), tuple(labels), fp)

    def _fewest_clips(self, s: _Seen, new_spot: Spot | None, obs: dict[str, Any]) -> int:
        """The fewest clips that can join the link's two stations: a chain reaches from
        border to border, so the straight gap between them (less both half-diagonals,
        whichever way the link leaves: cards are STATION_MM squares) bounds its count
        from below, whatever was counted. The pitch is taken at FLOOR_PITCH of a clip's
        length, longer than a chain's, so the bound stays below the truth."""
        spots: list[Spot] = []
        for end in s.ends:
            if end is None:
                if new_spot is None:
                    return 1
                spots.append(new_spot)
                continue
            sid, section = end
            spot = self.spots.get(sid)
            if spot is None:
                return 1
            if section:
                q = spot.size / 4
                dx, dy = {1: (-q, -q), 2: (q, -q), 3: (q, q), 4: (-q, q)}.get(section, (0.0, 0.0))
                spot = Spot(spot.x + dx, spot.y + dy, spot.size / 2)
            spots.append(spot)
        a, b = spots
        clip = obs.get("clip_length_mm")
        clip_mm = float(clip) if isinstance(clip, (int, float)) and clip > 0 else CLIP_MM
        gap = a.dist((b.x, b.y)) - (a.size + b.size) / math.sqrt(2)
        return max(1, clips_for_distance(gap, FLOOR_PITCH * clip_mm, clip_mm)) if gap > 0 else 1

    def _only(self, pos: Position, v: Verdict, reasons: set[Refusal] | frozenset[Refusal]) -> bool:
        """An Illegal verdict refused for these reasons and no other."""
        if not isinstance(v, Illegal) or "link" not in v.move:
            return False
        got = {r for r, _ in self.rules.refusals(pos, link_from_json(dict(v.move["link"])))}
        return bool(got) and got <= reasons

    def _turns_between(self, pos: Position, colour: str, rounds: int = 0) -> tuple[list[Move], Position]:
        """A link by a player who is not to move: the players before them drew (or passed,
        the deck being empty); the camera cannot see a draw, the turn order tells it.
        `rounds` more whole rounds of draws are assumed when asked (a player whose hand
        cannot pay must have drawn). End of Line is never inferred (the players tell it)."""
        out: list[Move] = []
        if not self.options.get("infer_draws", True):
            return out, pos
        at = pos
        steps = 0
        while at.to_move != colour or steps < rounds * len(pos.players):
            if at.phase not in (Phase.PLAYING, Phase.LAST_ROUND) or steps >= (rounds + 1) * len(pos.players):
                return [], pos
            who = at.to_move
            try:
                if at.deck:
                    at = self.rules.draw(at, Draw(who))
                    out.append({"type": "draw", "colour": who})
                else:
                    at = self.rules.pass_turn(at, Pass(who))
                    out.append({"type": "pass", "colour": who})
            except RulesError:
                return [], pos
            steps += 1
        return out, at

    def _verdict_for(self, reading: dict[str, Any], s: _Seen, new_card: str | None,
                     new_spot: Spot | None, obs: dict[str, Any], fp: tuple[Rect, ...],
                     pos: Position, before: list[Move]) -> Verdict:
        free = self.rules.free_clips(pos, s.colour)
        per = self.settings.clips_per_card
        cards = max(1, math.ceil(max(0, int(reading["clips"]) - free) / per))
        try:
            b = link_from_reading(self.rules, pos, reading, cards, new_card)
        except CouldNotRead as e:
            return Ask(str(e).split(";")[0][:60], (), (), fp)
        if new_spot is not None:
            b = replace(b, **self._new_station_facts(new_spot, obs))
        move: Move = {"type": "build", "link": link_to_json(b),
                      "path_mm": [[round(x, 1), round(y, 1)] for x, y in _decimate(s.path)]}
        if new_spot is not None:
            move["new_station_mm"] = [round(new_spot.x, 1), round(new_spot.y, 1), new_spot.size]
        if before:
            move["before"] = [dict(m) for m in before]
        problems = self.rules.refusals(pos, b)
        if problems:
            reason, message = problems[0]
            move["refusal"] = reason.name
            return Illegal(move, REFUSAL_SHORT.get(reason, reason.value),
                           f"{message} [{format_position(pos).strip()}]".replace("\n", " | "), fp, reason)
        terms = self.rules.score_build(pos, b)
        gains: dict[str, int] = {}
        for t in terms:
            gains[t.colour] = gains.get(t.colour, 0) + t.points
        extras = []
        if b.touches_links:
            extras.append(f"x{len(b.touches_links)} link")
        if b.obstacles:
            extras.append(f"{b.obstacles} obst")
        if b.river_parts:
            extras.append("river")
        drew = "".join(f"{m['colour']} {'drew' if m['type'] == 'draw' else 'passed'}; " for m in before)
        text = (drew + f"{b.colour} {b.clips}: {b.from_station}-{b.to_station}"
                + (f" ({', '.join(extras)})" if extras else "") + " "
                + " ".join(f"{c} {_signed(n)}" for c, n in gains.items()))
        return Proposed(move, text, fp)

    def _crosses(self, s: _Seen, obs: dict[str, Any], matched: dict[int, str]) -> list[str]:
        """The reader's crossings in the engine's words; stations crossed also from the path."""
        assert self.pos is not None
        links = [e for e in obs.get("links", []) or [] if isinstance(e, dict)]
        by_id = {str(e.get("id")): i for i, e in enumerate(links) if e.get("id") is not None}
        out: list[str] = []
        seen_obstacles: set[str] = set()
        stations_out: set[str] = set()
        resolve, _ = self._match_stations(obs)
        for item in s.entry.get("crosses", []) or []:
            text = str(item)
            kind, _, ident = text.partition(":")
            if text == "river" or kind == "river":
                out.append("river")
            elif kind == "obstacle":
                if ident and ident in seen_obstacles:
                    continue
                seen_obstacles.add(ident or str(len(seen_obstacles)))
                out.append("obstacle")
            elif kind == "station" and ident:
                got = resolve.get(ident)
                if got is not None and got[0] not in (e[0] for e in s.ends if e is not None):
                    stations_out.add(got[0])
            elif kind == "link" or re.fullmatch(r"L\d+", text):
                ref = ident if kind == "link" else text
                j = by_id.get(ref)
                if j is None and ref.isdigit():
                    j = int(ref)
                if j is not None and j in matched:
                    out.append(matched[j])
                elif self.pos.link(ref) is not None:
                    out.append(ref)
        ends = {e[0] for e in s.ends if e is not None}
        inner = _arc_trimmed(s.path, END_FREE_MM, END_FREE_MM)
        for sid, spot in self.spots.items():
            if sid in ends or sid in stations_out:
                continue
            half = spot.size / 2 - 3.0
            if any(abs(x - spot.x) < half and abs(y - spot.y) < half for x, y in inner):
                stations_out.add(sid)
        links_out = list(dict.fromkeys(o for o in out if o not in ("river", "obstacle")))
        return (links_out + ["obstacle"] * out.count("obstacle") + ["river"] * out.count("river")
                + [f"station:{sid}" for sid in sorted(stations_out)])

    def _new_station_facts(self, spot: Spot, obs: dict[str, Any]) -> dict[str, Any]:
        box = spot.box()
        touches = any(box.gap(other.box()) < NEW_STATION_TOUCH_MM for other in self.spots.values())
        obstacles = 0
        for ob in obs.get("obstacles", []) or []:
            parts = ob.get("parts_mm", ob.get("parts", [ob.get("polygon_mm")])) if isinstance(ob, dict) else []
            boxes = [b for b in (_polygon_box(p) for p in parts or []) if b is not None]
            if any(box.gap(b) == 0 for b in boxes):
                obstacles += 1
        river = 0
        rv = obs.get("river")
        rpath = _path(rv.get("path_mm")) if isinstance(rv, dict) else ()
        if len(rpath) >= 2 and polyline_rect_distance(rpath, box) < 4.5:
            river = 1
        return {"new_station_touches_station": touches, "new_station_obstacles": obstacles,
                "new_station_river_parts": river}

    # ---- changing the state ------------------------------------------------------------------
    def _apply(self, move: Move) -> Applied:
        kind = move.get("type")
        if kind == "setup":
            return self._apply_setup(move)
        pos = self.pos
        if pos is None:
            raise CouldNotRead(f"railways move {kind!r} before the table was set up; "
                               "set out the stations first")
        if kind == "build":
            try:
                return self._apply_build(move)
            except Exception:
                self.pos = pos   # a refused build leaves no inferred draw behind
                raise
        return self._apply_other(move, pos)

    def _apply_build(self, move: Move) -> Applied:
        """A build, after the draws the turn order implied (see _turns_between)."""
        for m in move.get("before", []) or []:
            if m.get("type") not in ("draw", "pass"):
                raise CouldNotRead(f"railways build: 'before' may hold only draws and passes, got {m!r}")
            self._apply(dict(m))
        pos = self.pos
        assert pos is not None
        b = link_from_json(dict(move["link"]))
        if "cards" in move:
            b = replace(b, cards_discarded=int(move["cards"]))
        new_pos, report = self.rules.build(pos, b)
        self.pos = new_pos
        self.last_report = report
        self.paths[report.link.lid] = _path(move.get("path_mm"))
        ns = move.get("new_station_mm")
        if b.new_card is not None and isinstance(ns, (list, tuple)) and len(ns) == 3:
            self.spots[b.to_station] = Spot(float(ns[0]), float(ns[1]), float(ns[2]))
        gain = report.points_for(b.colour)
        return Applied(f"{b.colour} {b.clips}c {_signed(gain)}", over=new_pos.phase is Phase.OVER,
                       extra={"report": report, "built": b})

    def _apply_other(self, move: Move, pos: Position) -> Applied:
        kind = move.get("type")
        if kind == "draw":
            colour = str(move.get("colour", pos.to_move))
            if move.get("end_of_line") and pos.deck and END_OF_LINE not in pos.deck:
                k = min(len(pos.deck), self.rules.draw_count(len(pos.players))) - 1
                pos = replace(pos, deck=pos.deck[:k] + (END_OF_LINE,) + pos.deck[k + 1:])
            self.pos = self.rules.draw(pos, Draw(colour))
            eol = " End of Line" if move.get("end_of_line") else ""
            return Applied(f"{colour} drew{eol}", over=self.pos.phase is Phase.OVER)
        if kind == "pass":
            colour = str(move.get("colour", pos.to_move))
            self.pos = self.rules.pass_turn(pos, Pass(colour))
            return Applied(f"{colour} passed", over=self.pos.phase is Phase.OVER)
        if kind == "station":
            # a Boundary station the set-up missed, entered by the players (it joins the game
            # as if set out at the start: no card leaves a hand)
            card = str(move.get("card", ""))
            self.catalogue[card]   # an unknown card fails here, naming the catalogue
            c = point_mm(move.get("centre_mm"))
            if c is None:
                raise CouldNotRead(f"railways station move {move!r} has no centre_mm; give the card's centre")
            sid = f"X{len(pos.stations) + 1}"
            self.pos = replace(pos, stations=pos.stations + (StationInPlay(sid, card, ()),))
            self.spots[sid] = Spot(c[0], c[1], float(move.get("size_mm", STATION_MM)))
            return Applied(f"Station {sid} added")
        if kind == "end":
            self.result = self.rules.final_result(pos)
            self.finished = True
            return Applied("Game over", over=True)
        raise CouldNotRead(f"unknown railways move {move!r}; the journal may be from a newer version")

    def _apply_setup(self, move: Move) -> Applied:
        if self.pos is not None:
            raise CouldNotRead("railways setup twice; undo to the start to set up again")
        colours = tuple(str(c) for c in move["colours"])
        base = self.rules.setup(random.Random(0), colours)
        stations: list[StationInPlay] = []
        spots: dict[str, Spot] = {}
        for s in move["stations"]:
            sid = str(s["sid"])
            card = str(s["card"])
            self.catalogue[card]  # an unknown card fails here, naming the catalogue
            stations.append(StationInPlay(sid, card, (), s.get("start")))
            c = point_mm(s.get("centre_mm"))
            if c is None:
                raise CouldNotRead(f"railways setup: station {sid} has no centre_mm")
            spots[sid] = Spot(c[0], c[1], float(s.get("size_mm", STATION_MM)))
        players = tuple(replace(p, hand=(UNKNOWN_CARD,) * len(p.hand)) for p in base.players)
        self.pos = replace(base, players=players, stations=tuple(stations),
                           deck=(UNKNOWN_CARD,) * len(base.deck))
        self.spots = spots
        return Applied(f"Set up: {', '.join(colours)}")

    def undo(self) -> Move | None:
        if not self.moves:
            return None
        last = self.moves[-1]
        rebuilt = RailwaysSession(self.options, self.catalogue, self.settings)
        for m in self.moves[:-1]:
            rebuilt.apply(m)
        self.__dict__.update(rebuilt.__dict__)
        return last

    # ---- menus and end -------------------------------------------------------------------------
    def actions(self) -> list[Action]:
        pos = self.pos
        if pos is None or self.finished or pos.phase is Phase.OVER:
            return []
        c = pos.to_move
        out = []
        if pos.deck and pos.phase is not Phase.LAST_BUILD:
            out.append(Action(f"{c} draws", {"type": "draw", "colour": c}))
            out.append(Action(f"{c} draws End of Line", {"type": "draw", "colour": c, "end_of_line": True}))
        else:
            out.append(Action(f"{c} passes", {"type": "pass", "colour": c}))
        return out

    def fixes(self, undone: Move) -> list[Action]:
        """A build undone: the same link with another card count or clip count (a misread)."""
        if undone.get("type") != "build" or self.pos is None:
            return []
        b = link_from_json(dict(undone["link"]))
        if "cards" in undone:
            b = replace(b, cards_discarded=int(undone["cards"]))
        out = []
        pos = self.pos
        try:
            for m in undone.get("before", []) or []:
                who = str(m.get("colour"))
                pos = self.rules.draw(pos, Draw(who)) if m.get("type") == "draw" else \
                    self.rules.pass_turn(pos, Pass(who))
        except RulesError:
            return []
        hand = len(pos.player(b.colour).hand) if b.colour in [p.colour for p in pos.players] else 0
        tries = [(replace(b, cards_discarded=n), f"{n} card{'s' if n > 1 else ''} paid")
                 for n in range(1, hand + 1) if n != b.cards_discarded]
        for n in (b.clips - 1, b.clips + 1, b.clips - 2, b.clips + 2):
            if n >= 1:
                free = self.rules.free_clips(pos, b.colour)
                cards = max(b.cards_discarded, math.ceil(max(0, n - free) / self.settings.clips_per_card))
                tries.append((replace(b, clips=n, cards_discarded=cards), f"{n} clips"))
        for alt, label in tries:
            if not self.rules.refusals(pos, alt):
                m = dict(undone)
                m.pop("cards", None)
                m["link"] = link_to_json(alt)
                out.append(Action(label, m))
        return out

    def end_questions(self) -> list[Setting]:
        return []

    def finish(self, answers: dict[str, Any]) -> Move:
        return {"type": "end"}

    def is_over(self) -> bool:
        """Over when the engine says so (the loop then ends the game and shows the scores)."""
        return self.finished or (self.pos is not None and self.pos.phase is Phase.OVER)

    def final_result(self) -> FinalResult | None:
        if self.pos is None:
            return None
        return self.result or self.rules.final_result(self.pos)

    # ---- screens -------------------------------------------------------------------------------
    def status_screen(self) -> Image.Image:
        pos = self.pos
        if pos is None:
            return scr.text_screen("Paperclip Railways", ["Set out the", "stations"])
        if pos.phase is Phase.OVER and not self.finished:
            return scr.text_screen("Game over", ["MENU: end game", self.last_text])
        return scores_screen(pos)

    def applied_screen(self, move: Move) -> Image.Image | None:
        """After a build: colour, clips, route, costs and each player's points."""
        if move.get("type") != "build" or self.last_report is None:
            return None
        built = link_from_json(dict(move["link"]))
        if "cards" in move:
            built = replace(built, cards_discarded=int(move["cards"]))
        return build_screen(built, self.last_report)

    def illegal_screen(self, verdict: Illegal) -> Image.Image:
        """An illegal link, inverted: the rule broken in two or three words."""
        name = verdict.move.get("refusal")
        if isinstance(name, str) and name in Refusal.__members__:
            return refusal_screen(Refusal[name])
        return scr.error_screen("Illegal link", verdict.short)

    def result_screen(self) -> Image.Image:
        result = self.final_result()
        if result is None:
            return scr.text_screen("Game over", ["No game played"])
        return end_screen(result)

    def summary(self) -> dict[str, Any]:
        pos = self.pos
        out: dict[str, Any] = {"game": self.game, "moves": len(self.moves), "finished": self.finished,
                               "notation": format_position(pos).strip().replace("\n", " | ") if pos else "-"}
        if pos is not None:
            out["scores"] = {p.colour: p.score for p in pos.players}
            out["links"] = len(pos.links)
        if self.finished and self.result is not None:
            out["totals"] = dict(self.result.totals)
            out["winners"] = list(self.result.winners)
        return out


def plausible_counts(clips: int, confidence: float, floor: int = 1) -> list[int]:
    """The clip counts a link read as `clips` may really have, the likeliest first, then
    nearer before farther (one more before one fewer). A confident count is itself only.
    An unsure one spans more the longer the chain: the reader's count errors grow with
    length and run short (docs/benchmarks.md section 6), and a true count left out of
    this range would be refused or never offered. No count is below `floor` (the fewest
    clips that span the gap between the two stations): a count read below it is wrong
    however sure, and the range starts from the floor instead."""
    if confidence >= LOW_CONFIDENCE and clips >= floor:
        return [clips]
    base = max(clips, floor)
    below = UNSURE_BELOW[0] + base // UNSURE_BELOW[1]
    above = UNSURE_ABOVE[0] + base // UNSURE_ABOVE[1]
    out = [base]
    for d in range(1, max(below, above) + 1):
        if d <= above:
            out.append(base + d)
        if d <= below and base - d >= max(1, floor):
            out.append(base - d)
    return out


def _could_be_a_build(s: _Seen) -> bool:
    """A reading that cannot be a link a player laid (no end at any station, or both ends
    at the same one) is reader noise, never a move or an alert."""
    resolved = [e for e in s.ends if e is not None]
    if not resolved and len(s.new_ends) < 1:
        return False
    if len(resolved) == 2 and resolved[0][0] == resolved[1][0]:
        return False
    return True


def _box_gap(spot: Spot, p: Point) -> float:
    """How far a point lies outside a station's card (0 inside)."""
    dx = max(0.0, abs(p[0] - spot.x) - spot.size / 2)
    dy = max(0.0, abs(p[1] - spot.y) - spot.size / 2)
    return math.hypot(dx, dy)


def _path_gap(a: Sequence[Point], b: Sequence[Point]) -> float:
    """Mean distance from points of `a` (every ~10 mm) to the polyline `b`: how far apart two
    readings of a chain lie (inf when either is missing)."""
    if len(a) < 2 or len(b) < 2:
        return math.inf
    pts = _arc_trimmed(a, 0.0, 0.0)[::5]
    total = 0.0
    for p in pts:
        total += min(_seg_dist(p, u, v) for u, v in zip(b, b[1:]))
    return total / max(1, len(pts))


def _seg_dist(p: Point, a: Point, b: Point) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    L2 = dx * dx + dy * dy
    t = 0.0 if L2 == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / L2))
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)


def _is_metro(s: dict[str, Any]) -> bool:
    kind = str(s.get("kind", "")).lower()
    t = str(s.get("type", "")).lower()
    return (kind in METRO_KINDS or t == "metropolis" or s.get("metropolis") is True
            or bool(re.fullmatch(r"M:?[1-4]?", str(s.get("id", "")))))


def _quadrant(spot: Spot, p: Point) -> int:
    """Metropolis section 1-4, clockwise from the top-left quadrant (as vision/synth draws it)."""
    right, below = p[0] >= spot.x, p[1] >= spot.y
    return {(False, False): 1, (True, False): 2, (True, True): 3, (False, True): 4}[(right, below)]


def _decimate(path: Sequence[Point], step: float = 15.0) -> list[Point]:
    """A path thinned to about one point per `step` mm, ends kept (the journal stays small)."""
    if len(path) <= 2:
        return list(path)
    out = [path[0]]
    for p in path[1:-1]:
        if math.dist(p, out[-1]) >= step:
            out.append(p)
    out.append(path[-1])
    return out


def make(options: dict[str, Any]) -> RailwaysSession:
    return RailwaysSession(options)


KIND = GameKind(
    name="railways",
    title="Paperclip Railways",
    settings=(Setting("players", "Players", (2, 3, 4, 5), 2),
              Setting("variant", "Variant", ("metropolis", "gigantopolis"), "metropolis"),
              Setting("first", "First player", COLOURS, COLOURS[0])),
    make=make,
)

__all__ = ["KIND", "RailwaysSession", "link_from_json", "link_to_json", "plausible_counts", "Refusal"]
