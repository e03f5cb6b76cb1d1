"""`tableref bench --game railways-games`: whole simulated Paperclip Railways games played
frame by frame through the reader and the device's game session.

Each game is a seeded random legal game (rules.railways.simulate). Its table is drawn
after every build (vision.synth.railways_game), read by the railways reader with the
frame before as `previous`, and the reading goes to RailwaysSession.interpret() exactly
as on the device. Draws and passes come from the menu (the camera cannot see cards);
a proposed build is applied with the true number of cards discarded (the device asks the
players). A question with candidates is answered the way the players would (the true
move, if offered). Some games get a deliberately illegal link laid before a build
(departure not owned, too short, across a station): it must be alerted, then it is taken
back. A game is right when no correction was needed and the final scores equal the
simulator's.

When the reader is not built, the same games run on the true readings (the drawn
geometry turned into the reader's JSON) so the session and rules are still measured;
that figure is labelled as such and is NOT a vision figure.
"""

from __future__ import annotations

import math
import random
from dataclasses import replace
import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from firmware.bench.common import md_table, pct, verdict
from firmware.games.base import Ask, Illegal, NoChange, Proposed
from firmware.games.railways import RailwaysSession, link_to_json
from rules.errors import RulesError
from rules.railways.cards import Catalogue, Role
from rules.railways.engine import Refusal, rules_for
from rules.railways.geometry import Rect, clips_for_distance
from rules.railways.simulate import SimGame, SimGeometry, placeholder_catalogue, scene_after, simulate_game
from rules.railways.state import END_OF_LINE, BuiltLink, Draw, Pass, Position

if TYPE_CHECKING:
    from vision.synth.railways_game import GameTable

Point = tuple[float, float]
ORIGIN = (40.0, 40.0)
METRO_TYPES = ("town", "suburban", "town", "suburban")


def bench_catalogue() -> Catalogue:
    """The shipped placeholder cards without the one-off 'example' card: the camera tells a
    card by its printed type, so each type must be one card (the device asks otherwise)."""
    base = placeholder_catalogue()
    from types import MappingProxyType
    return Catalogue(MappingProxyType({k: v for k, v in base.cards.items() if k != "example"}))


# ---- truth ------------------------------------------------------------------------------------

def positions(game: SimGame, catalogue: Catalogue) -> list[Position]:
    """The true position before each move (and after the last)."""
    rules = rules_for(game.variant, catalogue)
    pos = game.start
    out = [pos]
    for m in game.moves:
        pos = rules.play(pos, m.move)
        out.append(pos)
    return out


def _mm(p: Point) -> list[float]:
    """Play-area mm -> table mm, unrounded (a station 0.03 mm from an obstacle must not
    touch it after rounding)."""
    return [p[0] + ORIGIN[0], p[1] + ORIGIN[1]]


def _metro_end(r: Rect, end: Point) -> str:
    right, below = end[0] >= r.cx, end[1] >= r.cy
    return "M" + str({(False, False): 1, (True, False): 2, (True, True): 3, (False, True): 4}[(right, below)])


