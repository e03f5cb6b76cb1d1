"""What the device loop needs from a game: the GameSession protocol and the verdicts.

A session turns an observation (a reader's dict) into one verdict against its state:
nothing changed, one plausible move, an illegal move, a question for the players, or
"the table is not readable now". Moves are plain JSON-ready dicts, so the journal can
hold them and `replay` rebuilds a session exactly by applying them again in order.
Undo is "rebuild from all moves but the last", which keeps every adapter's undo exact
without relying on the engine's own history.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Callable, Protocol, Sequence

from PIL import Image

from firmware.motion import ChangeMap

Move = dict[str, Any]
Rect = tuple[float, float, float, float]   # x0, y0, x1, y1 in table mm


@dataclass(frozen=True)
class NoChange:
    """The table shows exactly the game state."""


@dataclass(frozen=True)
class Proposed:
    """Exactly one plausible, legal move."""

    move: Move
    text: str                         # for the screen: "c4 at C3"
    footprint: tuple[Rect, ...] = ()  # where on the table the move may change pixels


@dataclass(frozen=True)
class Illegal:
    """One plausible move that the rules refuse: alert, never apply."""

    move: Move
    short: str                        # two or three words for the OLED
    message: str                      # one line with the state, for the log
    footprint: tuple[Rect, ...] = ()
    reason: Enum | None = None        # the rules' own refusal (each game's enum), for logic


@dataclass(frozen=True)
class Ask:
    """Not one plausible move (two tiles at once, a tile moved, a misread): players decide."""

    text: str
    candidates: tuple[Move, ...] = ()
    labels: tuple[str, ...] = ()
    footprint: tuple[Rect, ...] = ()
    about: Move | None = None
    """A question about a piece the camera could not read (face down where none can
    be, too blurred to name): the move with its place and no piece, from which the
    session's others() lists what it may be."""


@dataclass(frozen=True)
class Unclear:
    """Pieces vanished or the view is blocked: wait for the next still frame, change nothing.
    `text` goes to the log; `reason` is the few words the screen shows when the looks stay
    unclear (the text itself when it is short enough to say)."""

    text: str
    reason: str = ""

    @property
    def headline(self) -> str:
        return self.reason or self.text


Verdict = NoChange | Proposed | Illegal | Ask | Unclear

MISSING = " missing: put it back"
"""The end of the question about pieces the state holds and the table no longer shows
(one piece: "B2 missing: put it back"); the benches' players recognise it by this."""

OTHER = "Other..."
"""A question's option after its own, when the session has a fuller list of what the piece
may be (GameSession.others)."""
OTHER_TITLE = "Which is it?"
"""That list's title (the benches' players recognise it by this)."""


def missing(names: str, footprint: tuple[Rect, ...]) -> Ask:
    """The question about pieces gone from the table, named in `names`."""
    return Ask(names + MISSING, (), (), footprint)


@dataclass(frozen=True)
class Setting:
    """One setup question: PREV/NEXT cycle the choices, SELECT accepts."""

    key: str
    title: str
    choices: tuple[Any, ...]
    default: Any


@dataclass(frozen=True)
class Action:
    """A menu entry of the game (e.g. "Player 2 leaves"); `move` goes through apply()."""

    label: str
    move: Move


@dataclass
class Applied:
    """What applying a move did, for the screen."""

    text: str
    ok: bool = True
    over: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def point_mm(value: Any) -> tuple[float, float] | None:
    """An observation's [x, y] (table mm) as floats, or None when it is not one."""
    if isinstance(value, (list, tuple)) and len(value) == 2:
        try:
            return float(value[0]), float(value[1])
        except (TypeError, ValueError):
            return None
    return None


class RecordsMoves:
    """The apply() every session shares: the game's own _apply, then the move kept (for
    undo and the journal) and its text shown."""

    moves: list[Move]
    last_text: str
    uses_change = False

    def lattice_hint(self) -> dict[str, Any] | None:
        """The lattice (the reader's grid format, in table mm) the game's own pieces were
        seen on, for the reader to start from; None leaves it the reader's last one."""
        return None

    def reader_lattice_ok(self) -> bool:
        """Whether the reader's own last lattice may be handed back to it as a start."""
        return True

    def reader_extra(self) -> dict[str, Any]:
        """What the game tells its reader beyond the lattice (AnalyzeOptions.extra)."""
        return {}

    def more_to_read(self) -> bool:
        """Whether the table holds moves the looks so far did not take (the others of
        tiles laid together, once the players applied one): the loop then looks again at
        once instead of waiting for the table to change."""
        return False

    def others(self, verdict: Ask) -> list[Action]:
        """What else the piece `verdict` asks about may be, beyond its options (none by
        default: the question then offers no "Other...")."""
        return []

    def not_a_move(self, verdict: Ask) -> None:
        """The players answered a question "Not a move" (on the game's first look, what
        it showed is background; nothing to remember by default)."""

    def checked(self, verdict: Ask) -> None:
        """The players answered a question without options OK: they looked at the table
        (nothing to remember by default)."""

    def apply(self, move: Move) -> Applied:
        applied = self._apply(move)
        self.moves.append(dict(move))
        self.last_text = applied.text
        return applied

    def _apply(self, move: Move) -> Applied:
        raise NotImplementedError


