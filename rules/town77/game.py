"""Game flow: a base Game with named hooks, and the multiplayer variants.

Variants differ only by overriding hooks (check_turn, check_tile, take_tile,
after_placement, on_illegal_placement, on_turn_over, is_over, tiles_left), never by
flags threaded through the code:

- MultiplayerGame: the full 2-5 player game with bag, hands, exchange, draw, discard,
  driven by an injected random.Random (simulations, tests, a referee that is told hands).
- RefereeGame: what the device can actually see: the city and whose turn it is. Hands are
  hidden, so tiles left in hand are entered with the buttons at the end.
- ChallengeGame (challenge.py): the solo Challenge.

Players are numbered from 0; screens add 1. Every error message carries the state's
notation so a log line rebuilds the position.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, NoReturn

from rules.errors import CouldNotRead, IllegalMove
from rules.town77.city import FACE_DOWN, Cell, City
from rules.town77.placement import Reason, can_place_any, why_illegal
from rules.town77.tiles import ALL_TILES, AXES, Tile, parse_tiles, tiles_text

HAND_SIZE = 4
MIN_PLAYERS, MAX_PLAYERS = 2, 5
EXCHANGE_SIZE = 3


class GameRule(Enum):
    """Why an action (not a placement on the board) is refused: the IllegalMove reason."""

    PLAYER_COUNT = "Town 77 is for 2 to 5 players (or the solo Challenge)"
    GAME_OVER = "the game is over"
    NOT_YOUR_TURN = "it is not this player's turn"
    PLAYER_LEFT = "this player has left the game"
    WRONG_STEP = "that is not possible at this step of the turn"
    NOT_IN_HAND = "the tile is not in this player's hand"
    NOT_A_PILE_TOP = "the tile is not on top of a pile"
    NOT_THREE_ALIKE = "an exchange needs 3 tiles of one colour or one shape"
    CAN_STILL_PLACE = "a player may only leave when no tile in hand can be placed"
    NOTHING_TO_TURN = "there is no face-up tile in that cell"
    TILES_LEFT_MISSING = "enter the tiles left in hand for every player first"
    NOTHING_TO_UNDO = "there is nothing to undo"


LINE_REASONS = frozenset({Reason.SAME_SHAPE_IN_ROW, Reason.SAME_SHAPE_IN_COLUMN,
                          Reason.SAME_COLOUR_IN_ROW, Reason.SAME_COLOUR_IN_COLUMN})
"""The refusals a like tile in the same row or column gives."""


class Outcome(Enum):
    APPLIED = "applied"
    REFUSED = "refused"   # nothing changed; the player places it correctly or changes tile
    LOST = "lost"         # solo Challenge end B


@dataclass(frozen=True)
class PlaceResult:
    """What became of a placement; `reason` is set whenever it was not applied."""

    outcome: Outcome
    tile: Tile
    cell: Cell
    reason: Reason | None = None
    message: str = ""

    @property
    def applied(self) -> bool:
        return self.outcome is Outcome.APPLIED


@dataclass(frozen=True)
class Standing:
    """One line of the final ranking. left_at: 1 = first to leave; None = never left."""

    player: int
    rank: int
    tiles_left: int
    left_at: int | None


def rank_players(tiles_left: Sequence[int], leave_order: Sequence[int]) -> tuple[Standing, ...]:
    """Fewer tiles first; on equal tiles the later leaver is higher.

    Players who never left (the game was stopped) count as leaving together after
    everyone else; players equal on both keys share a rank (1, 1, 3).
    """
    n = len(tiles_left)
    late = len(leave_order) + 1
    left_at = {p: i + 1 for i, p in enumerate(leave_order)}
    key = {p: (tiles_left[p], -left_at.get(p, late)) for p in range(n)}
    order = sorted(range(n), key=lambda p: (key[p], p))
    out = []
    for p in order:
        rank = 1 + sum(1 for q in range(n) if key[q] < key[p])
        out.append(Standing(p, rank, tiles_left[p], left_at.get(p)))
    return tuple(out)


class Game:
    """The city and the placement/turn-over/undo flow every variant shares."""

    def __init__(self, city: City) -> None:
        self.city = city
        self.turned_over: tuple[Tile, ...] = ()
        self._history: list[tuple[dict[str, Any], Any]] = []
        self._rng: random.Random | None = None

    # -- the moves the device calls -----------------------------------------------
    def place(self, player: int, tile: Tile, cell: Cell) -> PlaceResult:
        """Apply a legal placement; an illegal one goes to on_illegal_placement."""
        self.check_turn(player)
        self.check_tile(player, tile)
        reason = why_illegal(self.city, tile, cell)
        if reason is not None:
            return self.on_illegal_placement(player, tile, cell, reason)
        self._save()
        self.city = self.city.with_tile(cell, tile)
        self.take_tile(player, tile)
        self.after_placement(player, tile, cell)
        return PlaceResult(Outcome.APPLIED, tile, cell)

    def turn_over(self, cell: Cell) -> Tile:
        """A misplaced tile noticed late: it stays, face down, with no shape or colour."""
        content = self.city[cell]
        if not isinstance(content, Tile):
            self.refuse(GameRule.NOTHING_TO_TURN, f"cannot turn over {cell.name}")
        self._save()
        self.city = self.city.turned_over(cell)
        self.turned_over = self.turned_over + (content,)
        self.on_turn_over(cell, content)
        return content

    def rename(self, axis: int, old: int, new: int) -> None:
        """Call the shape (axis 0) or colour (axis 1) `old` by `new` in the city and among
        the turned-over tiles: a device that names the groups it meets named one twice
        (City.renamed). Refused (CouldNotRead, nothing changed) when a renamed tile would
        then exist twice or share a row or column with a like one: the two names were
        not one shape or colour after all."""
        city = self.city.renamed(axis, old, new)
        for cell, tile in city.tiles().items():
            if tile != self.city[cell] and why_illegal(city.without(cell), tile, cell) in LINE_REASONS:
                raise CouldNotRead(self.message(
                    f"{AXES[axis]} {old} cannot be {new}: "
                    f"{tile.token} at {cell.name} would share a line with a like tile"))
        turned = tuple(t.renamed(axis, old, new) for t in self.turned_over)
        if len(set(turned)) != len(turned) or any(city.contains(t) for t in turned):
            raise CouldNotRead(self.message(
                f"{AXES[axis]} {old} cannot be {new}: "
                "a turned-over tile would exist twice"))
        self._save()
        self.city, self.turned_over = city, turned

    def undo(self) -> None:
        """Take back the last change (the UNDO button): a misread, a wrong press."""
        if not self._history:
            self.refuse(GameRule.NOTHING_TO_UNDO, "cannot undo")
        saved, rng_state = self._history.pop()
        self.__dict__.update(saved)
        if self._rng is not None:
            self._rng.setstate(rng_state)

    # -- hooks ----------------------------------------------------------------------
    def check_turn(self, player: int) -> None:
        """Raise IllegalMove unless `player` may place now."""
        if self.is_over():
            self.refuse(GameRule.GAME_OVER, f"player {player + 1} cannot act")

    def check_tile(self, player: int, tile: Tile) -> None:
        """Raise IllegalMove unless the player holds the tile."""

    def take_tile(self, player: int, tile: Tile) -> None:
        """Remove the placed tile from wherever the player had it."""

    def after_placement(self, player: int, tile: Tile, cell: Cell) -> None:
        """Move the game on after a legal placement."""

    def on_illegal_placement(self, player: int, tile: Tile, cell: Cell,
                             reason: Reason) -> PlaceResult:
        """Multiplayer default: refuse and change nothing; the player tries again."""
        return PlaceResult(Outcome.REFUSED, tile, cell, reason,
                           self.message(f"{tile.token} at {cell.name}: {reason.sentence}"))

    def on_turn_over(self, cell: Cell, tile: Tile) -> None:
        """React to a tile found misplaced and turned face down."""

    def is_over(self) -> bool:
        raise NotImplementedError

    def notation(self) -> str:
        return self.city.notation()

    # -- helpers --------------------------------------------------------------------
    def message(self, text: str) -> str:
        return f"{text} [{self.notation()}]"

    def refuse(self, rule: GameRule, text: str) -> NoReturn:
        raise IllegalMove(self.message(f"{text}: {rule.value}"), rule)

    def _save(self) -> None:
        state = {k: v for k, v in self.__dict__.items() if k not in ("_history", "_rng")}
        rng_state = self._rng.getstate() if self._rng is not None else None
        self._history.append((state, rng_state))


class PlayersGame(Game):
    """Turn order, leaving and ranking, shared by the full and the referee game."""

    def __init__(self, city: City, players: int) -> None:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise IllegalMove(f"{players} players: {GameRule.PLAYER_COUNT.value}",
                              GameRule.PLAYER_COUNT)
        super().__init__(city)
        self.players = players
        self.turn = 0
        self.leave_order: tuple[int, ...] = ()

    @property
    def active(self) -> tuple[int, ...]:
        """Players still in the game, in seat order."""
        return tuple(p for p in range(self.players) if p not in self.leave_order)

    def is_over(self) -> bool:
        return not self.active

    def check_turn(self, player: int) -> None:
        super().check_turn(player)
        if player in self.leave_order:
            self.refuse(GameRule.PLAYER_LEFT, f"player {player + 1}")
        if player != self.turn:
            self.refuse(GameRule.NOT_YOUR_TURN,
                        f"player {player + 1} played on player {self.turn + 1}'s turn")

    def leave(self, player: int) -> None:
        """The player leaves (cannot place, or placed everything); the turn moves on."""
        self.check_turn(player)
        self.check_may_leave(player)
        self._save()
        self._leave(player)

    def check_may_leave(self, player: int) -> None:
        """Hook: the full game checks the hand; the referee trusts the table."""

    def _leave(self, player: int) -> None:
        self.leave_order = self.leave_order + (player,)
        if player == self.turn:
            self._pass_turn()

    def _pass_turn(self) -> None:
        active = self.active
        if not active:
            return
        later = [p for p in active if p > self.turn]
        self.turn = later[0] if later else active[0]
        self.on_new_turn()

    def on_new_turn(self) -> None:
        """Hook: reset per-turn state."""

    def tiles_left(self) -> tuple[int, ...]:
        raise NotImplementedError

    def ranking(self) -> tuple[Standing, ...]:
        return rank_players(self.tiles_left(), self.leave_order)


class RefereeGame(PlayersGame):
    """The device's view: the city and the turn; hands hidden, counts entered at the end."""

    def __init__(self, players: int, pioneer: Tile | None = None) -> None:
        super().__init__(City.with_pioneer(pioneer) if pioneer else City.empty(), players)
        self.entered: tuple[int | None, ...] = (None,) * players

    def check_tile(self, player: int, tile: Tile) -> None:
        # The hidden hands cannot be checked; a tile already in the city is caught by
        # why_illegal (TILE_ALREADY_IN_CITY), a turned-over one here.
        if tile in self.turned_over:
            self.refuse(GameRule.NOT_IN_HAND, f"{tile.token} was turned over earlier")

    def after_placement(self, player: int, tile: Tile, cell: Cell) -> None:
        self._pass_turn()

    def set_pioneer(self, tile: Tile) -> None:
        """Setup draws the Pioneering Tile at random: it goes to A1 on nobody's turn."""
        if not self.city.is_empty:
            raise CouldNotRead(f"the pioneer is already down; undo to change it "
                               f"[{self.notation()}]")
        self._save()
        self.city = City.with_pioneer(tile)

    def leave(self, player: int) -> None:
        """Any player still in may leave: one who just placed their last tile has already
        passed the turn on, and the device only learns it from a button press."""
        if self.is_over():
            self.refuse(GameRule.GAME_OVER, f"player {player + 1} cannot leave")
        if player in self.leave_order or not 0 <= player < self.players:
            self.refuse(GameRule.PLAYER_LEFT, f"player {player + 1}")
        self._save()
        self._leave(player)

    def set_tiles_left(self, player: int, count: int) -> None:
        """Tiles left in a player's hand, as entered with the buttons."""
        if not 0 <= count <= len(ALL_TILES):
            raise CouldNotRead(f"{count} tiles left for player {player + 1}; enter 0 to 49")
        entered = list(self.entered)
        entered[player] = count
        self.entered = tuple(entered)

    def tiles_left(self) -> tuple[int, ...]:
        missing = [p + 1 for p, n in enumerate(self.entered) if n is None]
        if missing:
            self.refuse(GameRule.TILES_LEFT_MISSING, f"players {missing} have no count")
        return tuple(n or 0 for n in self.entered)

    def notation(self) -> str:
        """'<city> p<players> t<turn> l<leavers|-> r<turned over|->'."""
        left = "".join(str(p + 1) for p in self.leave_order) or "-"
        return (f"{self.city.notation()} p{self.players} t{self.turn + 1} l{left} "
                f"r{tiles_text(self.turned_over)}")

    @classmethod
    def parse(cls, text: str) -> RefereeGame:
        fields = text.split()
        prefixes = ("", "p", "t", "l", "r")
        if len(fields) != 5 or not all(f.startswith(p) for f, p in zip(fields, prefixes)):
            raise CouldNotRead(f"bad referee game '{text}'; write '<city> p<players> "
                               "t<turn> l<leavers|-> r<turned over|->'")
        city = City.parse(fields[0])
        try:
            players, turn = int(fields[1][1:]), int(fields[2][1:]) - 1
            leavers = fields[3][1:]
            leave_order = tuple(int(ch) - 1 for ch in leavers) if leavers != "-" else ()
        except ValueError:
            raise CouldNotRead(f"bad players, turn or leavers in '{text}'") from None
        game = cls(players)
        turned = parse_tiles(fields[4][1:])
        if (not 0 <= turn < players or any(not 0 <= p < players for p in leave_order)
                or len(set(leave_order)) != len(leave_order)):
            raise CouldNotRead(f"turn or leaver out of range in '{text}'")
        if len(turned) != len(city.face_down_cells()) or any(city.contains(t) for t in turned):
            raise CouldNotRead(f"turned-over tiles do not match the face-down cells in '{text}'")
        game.city, game.turn, game.leave_order, game.turned_over = city, turn, leave_order, turned
        return game