def true_reading(game: SimGame, moves: int, catalogue: Catalogue,
                 extra: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """What a perfect reader would report for the table after `moves` moves (reader JSON,
    table mm, the reader's own ids: stations S1.., Metropolis parts M1..M4)."""
    sc = scene_after(game, moves)
    start_of = {s.sid: s.start for s in game.start.stations}
    ids: dict[str, str] = {}
    stations: list[dict[str, Any]] = []
    for sid, (r, card_id) in sc.stations.items():
        card = catalogue[card_id]
        if card.role is Role.METROPOLIS:
            for k, (sx, sy) in enumerate(((-1, -1), (1, -1), (1, 1), (-1, 1))):
                c = (r.cx + sx * r.w / 4, r.cy + sy * r.w / 4)
                stations.append({"id": f"M{k + 1}", "type": METRO_TYPES[k], "metropolis": True,
                                 "centre_mm": _mm(c)})
            continue
        rid = f"S{len(ids) + 1}"
        ids[sid] = rid
        kind = "start" if card.role is Role.STARTING_CITY else card.type.value
        entry: dict[str, Any] = {"id": rid, "type": kind, "centre_mm": _mm((r.cx, r.cy))}
        if start_of.get(sid):
            entry["player"] = start_of[sid]
        stations.append(entry)
    links: list[dict[str, Any]] = []
    builds = [m for m in game.moves[:moves] if isinstance(m.move, BuiltLink)]
    for i, m in enumerate(builds):
        b = m.move
        assert isinstance(b, BuiltLink)
        ends = []
        for sid, end in ((b.from_station, m.path[0]), (b.to_station, m.path[-1])):
            ends.append(_metro_end(sc.stations[sid][0], end) if sid == "M" else ids[sid])
        crosses = [f"link:{int(lid[1:]) - 1}" for lid in b.touches_links]
        crosses += ["obstacle"] * b.obstacles + ["river"] * b.river_parts
        links.append({"colour": b.colour, "clips": b.clips, "confidence": 1.0,
                      "path_mm": [_mm(p) for p in m.path], "stations": ends, "crosses": crosses})
    for e in extra:
        ends = [_metro_end(sc.stations[s][0], p) if s == "M" else ids[s]
                for s, p in ((e["from"], e["path"][0]), (e["to"], e["path"][-1]))]
        links.append({"colour": e["colour"], "clips": e["clips"], "confidence": 1.0,
                      "path_mm": [_mm(p) for p in e["path"]], "stations": ends, "crosses": []})
    return {"game": "railways", "links": links, "stations": stations,
            "river": {"path_mm": [_mm(p) for p in sc.river]},
            "obstacles": [{"parts_mm": [[_mm((x, y)) for x, y in ((q.x0, q.y0), (q.x1, q.y0), (q.x1, q.y1),
                                                                 (q.x0, q.y1))] for q in ob]}
                          for ob in sc.obstacles]}


# ---- deliberately illegal links -------------------------------------------------------------------

def _bowed(a: Rect, b: Rect, clips: int, g: SimGeometry, rng: random.Random,
           via: Point | None = None) -> tuple[Point, ...] | None:
    """A path of exactly chain_mm(clips) from a's border to b's (bowed, or through `via`)."""
    target = via if via is not None else (b.cx, b.cy)
    ang = math.atan2(target[1] - a.cy, target[0] - a.cx)
    p = (a.cx + (a.exit_distance(ang) - g.end_overlap_mm) * math.cos(ang),
         a.cy + (a.exit_distance(ang) - g.end_overlap_mm) * math.sin(ang))
    src = via if via is not None else (a.cx, a.cy)
    ang2 = math.atan2(b.cy - src[1], b.cx - src[0])
    q = (b.cx - (b.exit_distance(ang2 + math.pi) - g.end_overlap_mm) * math.cos(ang2),
         b.cy - (b.exit_distance(ang2 + math.pi) - g.end_overlap_mm) * math.sin(ang2))
    length = g.chain_mm(clips)
    if via is not None:
        if math.dist(p, via) + math.dist(via, q) > length + 1e-6:
            return None
        return (p, via, q)
    straight = math.dist(p, q)
    if length < straight - 1e-6:
        return None
    bow = math.sqrt(max(0.0, (length / 2) ** 2 - (straight / 2) ** 2)) * rng.choice((-1.0, 1.0))
    d = math.atan2(q[1] - p[1], q[0] - p[0])
    mid = ((p[0] + q[0]) / 2 - bow * math.sin(d), (p[1] + q[1]) / 2 + bow * math.cos(d))
    return (p, mid, q)


def illegal_link(kind: str, game: SimGame, moves: int, pos: Position, catalogue: Catalogue,
                 rng: random.Random, g: SimGeometry | None = None) -> dict[str, Any] | None:
    """A link the player to move may not build, laid on the table after `moves` moves:
    'not-owned' (neither end is theirs), 'too-short' (fewer clips than the minimum, both
    ways) or 'crosses' (through a third station). None when the table offers none."""
    g = g or SimGeometry()
    rules = rules_for(game.variant, catalogue)
    me = pos.to_move
    sc = scene_after(game, moves)
    plain = [s for s in pos.stations if s.sid in sc.stations and not rules.card(s).sections
             and not rules.is_full(s)]
    rng.shuffle(plain)
    owned = [s for s in plain if s.start == me or me in s.cubes]
    others = [s for s in plain if not (s.start == me or me in s.cubes)]
    rect = {sid: r for sid, (r, _) in sc.stations.items()}

    def least(a: Any, b: Any) -> int | None:
        return rules.min_length(rules.card(a), rules.card(b))

    if kind == "not-owned":
        for a in others:
            for b in others:
                n = least(a, b)
                if a.sid == b.sid or n is None:
                    continue
                dist = math.dist((rect[a.sid].cx, rect[a.sid].cy), (rect[b.sid].cx, rect[b.sid].cy))
                if dist > 400:
                    continue
                clips = max(n, clips_for_distance(dist - g.card_w_mm + 2 * g.end_overlap_mm,
                                                  g.clip_pitch_mm, g.clip_length_mm) + 1)
                path = _bowed(rect[a.sid], rect[b.sid], clips, g, rng)
                if path is not None:
                    return {"kind": kind, "colour": me, "clips": clips, "from": a.sid, "to": b.sid,
                            "path": path, "reason": Refusal.DEPARTURE_NOT_OWNED}
    if kind == "too-short":
        for a in owned:
            for b in plain:
                n = least(a, b)
                back = least(b, a) if (b.start == me or me in b.cubes) else None
                if a.sid == b.sid or n is None:
                    continue
                dist = math.dist((rect[a.sid].cx, rect[a.sid].cy), (rect[b.sid].cx, rect[b.sid].cy))
                need = clips_for_distance(dist - g.card_w_mm + 2 * g.end_overlap_mm,
                                          g.clip_pitch_mm, g.clip_length_mm)
                if need < 1 or need >= n or (back is not None and need >= back):
                    continue
                path = _bowed(rect[a.sid], rect[b.sid], need, g, rng)
                if path is not None:
                    return {"kind": kind, "colour": me, "clips": need, "from": a.sid, "to": b.sid,
                            "path": path, "reason": Refusal.TOO_SHORT}
    if kind == "crosses":
        for a in owned:
            for b in plain:
                n = least(a, b)
                if a.sid == b.sid or n is None:
                    continue
                for x in plain:
                    if x.sid in (a.sid, b.sid):
                        continue
                    via = (rect[x.sid].cx, rect[x.sid].cy)
                    d = (math.dist((rect[a.sid].cx, rect[a.sid].cy), via)
                         + math.dist(via, (rect[b.sid].cx, rect[b.sid].cy)))
                    if d > 500:
                        continue
                    clips = max(n, clips_for_distance(d - g.card_w_mm + 2 * g.end_overlap_mm,
                                                      g.clip_pitch_mm, g.clip_length_mm))
                    path = _bowed(rect[a.sid], rect[b.sid], clips, g, rng, via)
                    if path is not None:
                        return {"kind": kind, "colour": me, "clips": clips, "from": a.sid, "to": b.sid,
                                "path": path, "reason": Refusal.CROSSES_STATION}
    return None


# ---- playing one game ---------------------------------------------------------------------------

@dataclass
class GameScore:
    """What happened in one game."""

    builds: int = 0
    proposed: int = 0
    exact: int = 0              # proposed with the true clip count and ends
    asked: int = 0              # a question the players answered with the true move
    failed: int = 0             # no verdict the players could accept without correcting
    wrong: int = 0              # a proposed build that was not the true one
    false_changes: int = 0      # a frame with nothing new that was not NoChange
    illegal: int = 0
    alerted: int = 0            # at once, or after the players confirmed the count in a question
    alerted_asked: int = 0      # ... of which after a question
    right_reason: int = 0
    false_alerts: int = 0       # a legal build alerted as illegal
    false_alerts_count: int = 0  # ... of the true link, refused for its count (a miscount)
    counts: list[tuple[int, int, float]] = field(default_factory=list)  # (true, read, confidence)
    facts_wrong: int = 0        # builds taken with crossings other than the truth's (scores differ)
    setup_ok: bool = False
    scores_equal: bool = False
    diverged: str = ""
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _same_build(move: dict[str, Any], truth: BuiltLink, session: RailwaysSession,
                ends_mm: Sequence[Point]) -> bool:
    """The same colour, clip count and end stations (by where they lie: ids differ)."""
    link = move.get("link", {})
    if move.get("refusal") or link.get("colour") != truth.colour or int(link.get("clips", -1)) != truth.clips:
        return False
    return _same_ends(move, session, ends_mm)


def _same_ends(move: dict[str, Any], session: RailwaysSession, ends_mm: Sequence[Point]) -> bool:
    """A move's two stations lie where these are (within 30 mm of their centres)."""
    link = move.get("link", {})
    got: list[Point] = []
    for sid in (link.get("from_station"), link.get("to_station")):
        spot = session.spots.get(str(sid))
        ns = move.get("new_station_mm")
        if spot is None and link.get("new_card") and isinstance(ns, list):
            got.append((float(ns[0]), float(ns[1])))
        elif spot is not None:
            got.append((spot.x, spot.y))
    if len(got) != 2:
        return False
    return all(min(math.dist(p, q) for q in got) < 30.0 for p in ends_mm) and \
        all(min(math.dist(p, q) for q in ends_mm) < 30.0 for p in got)


Reader = Callable[[int, Sequence[dict[str, Any]], Any], dict[str, Any]]


def _read_count(reading: dict[str, Any], colour: str, ends_mm: Sequence[Point]) -> tuple[int, float] | None:
    """The reader's count and confidence for the link of this colour whose path ends
    lie at these two stations (within 60 mm of their centres, either way round)."""
    best: tuple[float, int, float] | None = None
    for e in reading.get("links", []) or []:
        path = e.get("path_mm") or []
        if e.get("colour") != colour or len(path) < 2:
            continue
        a, b = (float(path[0][0]), float(path[0][1])), (float(path[-1][0]), float(path[-1][1]))
        gaps = [min(math.dist(p, q) for q in (a, b)) for p in ends_mm]
        if max(gaps) < 60.0 and (best is None or sum(gaps) < best[0]):
            best = (sum(gaps), int(e.get("clips", 0)), float(e.get("confidence", 1.0)))
    return None if best is None else (best[1], best[2])


def _confirmed_alert(v: Ask, bad: dict[str, Any], session: RailwaysSession, ends_mm: Sequence[Point]) -> bool:
    """Players asked about an illegal link pick it (its colour and stations) at the true count
    if offered, else at a count refused for the link's reason; it is alerted when the
    session then refuses it."""
    reason = bad["reason"]
    assert isinstance(reason, Refusal)
    mine = [c for c in v.candidates if c.get("link", {}).get("colour") == bad["colour"]
            and _same_ends(c, session, ends_mm)]
    pick = next((c for c in mine if int(c["link"].get("clips", -1)) == bad["clips"]), None) or \
        next((c for c in mine if c.get("refusal") == reason.name), None)
    if pick is None or not pick.get("refusal"):
        return False
    before = len(session.moves)
    try:
        session.apply(dict(pick))
    except RulesError:
        return len(session.moves) == before
    session.undo()   # the session took an illegal link: not an alert
    return False


def new_session(game: SimGame, catalogue: Catalogue) -> RailwaysSession:
    """The session the players start for this game: its players, variant and first player."""
    return RailwaysSession({"players": len(game.start.players), "variant": game.variant,
                            "first": game.start.players[0].colour}, catalogue)


def play_game(game: SimGame, catalogue: Catalogue, read: Reader, rng: random.Random,
              illegal_kinds: Sequence[str] = (), max_failures: int | None = None) -> GameScore:
    """Play `game` through a session; read(moves, extra_links, previous_key) -> reading.
    With `max_failures`, the game stops (lost) after that many builds not read right: the
    vision run is slow, and a lost game is lost however it goes on."""
    t0 = time.perf_counter()
    s = GameScore()
    truth = positions(game, catalogue)
    players = len(game.start.players)
    session = new_session(game, catalogue)
    try:
        v = session.interpret(read(0, (), None))
    except Exception as e:  # an unreadable frame (ReadError, no markers): the game is lost
        s.diverged = f"setup: {type(e).__name__}: {str(e)[:160]}"
        s.seconds = time.perf_counter() - t0
        return s
    if not isinstance(v, Proposed) or v.move.get("type") != "setup":
        s.diverged = f"setup: {type(v).__name__} {getattr(v, 'text', '')}"
        s.seconds = time.perf_counter() - t0
        return s
    session.apply(v.move)
    s.setup_ok = True
    builds = [k for k, m in enumerate(game.moves) if isinstance(m.move, BuiltLink)]
    planned: dict[int, str] = {}
    for kind in illegal_kinds:
        if builds:
            planned[rng.choice(builds)] = kind
    correct = True
    for k, m in enumerate(game.moves):
        mv = m.move
        if max_failures is not None and s.wrong + s.failed >= max_failures and \
                not any(j >= k for j in planned):   # an illegal link still to come is measured
            s.diverged = f"stopped after {max_failures} builds not read right (move {k})"
            correct = False
            break
        try:
            if isinstance(mv, Draw):
                n = rules_for(game.variant, catalogue).draw_count(players)
                session.apply({"type": "draw", "colour": mv.colour,
                               "end_of_line": END_OF_LINE in truth[k].deck[:n]})
                continue
            if isinstance(mv, Pass):
                session.apply({"type": "pass", "colour": mv.colour})
                continue
            assert isinstance(mv, BuiltLink)
            if k in planned:
                bad = illegal_link(planned[k], game, k, truth[k], catalogue, rng)
                if bad is not None:
                    s.illegal += 1
                    v = session.interpret(read(k, (bad,), k))
                    here = scene_after(game, k).stations
                    bad_mm = [(here[e][0].cx + ORIGIN[0], here[e][0].cy + ORIGIN[1]) for e in (bad["from"], bad["to"])]
                    if isinstance(v, Ask) and _confirmed_alert(v, bad, session, bad_mm):
                        s.alerted += 1
                        s.alerted_asked += 1
                        s.right_reason += 1   # the candidate picked carries the reason
                    elif isinstance(v, Illegal):
                        s.alerted += 1
                        reason = bad["reason"]
                        assert isinstance(reason, Refusal)
                        rules = session.rules
                        assert session.pos is not None
                        from firmware.games.railways import link_from_json
                        got = rules.refusals(session.pos, link_from_json(dict(v.move["link"])))
                        s.right_reason += int(any(r is reason for r, _ in got))
                    else:
                        s.failures.append(f"move {k}: illegal {bad['kind']} -> {type(v).__name__} "
                                          f"{getattr(v, 'text', '')}")
                    back = session.interpret(read(k, (), "back"))
                    if not isinstance(back, NoChange):
                        s.false_changes += 1
            s.builds += 1
            after = scene_after(game, k + 1).stations
            ends_mm = [(after[e][0].cx + ORIGIN[0], after[e][0].cy + ORIGIN[1])
                       for e in (mv.from_station, mv.to_station)]
            reading = read(k + 1, (), k)
            count = _read_count(reading, mv.colour, ends_mm)
            if count is not None:
                s.counts.append((mv.clips, count[0], count[1]))
            v = session.interpret(reading)
            chosen: dict[str, Any] | None = None
            if isinstance(v, Illegal):
                s.false_alerts += 1
                # from a miscount: the true link but for its count
                link = dict(v.move.get("link", {}), clips=mv.clips)
                s.false_alerts_count += int(_same_build({"link": link, "new_station_mm": v.move.get("new_station_mm")},
                                                        mv, session, ends_mm))
            if isinstance(v, Proposed):
                s.proposed += 1
                if _same_build(v.move, mv, session, ends_mm):
                    s.exact += 1
                    chosen = v.move
                else:
                    s.wrong += 1
                    chosen = v.move
                    correct = False
                    s.failures.append(f"move {k}: proposed {v.text}, truth {mv.colour} {mv.clips} "
                                      f"{mv.from_station}-{mv.to_station}")
            elif isinstance(v, Ask) and any(_same_build(c, mv, session, ends_mm) for c in v.candidates):
                s.asked += 1
                # the players pick the true link as it lies: where the true count and ends are
                # offered twice, with other crossings (two readings of one chain, one of them
                # listing a tile it does not touch), the labels show the crossings (`1 obst`,
                # `x1 link`) and they take the one the table shows
                same = [c for c in v.candidates if _same_build(c, mv, session, ends_mm)]
                chosen = next((c for c in same if _facts(c["link"]) == _facts(link_to_json(mv))), same[0])
            else:
                s.failed += 1
                correct = False
                s.failures.append(f"move {k}: {type(v).__name__} {getattr(v, 'text', getattr(v, 'message', ''))}"
                                  f" (truth {mv.colour} {mv.clips} {mv.from_station}-{mv.to_station})")
                # the players fix it by hand (the link entered as it lies)
                chosen = _truth_move(mv, m.path, m.new_station, session, after)
            chosen = dict(chosen)
            chosen["cards"] = mv.cards_discarded
            got_facts = _facts(chosen["link"])
            if got_facts != _facts(link_to_json(mv)):
                s.facts_wrong += 1
                s.failures.append(f"move {k}: crossings {got_facts} taken, truth {_facts(link_to_json(mv))}")
            session.apply(chosen)
        except Exception as e:  # the session lost step with the game: record and stop
            s.diverged = f"move {k}: {type(e).__name__}: {str(e)[:160]}"
            correct = False
            break
    if not s.diverged:
        session.apply(session.finish({}))
        result = session.final_result()
        s.scores_equal = correct and result is not None and result.totals == game.final.totals
        if result is not None and result.totals != game.final.totals:
            s.failures.append(f"final {result.totals} != truth {game.final.totals}")
    s.seconds = time.perf_counter() - t0
    return s


def _facts(link: dict[str, Any]) -> tuple[int, int, int]:
    """What a build's crossings score: links touched, obstacle parts, River parts."""
    return (len(link.get("touches_links") or ()), int(link.get("obstacles", 0)), int(link.get("river_parts", 0)))


def _truth_move(b: BuiltLink, path: Sequence[Point], new_station: Rect | None, session: RailwaysSession,
                stations: dict[str, tuple[Rect, str]]) -> dict[str, Any]:
    """The true build in the session's words: its stations are the session's by where they
    lie (the ids differ). A station the set-up missed is first entered by the players
    (a 'station' move, applied here)."""
    assert session.pos is not None
    ids: list[str] = []
    for sid in (b.from_station, b.to_station):
        if sid == b.to_station and b.new_card:
            ids.append(f"N{len(session.pos.stations) + 1}")
            continue
        r, card = stations[sid]
        c = _mm((r.cx, r.cy))
        near = [k for k, spot in session.spots.items() if spot.dist((c[0], c[1])) <= 0.6 * spot.size]
        if not near:
            session.apply({"type": "station", "card": card, "centre_mm": c, "size_mm": r.w})
            near = [k for k, spot in session.spots.items() if spot.dist((c[0], c[1])) <= 0.6 * spot.size]
        ids.append(near[0])
    fixed = replace(b, from_station=ids[0], to_station=ids[1])
    move: dict[str, Any] = {"type": "build", "link": link_to_json(fixed), "path_mm": [_mm(p) for p in path]}
    if b.new_card is not None and new_station is not None:
        c = _mm((new_station.cx, new_station.cy))
        move["new_station_mm"] = [c[0], c[1], new_station.w]
    return move


# ---- readers -------------------------------------------------------------------------------------

# Count errors for the miscounted true readings: read - true, drawn per link. Shaped like
# the reader's errors on new links (docs/benchmarks.md section 7: mostly short, by up to 3).
MISCOUNTS = (-3, -2, -2, -1, -1, -1, 0, 0, 0, +1, +1, +2)
UNSURE = 0.3   # the confidence given to a miscounted true reading (below `confident`)


def oracle_reader(game: SimGame, catalogue: Catalogue, miscount: Sequence[int] = ()) -> Reader:
    """The true readings; with `miscount`, every link's count is off by one of its values
    (drawn once per link, seeded) and flagged unsure, as the reader would leave it."""
    def read(moves: int, extra: Sequence[dict[str, Any]], _prev: Any) -> dict[str, Any]:
        out = true_reading(game, moves, catalogue, extra)
        if miscount:
            for i, e in enumerate(out["links"]):
                d = random.Random(f"{i}:{e['colour']}:{e['clips']}:{e['stations']}").choice(miscount)
                e["clips"], e["confidence"] = max(1, e["clips"] + d), UNSURE
        return out
    return read


def vision_reader(table: GameTable, stats: dict[str, float]) -> Reader:
    """Renders the table and reads it with the railways reader (previous = the last frame).
    The reader is given the table's true lens, as a device calibrated once has it (the
    issue 6 bench does the same): without it a wide lens puts cards 15-30 mm off."""
    from calibration.geometry import locate_table
    from firmware.bench.railways import _profile_for
    from vision.api import AnalyzeOptions, get_reader
    from vision.synth.railways_game import link_piece, scene_after_move
    from vision.synth.scene import render_scene

    reader = get_reader("railways")
    frames: dict[Any, Any] = {}
    last: list[Any] = [None]
    profiles: list[Any] = []

    def read(moves: int, extra: Sequence[dict[str, Any]], _prev: Any) -> dict[str, Any]:
        pieces = [link_piece(table, f"illegal:{moves}", e["colour"], e["clips"], e["path"]) for e in extra]
        key = (moves, len(pieces))
        if key not in frames:
            t = time.perf_counter()
            if len(frames) > 4:
                frames.clear()
            rendered = render_scene(scene_after_move(table, moves, pieces))
            frames[key] = rendered.image
            if not profiles:   # one camera for the whole game
                profiles.append(_profile_for(rendered))
            stats["render"] = stats.get("render", 0.0) + time.perf_counter() - t
        image = frames[key]
        profile = profiles[0]
        t = time.perf_counter()
        fit = locate_table(image, profile)
        out = reader.analyze(image, fit, AnalyzeOptions(profile, previous=last[0]))
        stats["read"] = stats.get("read", 0.0) + time.perf_counter() - t
        stats["frames"] = stats.get("frames", 0.0) + 1
        last[0] = image
        return out
    return read


# ---- the suite ----------------------------------------------------------------------------------

KINDS = ("not-owned", "too-short", "crosses")


def games_for(scenes: int, seed: int, catalogue: Catalogue) -> list[tuple[int, SimGame]]:
    out = []
    for i in range(scenes):
        rng = random.Random(seed * 100_003 + i)
        players = rng.randint(2, 5)
        variant = "gigantopolis" if rng.random() < 0.25 else "metropolis"
        out.append((seed * 100_003 + i, simulate_game(rng, players, variant, catalogue)))
    return out


def measure(scenes: int, seed: int, resolution: tuple[int, int] | None,
            oracle: bool, miscount: Sequence[int] = ()) -> tuple[list[GameScore], dict[str, float]]:
    catalogue = bench_catalogue()
    stats: dict[str, float] = {}
    out = []
    for i, (gseed, game) in enumerate(games_for(scenes, seed, catalogue)):
        rng = random.Random(gseed + 1)
        if oracle:
            read = oracle_reader(game, catalogue, miscount)
        else:
            # the truth is the table as drawn: a chain laid with slack touches what the
            # simulator's ideal path missed on 12 of the 479 builds of seed 0's 20 games
            from vision.synth.railways_game import drawn_game, new_table
            table = new_table(game, gseed, resolution or (2304, 1296), catalogue)
            game = drawn_game(table)
            table = replace(table, game=game)        # the same chains, laid once
            read = vision_reader(table, stats)
        kinds = [KINDS[i % len(KINDS)]] if i % 2 == 0 else []
        score = play_game(game, catalogue, read, rng, kinds, None if oracle else 3)
        out.append(score)
        if not oracle:   # the vision run is long: say how it goes
            print(f"railways-games: game {i + 1}/{scenes}: {len(game.start.players)}p {game.variant}, "
                  f"builds {score.exact}/{score.builds} exact, {score.asked} asked, "
                  f"illegal {score.alerted}/{score.illegal}, false alerts {score.false_alerts}, "
                  f"{'right' if score.scores_equal else 'WRONG'} {score.diverged} "
                  f"({score.seconds:.0f} s)", file=sys.stderr, flush=True)
    return out, stats


def _section(title: str, scores: list[GameScore], note: str) -> str:
    n = len(scores)
    right = sum(s.scores_equal for s in scores)
    builds = sum(s.builds for s in scores)
    exact = sum(s.exact for s in scores)
    asked = sum(s.asked for s in scores)
    illegal = sum(s.illegal for s in scores)
    alerted = sum(s.alerted for s in scores)
    rows = [
        ["games whose final scores all equal the truth (no correction)", pct(right, n), ">= 99%",
         verdict(n > 0 and right / n >= 0.99)],
        ["set-ups read", pct(sum(s.setup_ok for s in scores), n), "", ""],
        ["links read (proposed or asked with the true one)", pct(exact + asked, builds), "", ""],
        ["builds proposed with the true count and ends (exact)", pct(exact, builds), "", ""],
        ["builds asked (players pick the true one)", pct(asked, builds), "", ""],
        ["builds proposed wrong", pct(sum(s.wrong for s in scores), builds), "", ""],
        ["builds not offered (corrected by hand)", pct(sum(s.failed for s in scores), builds), "", ""],
        ["builds taken with other crossings than the truth (links touched, obstacles, River)",
         pct(sum(s.facts_wrong for s in scores), builds), "", ""],
        ["illegal links alerted", pct(alerted, illegal), "every one",
         verdict(alerted == illegal) if illegal else "not measured"],
        ["... of which after the players confirmed the count asked",
         pct(sum(s.alerted_asked for s in scores), alerted), "", ""],
        ["legal builds alerted as illegal (false alerts), all reasons",
         str(sum(s.false_alerts for s in scores)), "0", ""],
        ["... of which the true link refused for a miscount",
         str(sum(s.false_alerts_count for s in scores)), "0",
         verdict(sum(s.false_alerts_count for s in scores) == 0)],
        ["... with the intended reason first or among the refusals", pct(sum(s.right_reason for s in scores), illegal),
         "", ""],
        ["frames after a take-back not read as unchanged", str(sum(s.false_changes for s in scores)), "0", ""],
        ["games stopped (set-up unread, lost step, or 3 builds misread)",
         str(sum(bool(s.diverged) for s in scores)), "0", ""],
    ]
    lines = [f"### {title}", "", note, "", md_table(["measure", "value", "target", ""], rows)]
    counts = [c for s in scores for c in s.counts]
    if counts and any(t != r for t, r, _ in counts):
        lines += ["", _count_errors(counts)]
    fails = [f"- game {i}: {f}" for i, s in enumerate(scores) for f in ([s.diverged] if s.diverged else []) + s.failures]
    if fails:
        lines += ["", "First problems:", ""] + fails[:12]
    return "\n".join(lines)


def _count_errors(counts: Sequence[tuple[int, int, float]]) -> str:
    """The reader's count of each new link found, against the truth (a reader figure the
    session's count range must cover): read - true, split by the reader's `confident`."""
    from firmware.games.railways import LOW_CONFIDENCE, plausible_counts
    rows = []
    for name, sure in (("confident", True), ("unsure", False)):
        part = [(t, r) for t, r, c in counts if (c >= LOW_CONFIDENCE) == sure]
        if not part:
            continue
        hist: dict[int, int] = {}
        for t, r in part:
            hist[r - t] = hist.get(r - t, 0) + 1
        text = ", ".join(f"{d:+d}: {hist[d]}" for d in sorted(hist))
        covered = sum(t in plausible_counts(r, 0.0 if not sure else 1.0) for t, r in part)
        rows.append([name, str(len(part)), pct(sum(t == r for t, r in part), len(part)),
                     pct(covered, len(part)), text])
    return md_table(["new links found", "n", "count exact", "true count in the read count's range (no gap floor)",
                     "read - true: links"], rows)


def run(scenes: int | None, seed: int, resolution: tuple[int, int] | None) -> str:
    n = scenes or 100
    res = resolution or (2304, 1296)
    out = [f"## Paperclip Railways: {n} simulated games frame by frame (seed {seed})", ""]
    from vision.api import ReadError, get_reader
    try:
        get_reader("railways")
        have_reader = True
    except ReadError as e:
        have_reader = False
        out += [f"The railways reader is not available ({e}); no vision figure.", ""]
    if have_reader:
        t = time.perf_counter()
        scores, stats = measure(n, seed, res, oracle=False)
        frames = int(stats.get("frames", 0))
        note = (f"Rendered at {res[0]}x{res[1]}, read by vision.railways.reader with the previous "
                f"frame; {frames} frames, render {stats.get('render', 0):.0f} s, read "
                f"{stats.get('read', 0):.0f} s ({stats.get('read', 0) / max(1, frames):.2f} s/frame), "
                f"total {time.perf_counter() - t:.0f} s.")
        out.append(_section("Camera + reader + session", scores, note))
        out.append("")
    out.append(truth_only(n, seed))
    return "\n".join(out) + "\n"


def truth_only(scenes: int, seed: int) -> str:
    """The true-readings games alone (no rendering, no reader): the session's own figures,
    on exact readings and on readings whose counts are off and unsure."""
    scores, _ = measure(scenes, seed, None, oracle=True)
    out = [_section("Session and rules on the true readings (not a vision figure)", scores,
                    "The same games with the reader replaced by the drawn geometry in the "
                    "reader's JSON: measures the game adapter and rules alone.")]
    scores, _ = measure(scenes, seed, None, oracle=True, miscount=MISCOUNTS)
    out.append(_section("Session and rules on miscounted true readings (not a vision figure)", scores,
                        f"The true readings with every link's count off by one of {list(MISCOUNTS)} "
                        f"(drawn per link) and its confidence {UNSURE}: every build is a question "
                        "whose choices must hold the true count, and no miscount may raise an alert. "
                        "'Games right' counts games where the players' answers were enough."))
    return "\n\n".join(out)


if __name__ == "__main__":  # pragma: no cover
    # python -m firmware.bench.railways_games [--truth] SCENES [SEED]
    args = [a for a in sys.argv[1:] if a != "--truth"]
    n_games, first_seed = int(args[0]) if args else 5, int(args[1]) if len(args) > 1 else 0
    print(truth_only(n_games, first_seed) if "--truth" in sys.argv else run(n_games, first_seed, None))