class GameSession(Protocol):
    """A game in progress on the device: its options, moves and screens."""

    game: str
    options: dict[str, Any]
    moves: list[Move]
    uses_change: bool
    """Whether interpret() reads its `change` map (the loop builds one only then)."""

    def interpret(self, observation: dict[str, Any], change: ChangeMap | None = None) -> Verdict:
        """Compare what the camera saw with the state; never changes the state.

        `change` (from the loop) says where the table's pixels changed since the last
        accepted look; a session may trust its state where nothing changed."""
        ...

    def apply(self, move: Move) -> Applied:
        """Apply a move (from a verdict, a menu action or the journal). Raises RulesError."""
        ...

    def lattice_hint(self) -> dict[str, Any] | None:
        """The lattice the game's pieces were seen on (reader's grid format), or None."""
        ...

    def reader_lattice_ok(self) -> bool:
        """Whether the reader's own last lattice may be handed back to it as a start (no:
        a lattice fitted to pieces off the table's plane, the Challenge's pile tops)."""
        ...

    def reader_extra(self) -> dict[str, Any]:
        """What the game tells its reader beyond the lattice (AnalyzeOptions.extra)."""
        ...

    def more_to_read(self) -> bool:
        """Whether the table holds moves the looks so far did not take: look again now."""
        ...

    def others(self, verdict: Ask) -> list[Action]:
        """The fuller list behind a question's "Other..." option: what else the piece it
        asks about may be, when every option it offers is wrong."""
        ...

    def not_a_move(self, verdict: Ask) -> None:
        """The players answered `verdict` "Not a move"."""
        ...

    def checked(self, verdict: Ask) -> None:
        """The players answered `verdict`, a question without options, OK."""
        ...

    def undo(self) -> Move | None:
        """Take back the last move; returns it, or None when there is none."""
        ...

    def actions(self) -> list[Action]:
        """Game-specific menu entries for the current state."""
        ...

    def fixes(self, undone: Move) -> list[Action]:
        """After an undo: what the undone move could have been instead (a misread)."""
        ...

    def end_questions(self) -> list[Setting]:
        """What to ask the players when they end the game (e.g. tiles left in hand)."""
        ...

    def finish(self, answers: dict[str, Any]) -> Move:
        """The final move that records the answers and scores."""
        ...

    def is_over(self) -> bool: ...

    def status_screen(self) -> Image.Image:
        """What the OLED shows while watching: whose turn, last move, count."""
        ...

    def result_screen(self) -> Image.Image:
        """The ranking at the end."""
        ...

    def summary(self) -> dict[str, Any]:
        """The state and scores as JSON (resume tests compare these)."""
        ...


@dataclass(frozen=True)
class GameKind:
    """A game the device offers: its menu name, setup questions and how to make a session."""

    name: str
    title: str
    settings: tuple[Setting, ...]
    make: Callable[[dict[str, Any]], GameSession]


_KINDS: dict[str, str] = {
    "town77": "firmware.games.town77",
    "town77-challenge": "firmware.games.town77_challenge",
    "railways": "firmware.games.railways",
}


def kinds() -> list[GameKind]:
    """The games whose adapter (and engine) import; a missing one is simply not offered."""
    out = []
    for name in _KINDS:
        try:
            out.append(kind(name))
        except (ImportError, KeyError):
            continue
    return out


def kind(name: str) -> GameKind:
    if name not in _KINDS:
        raise KeyError(name)
    module = importlib.import_module(_KINDS[name])
    k: GameKind = module.KIND
    return k


def replay(game_start: dict[str, Any], moves: Sequence[Move]) -> GameSession:
    """A session rebuilt from a game_start record's data and its moves, in order."""
    k = kind(str(game_start["game"]))
    session = k.make(dict(game_start.get("options", {})))
    for m in moves:
        session.apply(m)
    return session
