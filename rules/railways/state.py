"""The typed values of a Paperclip Railways game: positions, moves and settings.

Positions are immutable; every move returns a new one, so a referee can undo by
keeping the old value and tests can build any position from its notation.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace

COLOURS = ("red", "white", "green", "black", "yellow")
END_OF_LINE = "end-of-line"
UNKNOWN_CARD = "?"


class Phase(enum.Enum):
    """What happens next: ordinary turns, the round after End of Line, the lone player's
    last draw then last build, or the end."""

    PLAYING = "playing"
    LAST_ROUND = "last-round"
    LAST_DRAW = "last-draw"
    LAST_BUILD = "last-build"
    OVER = "over"


@dataclass(frozen=True)
class PlayerState:
    colour: str
    clips: int
    cubes: int
    hand: tuple[str, ...]
    score: int = 0


@dataclass(frozen=True)
class StationInPlay:
    """A card on the table. `start` names the colour whose Starting City it is."""

    sid: str
    card: str
    cubes: tuple[str, ...] = ()
    start: str | None = None


@dataclass(frozen=True)
class Link:
    lid: str
    colour: str
    clips: int
    a: str
    b: str


@dataclass(frozen=True)
class Position:
    """Everything the referee tracks. Players are in turn order, the start player first."""

    variant: str
    players: tuple[PlayerState, ...]
    stations: tuple[StationInPlay, ...]
    links: tuple[Link, ...] = ()
    penalty: int = 2
    deck: tuple[str, ...] = ()
    turn: int = 0
    phase: Phase = Phase.PLAYING
    last_player: str | None = None

    def player(self, colour: str) -> PlayerState:
        for p in self.players:
            if p.colour == colour:
                return p
        raise KeyError(colour)

    def player_index(self, colour: str) -> int:
        return [p.colour for p in self.players].index(colour)

    def station(self, sid: str) -> StationInPlay | None:
        for s in self.stations:
            if s.sid == sid:
                return s
        return None

    def link(self, lid: str) -> Link | None:
        for k in self.links:
            if k.lid == lid:
                return k
        return None

    @property
    def to_move(self) -> str:
        """The colour whose turn it is (the lone player in the last actions)."""
        if self.phase in (Phase.LAST_DRAW, Phase.LAST_BUILD) and self.last_player:
            return self.last_player
        return self.players[self.turn % len(self.players)].colour

    def with_player(self, p: PlayerState) -> Position:
        return replace(self, players=tuple(p if q.colour == p.colour else q for q in self.players))

    def with_station(self, s: StationInPlay) -> Position:
        if self.station(s.sid) is None:
            return replace(self, stations=self.stations + (s,))
        return replace(self, stations=tuple(s if t.sid == s.sid else t for t in self.stations))


@dataclass(frozen=True)
class BuiltLink:
    """A link as laid on the table, with the geometric facts the camera measured.

    `to_station` is a station in play, or a new id when `new_card` is the card placed from
    hand. `touches_links` lists link ids touched or crossed (any owner; own ones are free).
    `obstacles` and `river_parts` count obstacle tiles and River parts touched or crossed;
    the `new_station_*` fields describe where a new station was put down.
    `from_section` / `to_section` (1-4) name the Metropolis section an end lies in, when
    the camera can tell; that section's points and minimum lengths then apply.
    """

    colour: str
    clips: int
    from_station: str
    to_station: str
    cards_discarded: int = 1
    new_card: str | None = None
    discarded: tuple[str, ...] = ()
    touches_links: tuple[str, ...] = ()
    obstacles: int = 0
    river_parts: int = 0
    crosses_stations: tuple[str, ...] = ()
    outside_area: bool = False
    middle_clips_touch_stations: bool = False
    touches_itself: bool = False
    new_station_obstacles: int = 0
    new_station_river_parts: int = 0
    new_station_touches_station: bool = False
    new_station_outside: bool = False
    from_section: int | None = None
    to_section: int | None = None


@dataclass(frozen=True)
class Draw:
    """Draw cards; over the hand limit, `discard` names the cards to let go (default: the newest)."""

    colour: str
    discard: tuple[str, ...] = ()


@dataclass(frozen=True)
class Pass:
    """A player who can neither draw nor build (empty deck, nothing affordable) passes."""

    colour: str


Move = BuiltLink | Draw | Pass


@dataclass(frozen=True)
class Settings:
    """Readings of unclear rules; the defaults are the team's chosen reading.

    penalty_rise: how much the obstacle penalty track rises after each build that pays it
      (the rulebook never says when it moves; 0 keeps it at its start value of 2).
    penalty_max: the top of the penalty track.
    river_counts_once: count the River once per link however often it is touched, instead
      of once per part (separate touch or crossing) reported by the camera.
    metropolis_min: "smaller" or "larger" of a departure's Town and Suburban minimums when
      linking to Metropolis (which counts as both).
    duplicate_any_owner: forbid a second single link between two stations whoever built
      the first, instead of only when the same player built it.
    out_when_either_empty: a player counts as out of stock when clips OR cubes run out,
      instead of only when both have.
    cubes_per_player: cubes in one colour (rulebook: "25 wooden cubes in 5 player colours").
    station_penalty_once: a new station on obstacles or the River pays the penalty once,
      instead of once per obstacle tile and River part it touches.
    """

    penalty_rise: int = 0
    penalty_max: int = 6
    river_counts_once: bool = False
    station_penalty_once: bool = False
    metropolis_min: str = "smaller"
    duplicate_any_owner: bool = False
    out_when_either_empty: bool = False
    cubes_per_player: int = 25
    clips_per_player: int = 60
    hand_limit: int = 6
    start_hand: int = 4
    clips_per_card: int = 3
    longest_link_bonus: int = 5
    start_penalty: int = 2
    extra: dict[str, str] = field(default_factory=dict)
