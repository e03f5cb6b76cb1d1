"""The Paperclip Railways referee: setup, draws, builds with scoring, and the game end.

`Railways` is the Metropolis (basic) game; variants override its named hooks
(`centre_stations`, `places_cube`, `returned_stock`, `draw_count`) instead of
threading flags through the code.
"""

from __future__ import annotations

import enum
import random
from dataclasses import dataclass, replace

from rules.errors import CouldNotRead, IllegalMove
from rules.railways.cards import AbilityKind, Catalogue, Role, StationCard, StationType
from rules.railways.state import (
    COLOURS, END_OF_LINE, UNKNOWN_CARD, BuiltLink, Draw, Link, Move, Pass, Phase, PlayerState,
    Position, Settings, StationInPlay,
)


class Refusal(enum.Enum):
    """Why a move is illegal; `IllegalMove.reason` carries one of these."""

    GAME_OVER = "the game is over"
    NOT_YOUR_TURN = "it is not this player's turn"
    WRONG_ACTION = "this player must make the other action now"
    DECK_EMPTY = "the draw deck is empty"
    CANNOT_PASS = "a player may pass only when they cannot draw"
    DEPARTURE_NOT_IN_PLAY = "the departure station is not in play"
    DESTINATION_NOT_IN_PLAY = "the destination station is not in play and no new card was placed"
    NEW_STATION_ID_TAKEN = "the new station's id is already in play"
    DEPARTURE_NOT_OWNED = "the departure is neither the player's Starting City nor holds their cube"
    DEPARTURE_FULL = "the departure station has no capacity left"
    DESTINATION_FULL = "the destination station has no capacity left"
    SAME_STATION = "the link starts and ends at the same station"
    TYPE_NOT_ALLOWED = "the departure station lists no length for the destination's type"
    TOO_SHORT = "the link is shorter than the departure's minimum for that type"
    NO_CLIPS = "a link needs at least one clip"
    NO_CARD_DISCARDED = "at least one card must be discarded to build"
    NOT_ENOUGH_CARDS_PAID = "more clips than the discarded cards and free clips pay for"
    CARDS_NOT_IN_HAND = "the player does not hold the cards played"
    NOT_ENOUGH_CLIPS = "the player has too few clips in stock"
    NOT_ENOUGH_CUBES = "the player has too few cubes in stock"
    DUPLICATE_LINK = "a single link already joins these two stations"
    MIDDLE_CLIPS_TOUCH = "a clip other than the end clips touches a linked station"
    TOUCHES_ITSELF = "the link touches or crosses itself"
    CROSSES_STATION = "the link crosses a station in play"
    OUTSIDE_AREA = "part of the link is outside the playing area"
    NEW_STATION_TOUCHES_STATION = "the new station touches or overlaps another station"
    NEW_STATION_OUTSIDE = "the new station is wholly outside the playing area"


@dataclass(frozen=True)
class ScoreTerm:
    """One line of a build's scoring: who gains `points` and why (for screens and tests)."""

    colour: str
    points: int
    why: str
    kind: str = ""


@dataclass(frozen=True)
class BuildReport:
    link: Link
    terms: tuple[ScoreTerm, ...]
    cubes_placed: tuple[str, ...]
    new_penalty: int

    def points_for(self, colour: str) -> int:
        return sum(t.points for t in self.terms if t.colour == colour)


@dataclass(frozen=True)
class FinalResult:
    """End-game bonuses on top of the running scores, the totals and the winners."""

    terms: tuple[ScoreTerm, ...]
    totals: dict[str, int]
    winners: tuple[str, ...]
    longest: int


PENALTY_KINDS = frozenset({"obstacle", "river", "placement"})


def owns(station: StationInPlay, colour: str) -> bool:
    return station.start == colour or colour in station.cubes


def _summary(pos: Position) -> str:
    return (f"[turn {pos.turn}, {pos.to_move} to move, "
            + ", ".join(f"{p.colour} {p.score}pt {p.clips}c {p.cubes}k {len(p.hand)}h" for p in pos.players)
            + "]")