class Step(Enum):
    """Where the current player is in the turn (rulebook steps 1-5)."""

    START = "s"     # (1) may exchange, then (2) place or leave
    DRAW = "d"      # placed; (3) draw
    DISCARD = "x"   # drew; (4) may discard, then (5) pass


class MultiplayerGame(PlayersGame):
    """The whole 2-5 player game, bag and hands included; randomness from `rng`."""

    def __init__(self, city: City, hands: Sequence[Sequence[Tile]], rng: random.Random,
                 turned_over: Sequence[Tile] = ()) -> None:
        super().__init__(city, len(hands))
        self._rng = rng
        self.step = Step.START
        self.hands: tuple[tuple[Tile, ...], ...] = tuple(tuple(sorted(h)) for h in hands)
        self.turned_over = tuple(turned_over)
        used = [t for h in self.hands for t in h] + list(city.tiles().values()) \
            + list(self.turned_over)
        if len(set(used)) != len(used):
            raise CouldNotRead(f"a tile is in two places in {self.notation()}; each tile "
                               "exists once")
        if len(city.face_down_cells()) != len(self.turned_over):
            raise CouldNotRead(f"{len(city.face_down_cells())} face-down cells but "
                               f"{len(self.turned_over)} turned-over tiles listed")
        self.bag: tuple[Tile, ...] = tuple(t for t in ALL_TILES if t not in set(used))

    @classmethod
    def new(cls, players: int, rng: random.Random) -> MultiplayerGame:
        """Setup: 4 tiles to each player in seat order, then the Pioneering Tile at A1."""
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise IllegalMove(f"{players} players: {GameRule.PLAYER_COUNT.value}",
                              GameRule.PLAYER_COUNT)
        bag = list(ALL_TILES)
        hands = [[bag.pop(rng.randrange(len(bag))) for _ in range(HAND_SIZE)]
                 for _ in range(players)]
        pioneer = bag.pop(rng.randrange(len(bag)))
        return cls(City.with_pioneer(pioneer), hands, rng)

    # -- notation -------------------------------------------------------------------
    def notation(self) -> str:
        """'<city> <hand1>,<hand2>,... t<turn> <step> l<leavers> r<turned over>'.

        The bag is whatever tile is nowhere else, so its size is 49 minus the rest.
        """
        hands = ",".join(tiles_text(h) for h in self.hands)
        left = "".join(str(p + 1) for p in self.leave_order) or "-"
        return (f"{self.city.notation()} {hands} t{self.turn + 1} {self.step.value} "
                f"l{left} r{tiles_text(self.turned_over)}")

    @classmethod
    def parse(cls, text: str, rng: random.Random) -> MultiplayerGame:
        fields = text.split()
        if len(fields) != 6 or not (fields[2].startswith("t") and fields[4].startswith("l")
                                    and fields[5].startswith("r")):
            raise CouldNotRead(f"bad game '{text}'; write '<city> <hands> t<turn> "
                               "<step s|d|x> l<leavers|-> r<turned over|->'")
        city = City.parse(fields[0])
        hands = [parse_tiles(h) for h in fields[1].split(",")]
        game = cls(city, hands, rng, parse_tiles(fields[5][1:]))
        try:
            game.turn = int(fields[2][1:]) - 1
            game.step = Step(fields[3])
            leavers = fields[4][1:]
            game.leave_order = tuple(int(ch) - 1 for ch in leavers) if leavers != "-" else ()
        except ValueError:
            raise CouldNotRead(f"bad turn, step or leavers in game '{text}'") from None
        if not 0 <= game.turn < game.players or any(
                not 0 <= p < game.players for p in game.leave_order):
            raise CouldNotRead(f"turn or leaver out of range in game '{text}'")
        return game

    # -- hooks ----------------------------------------------------------------------
    def check_turn(self, player: int) -> None:
        super().check_turn(player)
        if self.step is not Step.START:
            self.refuse(GameRule.WRONG_STEP, f"player {player + 1} already placed a tile")

    def check_tile(self, player: int, tile: Tile) -> None:
        if tile not in self.hands[player]:
            self.refuse(GameRule.NOT_IN_HAND, f"player {player + 1} has no {tile.token}")

    def take_tile(self, player: int, tile: Tile) -> None:
        self._set_hand(player, tuple(t for t in self.hands[player] if t != tile))

    def after_placement(self, player: int, tile: Tile, cell: Cell) -> None:
        if not self.hands[player]:
            self._leave(player)          # placed all tiles: leaves after step 2
        else:
            self.step = Step.DRAW

    def check_may_leave(self, player: int) -> None:
        if self.step is not Step.START:
            self.refuse(GameRule.WRONG_STEP, f"player {player + 1} placed this turn")
        if can_place_any(self.city, self.hands[player]):
            self.refuse(GameRule.CAN_STILL_PLACE, f"player {player + 1} cannot leave")

    def on_new_turn(self) -> None:
        self.step = Step.START

    def tiles_left(self) -> tuple[int, ...]:
        return tuple(len(h) for h in self.hands)

    # -- the other steps of a turn -----------------------------------------------------
    def can_exchange(self, player: int) -> bool:
        return three_alike(self.hands[player]) is not None

    def exchange(self, player: int, tiles: Sequence[Tile]) -> tuple[Tile, ...]:
        """Step 1: 3 tiles of one colour or one shape go back, 3 are drawn blind.

        Allowed again and again while the hand still holds 3 alike.
        """
        PlayersGame.check_turn(self, player)
        if self.step is not Step.START:
            self.refuse(GameRule.WRONG_STEP, f"player {player + 1} placed already")
        hand = list(self.hands[player])
        for t in tiles:
            if t not in hand:
                self.refuse(GameRule.NOT_IN_HAND, f"player {player + 1} has no {t.token}")
            hand.remove(t)
        if len(tiles) != EXCHANGE_SIZE or not _alike(tiles):
            self.refuse(GameRule.NOT_THREE_ALIKE,
                        f"cannot exchange {tiles_text(list(tiles))}")
        assert self._rng is not None
        self._save()
        bag = list(self.bag) + list(tiles)
        bag.sort()
        drawn = [bag.pop(self._rng.randrange(len(bag))) for _ in range(EXCHANGE_SIZE)]
        self.bag = tuple(bag)
        self._set_hand(player, tuple(hand) + tuple(drawn))
        return tuple(drawn)

    def draw(self, player: int) -> Tile | None:
        """Step 3: draw one tile; with the bag empty, skip step 4 and pass (step 5)."""
        self._check_step(player, Step.DRAW)
        assert self._rng is not None
        self._save()
        if not self.bag:
            self._pass_turn()
            return None
        bag = list(self.bag)
        tile = bag.pop(self._rng.randrange(len(bag)))
        self.bag = tuple(bag)
        self._set_hand(player, self.hands[player] + (tile,))
        self.step = Step.DISCARD
        return tile

    def end_turn(self, player: int, discard: Tile | None = None) -> None:
        """Steps 4-5: optionally put one tile back in the bag, then pass the bag on."""
        self._check_step(player, Step.DISCARD)
        if discard is not None and discard not in self.hands[player]:
            self.refuse(GameRule.NOT_IN_HAND, f"player {player + 1} has no {discard.token}")
        self._save()
        if discard is not None:
            self._set_hand(player, tuple(t for t in self.hands[player] if t != discard))
            self.bag = tuple(sorted(self.bag + (discard,)))
        self._pass_turn()

    def _check_step(self, player: int, step: Step) -> None:
        PlayersGame.check_turn(self, player)
        if self.step is not step:
            self.refuse(GameRule.WRONG_STEP,
                        f"player {player + 1} is at step '{self.step.name.lower()}'")

    def _set_hand(self, player: int, hand: tuple[Tile, ...]) -> None:
        hands = list(self.hands)
        hands[player] = tuple(sorted(hand))
        self.hands = tuple(hands)


def _alike(tiles: Sequence[Tile]) -> bool:
    return len({t.shape for t in tiles}) == 1 or len({t.colour for t in tiles}) == 1


def three_alike(hand: Sequence[Tile]) -> tuple[Tile, ...] | None:
    """Some 3 tiles of the hand sharing a shape or a colour (the first found), or None."""
    for by_shape in (True, False):
        groups: dict[int, list[Tile]] = {}
        for t in hand:
            groups.setdefault(t.shape if by_shape else t.colour, []).append(t)
        for group in groups.values():
            if len(group) >= EXCHANGE_SIZE:
                return tuple(sorted(group)[:EXCHANGE_SIZE])
    return None


__all__ = ["FACE_DOWN", "Game", "GameRule", "MultiplayerGame", "Outcome", "PlaceResult",
           "PlayersGame", "RefereeGame", "Standing", "Step", "rank_players", "three_alike"]