class Railways:
    """The Metropolis game for 2 to 5 players; one instance per catalogue and settings."""

    name = "metropolis"

    def __init__(self, catalogue: Catalogue, settings: Settings | None = None) -> None:
        self.catalogue = catalogue
        self.settings = settings or Settings()

    # ---- hooks (variants override these) -------------------------------------------
    def returned_stock(self, players: int) -> tuple[int, int]:
        """Clips and cubes each player returns to the box for this player count."""
        return {4: (6, 2), 5: (12, 3)}.get(players, (0, 0))

    def draw_count(self, players: int) -> int:
        return 3 if players <= 3 else 2

    def centre_stations(self, deck: list[str], rng: random.Random) -> list[StationInPlay]:
        """What stands on the central board: Metropolis, one station."""
        return [StationInPlay("M", self.catalogue.with_role(Role.METROPOLIS).id)]

    def places_cube(self, station: StationInPlay, colour: str) -> bool:
        """Metropolis holds one cube per player; other stations take one per link."""
        card = self.catalogue[station.card]
        return not (card.role is Role.METROPOLIS and colour in station.cubes)

    # ---- queries -----------------------------------------------------------------------
    def card(self, station: StationInPlay) -> StationCard:
        return self.catalogue[station.card]

    def section_card(self, station: StationInPlay, section: int | None) -> StationCard:
        """The card whose points and minimum lengths apply at this end of a link: a named
        Metropolis section, else the station's own card."""
        card = self.card(station)
        if section is None or not card.sections:
            return card
        if not 1 <= section <= len(card.sections):
            raise CouldNotRead(f"station {station.sid} has sections 1-{len(card.sections)}, not {section}; "
                               "check the reading")
        return self.catalogue[card.sections[section - 1]]

    def is_full(self, station: StationInPlay) -> bool:
        return len(station.cubes) >= self.card(station).capacity

    def free_clips(self, pos: Position, colour: str) -> int:
        """Free clips per link from the abilities of every station the player owns."""
        return sum(self.card(s).free_clips() for s in pos.stations if owns(s, colour))

    def min_length(self, departure: StationCard, destination: StationCard) -> int | None:
        """The minimum clips from `departure` to `destination`, None when not allowed."""
        listed = [departure.min_length[t] for t in destination.types if t in departure.min_length]
        if not listed:
            return None
        return max(listed) if self.settings.metropolis_min == "larger" else min(listed)

    def out_of_stock(self, p: PlayerState) -> bool:
        if self.settings.out_when_either_empty:
            return p.clips == 0 or p.cubes == 0
        return p.clips == 0 and p.cubes == 0

    # ---- setup -------------------------------------------------------------------------
    def setup(self, rng: random.Random, colours: tuple[str, ...]) -> Position:
        """Shuffle, set out Boundary Stations and the centre, bury End of Line in the last 11, deal."""
        n = len(colours)
        if not 2 <= n <= 5:
            raise CouldNotRead(f"Paperclip Railways needs 2 to 5 players, got {n}; name 2 to 5 colours")
        for c in colours:
            if c not in COLOURS:
                raise CouldNotRead(f"unknown player colour '{c}'; use {', '.join(COLOURS)}")
        if len(set(colours)) != n:
            raise CouldNotRead(f"each player needs a different colour, got {', '.join(colours)}")
        deck = self.catalogue.deck_cards()
        rng.shuffle(deck)
        boundary = [StationInPlay(f"B{i + 1}", deck.pop()) for i in range(n)]
        centre = self.centre_stations(deck, rng)
        start = self.catalogue.with_role(Role.STARTING_CITY).id
        starts = [StationInPlay(f"S-{c}", start, start=c) for c in colours]
        bottom = deck[-10:] + [END_OF_LINE]
        del deck[-10:]
        rng.shuffle(bottom)
        deck += bottom
        hands: list[list[str]] = [[] for _ in colours]
        for _ in range(self.settings.start_hand):
            for h in hands:
                h.append(deck.pop(0))
        clips_back, cubes_back = self.returned_stock(n)
        players = tuple(PlayerState(c, self.settings.clips_per_player - clips_back,
                                    self.settings.cubes_per_player - cubes_back - 1, tuple(h))
                        for c, h in zip(colours, hands))  # one cube marks the score track
        return Position(self.name, players, tuple(starts + centre + boundary),
                        penalty=self.settings.start_penalty, deck=tuple(deck))

    # ---- moves -------------------------------------------------------------------------
    def refusals(self, pos: Position, b: BuiltLink) -> list[tuple[Refusal, str]]:
        """Every rule the build breaks, in rulebook order, each with a detailed message."""
        out: list[tuple[Refusal, str]] = []

        def no(r: Refusal, detail: str = "") -> None:
            out.append((r, f"{b.colour} cannot build {b.from_station}-{b.to_station}: {r.value}"
                           + (f" ({detail})" if detail else "")))

        player = self._player(pos, b.colour)
        if pos.phase is Phase.OVER:
            no(Refusal.GAME_OVER)
            return out
        if pos.to_move != b.colour:
            no(Refusal.NOT_YOUR_TURN, f"{pos.to_move} to move")
        if pos.phase is Phase.LAST_DRAW:
            no(Refusal.WRONG_ACTION, "the last player draws first, then builds")
        for lid in b.touches_links:
            if pos.link(lid) is None:
                raise CouldNotRead(f"link '{lid}' is not in play; known links: "
                                   f"{', '.join(k.lid for k in pos.links) or 'none'} {_summary(pos)}")
        dep = pos.station(b.from_station)
        dest = pos.station(b.to_station)
        if b.new_card is not None:
            if dest is not None:
                no(Refusal.NEW_STATION_ID_TAKEN, f"{b.to_station} is {dest.card}")
            dest = StationInPlay(b.to_station, self.catalogue[b.new_card].id)
        for station, section in ((dep, b.from_section), (dest, b.to_section)):
            if station is not None:
                self.section_card(station, section)  # a section the board lacks is a misreading
        if dep is None:
            no(Refusal.DEPARTURE_NOT_IN_PLAY, f"in play: {', '.join(s.sid for s in pos.stations)}")
        if dest is None:
            no(Refusal.DESTINATION_NOT_IN_PLAY, f"in play: {', '.join(s.sid for s in pos.stations)}")
        if dep is not None:
            if not owns(dep, b.colour):
                no(Refusal.DEPARTURE_NOT_OWNED, f"{dep.sid} holds {','.join(dep.cubes) or 'no cubes'}")
            if self.is_full(dep):
                no(Refusal.DEPARTURE_FULL, f"{dep.sid} holds {len(dep.cubes)}/{self.card(dep).capacity}")
        if dest is not None and self.is_full(dest):
            no(Refusal.DESTINATION_FULL, f"{dest.sid} holds {len(dest.cubes)}/{self.card(dest).capacity}")
        if b.from_station == b.to_station:
            no(Refusal.SAME_STATION)
        if dep is not None and dest is not None:
            least = self.min_length(self.section_card(dep, b.from_section), self.card(dest))
            if least is None:
                kinds = "/".join(t.value for t in sorted(self.card(dest).types, key=lambda t: t.value))
                no(Refusal.TYPE_NOT_ALLOWED, f"{dep.sid} cannot link to {kinds}")
            elif b.clips < least:
                no(Refusal.TOO_SHORT, f"{b.clips} clips, at least {least}")
        if b.clips < 1:
            no(Refusal.NO_CLIPS)
        if b.cards_discarded < 1:
            no(Refusal.NO_CARD_DISCARDED)
        free = self.free_clips(pos, b.colour)
        paid = self.settings.clips_per_card * b.cards_discarded + free
        if b.clips > paid:
            no(Refusal.NOT_ENOUGH_CARDS_PAID,
               f"{b.clips} clips, {b.cards_discarded} card(s) pay {paid - free} plus {free} free")
        if self._take_cards(player.hand, b) is None:
            no(Refusal.CARDS_NOT_IN_HAND, f"hand {','.join(player.hand) or 'empty'}")
        if b.clips > player.clips:
            no(Refusal.NOT_ENOUGH_CLIPS, f"{b.clips} needed, {player.clips} in stock")
        if dep is not None and dest is not None:
            needed = sum(self.places_cube(s, b.colour) for s in (dep, dest))
            if needed > player.cubes:
                no(Refusal.NOT_ENOUGH_CUBES, f"{needed} needed, {player.cubes} in stock")
        pair = {b.from_station, b.to_station}
        for k in pos.links:
            if {k.a, k.b} == pair and (k.colour == b.colour or self.settings.duplicate_any_owner):
                no(Refusal.DUPLICATE_LINK, f"{k.lid} {k.colour}")
        if b.middle_clips_touch_stations:
            no(Refusal.MIDDLE_CLIPS_TOUCH)
        if b.touches_itself:
            no(Refusal.TOUCHES_ITSELF)
        if b.crosses_stations:
            no(Refusal.CROSSES_STATION, ", ".join(b.crosses_stations))
        if b.outside_area:
            no(Refusal.OUTSIDE_AREA)
        if b.new_card is not None and b.new_station_touches_station:
            no(Refusal.NEW_STATION_TOUCHES_STATION)
        if b.new_card is not None and b.new_station_outside:
            no(Refusal.NEW_STATION_OUTSIDE)
        return out

    def score_build(self, pos: Position, b: BuiltLink) -> tuple[ScoreTerm, ...]:
        """The scoring terms of a legal build (before it is applied)."""
        dep = pos.station(b.from_station)
        dest = pos.station(b.to_station)
        dest_card = self.catalogue[b.new_card] if b.new_card else self.card(dest) if dest else None
        if dep is None or dest_card is None:
            raise CouldNotRead(f"cannot score {b.from_station}-{b.to_station}: station not in play {_summary(pos)}")
        me = b.colour
        if dest is not None and b.new_card is None:
            dest_card = self.section_card(dest, b.to_section)
        terms = [ScoreTerm(me, self.section_card(dep, b.from_section).points, f"station {dep.sid}", "station"),
                 ScoreTerm(me, dest_card.points, f"station {b.to_station}", "station"),
                 ScoreTerm(me, b.clips, f"{b.clips} clips", "clips")]
        for lid in dict.fromkeys(b.touches_links):
            k = pos.link(lid)
            if k is not None and k.colour != me:
                terms.append(ScoreTerm(me, -1, f"touches {k.colour} {lid}", "link"))
                terms.append(ScoreTerm(k.colour, 1, f"{me} touched {lid}", "touched"))
        river = min(b.river_parts, 1) if self.settings.river_counts_once else b.river_parts
        for n, what, kind in ((b.obstacles, "obstacle", "obstacle"), (river, "River part", "river")):
            if n:
                terms.append(ScoreTerm(me, -pos.penalty * n, f"{n} {what}{'s' if n > 1 else ''} x{pos.penalty}", kind))
        if b.new_card is not None:
            river = b.new_station_river_parts
            if self.settings.river_counts_once:
                river = min(river, 1)
            placed = b.new_station_obstacles + river
            if self.settings.station_penalty_once:
                placed = min(placed, 1)
            if placed:
                terms.append(ScoreTerm(me, -pos.penalty * placed, f"station on {placed} obstacle/River x{pos.penalty}", "placement"))
        return tuple(terms)

    def build(self, pos: Position, b: BuiltLink) -> tuple[Position, BuildReport]:
        """Apply a build, or raise IllegalMove with the first broken rule as `reason`."""
        problems = self.refusals(pos, b)
        if problems:
            reason, message = problems[0]
            raise IllegalMove(f"{message} {_summary(pos)}", reason)
        terms = self.score_build(pos, b)
        player = pos.player(b.colour)
        hand = self._take_cards(player.hand, b)
        assert hand is not None
        placed: list[str] = []
        new_pos = pos
        dep = pos.station(b.from_station)
        dest = pos.station(b.to_station) or StationInPlay(b.to_station, self.catalogue[b.new_card or ""].id)
        assert dep is not None
        for s in (dep, dest):
            current = new_pos.station(s.sid) or s
            if self.places_cube(current, b.colour):
                current = replace(current, cubes=current.cubes + (b.colour,))
                placed.append(s.sid)
            new_pos = new_pos.with_station(current)
        link = Link(f"L{len(pos.links) + 1}", b.colour, b.clips, b.from_station, b.to_station)
        players = []
        for p in new_pos.players:
            gain = sum(t.points for t in terms if t.colour == p.colour)
            if p.colour == b.colour:
                p = replace(p, clips=p.clips - b.clips, cubes=p.cubes - len(placed), hand=hand)
            players.append(replace(p, score=p.score + gain))
        paid_penalty = any(t.kind in PENALTY_KINDS for t in terms)
        penalty = pos.penalty
        if paid_penalty:
            penalty = min(self.settings.penalty_max, penalty + self.settings.penalty_rise)
        new_pos = replace(new_pos, players=tuple(players), links=pos.links + (link,), penalty=penalty)
        return self._end_turn(new_pos, drew_end=False), BuildReport(link, terms, tuple(placed), penalty)

    def draw(self, pos: Position, d: Draw) -> Position:
        """Take the top cards; End of Line starts the last round; over the limit, discard."""
        self._check_turn(pos, d.colour, building=False)
        if not pos.deck:
            raise IllegalMove(f"{d.colour} cannot draw: {Refusal.DECK_EMPTY.value} {_summary(pos)}",
                              Refusal.DECK_EMPTY)
        n = self.draw_count(len(pos.players))
        drawn, deck = pos.deck[:n], pos.deck[n:]
        drew_end = END_OF_LINE in drawn
        player = pos.player(d.colour)
        hand = list(player.hand) + [c for c in drawn if c != END_OF_LINE]
        for c in d.discard:
            if c not in hand:
                raise IllegalMove(f"{d.colour} cannot discard '{c}': {Refusal.CARDS_NOT_IN_HAND.value} "
                                  f"{_summary(pos)}", Refusal.CARDS_NOT_IN_HAND)
            hand.remove(c)
        del hand[self.settings.hand_limit:]
        new_pos = replace(pos.with_player(replace(player, hand=tuple(hand))), deck=deck)
        return self._end_turn(new_pos, drew_end)

    def pass_turn(self, pos: Position, p: Pass) -> Position:
        self._check_turn(pos, p.colour, building=None)
        if pos.deck and pos.phase is not Phase.LAST_BUILD:
            raise IllegalMove(f"{p.colour} cannot pass: {Refusal.CANNOT_PASS.value} {_summary(pos)}",
                              Refusal.CANNOT_PASS)
        return self._end_turn(pos, drew_end=False)

    def play(self, pos: Position, move: Move) -> Position:
        if isinstance(move, BuiltLink):
            return self.build(pos, move)[0]
        if isinstance(move, Draw):
            return self.draw(pos, move)
        return self.pass_turn(pos, move)

    # ---- the end -----------------------------------------------------------------------
    def final_result(self, pos: Position) -> FinalResult:
        """End-game bonuses of owned stations, the longest link bonus, totals and winners."""
        terms: list[ScoreTerm] = []
        for p in pos.players:
            mine = [s for s in pos.stations if owns(s, p.colour)]
            for s in mine:
                for a in self.card(s).abilities:
                    if a.kind is AbilityKind.END_POINTS:
                        pts = a.amount
                    elif a.kind is AbilityKind.END_POINTS_PER_CUBE:
                        pts = a.amount * s.cubes.count(p.colour)
                    elif a.kind is AbilityKind.END_POINTS_PER_TYPE:
                        st: StationType | None = a.station_type
                        pts = a.amount * sum(1 for t in mine if st in self.card(t).types)
                    else:
                        continue
                    if pts:
                        terms.append(ScoreTerm(p.colour, pts, f"bonus {s.sid}", "bonus"))
        longest = max((k.clips for k in pos.links), default=0)
        if longest:
            for c in dict.fromkeys(k.colour for k in pos.links if k.clips == longest):
                terms.append(ScoreTerm(c, self.settings.longest_link_bonus, f"longest link {longest}", "longest"))
        totals = {p.colour: p.score + sum(t.points for t in terms if t.colour == p.colour) for p in pos.players}
        best = max(totals.values())
        tied = [p for p in pos.players if totals[p.colour] == best]
        most = max(p.clips for p in tied)
        winners = tuple(p.colour for p in tied if p.clips == most)
        return FinalResult(tuple(terms), totals, winners, longest)

    # ---- internals ---------------------------------------------------------------------
    def _player(self, pos: Position, colour: str) -> PlayerState:
        try:
            return pos.player(colour)
        except KeyError:
            raise CouldNotRead(f"'{colour}' is not playing; players: "
                               f"{', '.join(p.colour for p in pos.players)}") from None

    def _check_turn(self, pos: Position, colour: str, building: bool | None) -> None:
        self._player(pos, colour)
        if pos.phase is Phase.OVER:
            raise IllegalMove(f"{colour} cannot move: {Refusal.GAME_OVER.value} {_summary(pos)}", Refusal.GAME_OVER)
        if pos.to_move != colour:
            raise IllegalMove(f"{colour} cannot move: {Refusal.NOT_YOUR_TURN.value} {_summary(pos)}",
                              Refusal.NOT_YOUR_TURN)
        if building is False and pos.phase is Phase.LAST_BUILD:
            raise IllegalMove(f"{colour} cannot draw: {Refusal.WRONG_ACTION.value} (last action is a build) "
                              f"{_summary(pos)}", Refusal.WRONG_ACTION)

    def _take_cards(self, hand: tuple[str, ...], b: BuiltLink) -> tuple[str, ...] | None:
        """The hand after playing the new station and the discards, None if not held.

        Cards the camera cannot see are '?'; a named card may be taken from a '?'.
        """
        left = list(hand)
        wanted = ([b.new_card] if b.new_card else []) + list(b.discarded)
        for c in wanted:
            if c in left:
                left.remove(c)
            elif UNKNOWN_CARD in left:
                left.remove(UNKNOWN_CARD)
            else:
                return None
        unnamed = b.cards_discarded - len(b.discarded)
        if unnamed < 0 or unnamed > len(left):
            return None
        for _ in range(unnamed):  # unnamed discards: unknown cards first, then the newest
            left.remove(UNKNOWN_CARD) if UNKNOWN_CARD in left else left.pop()
        return tuple(left)

    def _end_turn(self, pos: Position, drew_end: bool) -> Position:
        n = len(pos.players)
        if pos.phase is Phase.LAST_DRAW:
            return replace(pos, phase=Phase.LAST_BUILD)
        if pos.phase is Phase.LAST_BUILD:
            return replace(pos, phase=Phase.OVER)
        phase = Phase.LAST_ROUND if drew_end or pos.phase is Phase.LAST_ROUND else pos.phase
        turn = pos.turn + 1
        if phase is Phase.LAST_ROUND and turn % n == 0:
            return replace(pos, turn=turn, phase=Phase.OVER)
        left = [p for p in pos.players if not self.out_of_stock(p)]
        if not left:
            return replace(pos, turn=turn, phase=Phase.OVER)
        if len(left) == 1:
            return replace(pos, turn=turn, phase=Phase.LAST_DRAW, last_player=left[0].colour)
        return replace(pos, turn=turn, phase=phase)


class Gigantopolis(Railways):
    """The advanced game: four random station cards on the blank central board, each a
    normal station."""

    name = "gigantopolis"

    def centre_stations(self, deck: list[str], rng: random.Random) -> list[StationInPlay]:
        return [StationInPlay(f"G{i + 1}", deck.pop()) for i in range(4)]


VARIANTS: dict[str, type[Railways]] = {"metropolis": Railways, "gigantopolis": Gigantopolis}


def rules_for(variant: str, catalogue: Catalogue, settings: Settings | None = None) -> Railways:
    try:
        return VARIANTS[variant](catalogue, settings)
    except KeyError:
        raise CouldNotRead(f"unknown railways variant '{variant}'; use {' or '.join(VARIANTS)}") from None
