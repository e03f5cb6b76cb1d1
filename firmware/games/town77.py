"""Town 77 on the device: the city the camera sees, turned into RefereeGame moves.

The camera sees the city, never the hands, so the session drives rules.town77's
RefereeGame (turn order, legality, leaving, ranking from tiles entered at the end).
A still frame whose city differs from the state by exactly one new tile is a move by
the player whose turn it is; anything else is a question for the players.

Vision's doubts are settled with the state as a prior on what a tile can be only: when
the reader offers alternative readings of the new tile (`candidates`), a tile already in
the city or turned over is dropped first. Of the rest, the top reading is judged as read:
when another reading is legal where it is not (or the other way round), the players are
asked which tile it is, both offered, and an illegal one picked is alerted; the prior
never hides an illegal placement.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NamedTuple

from PIL import Image

from firmware.games.base import (
    Action, Applied, Ask, GameKind, Illegal, Move, NoChange, Proposed, RecordsMoves, Rect, Setting,
    Unclear, Verdict, missing, point_mm,
)
from firmware.games.grid_change import (
    ANCHOR_NEAR, MISFIT, SIDES, SNAP, city_lattice, lattice_axes, lattice_misfit, lattice_uv, merge_seen, renumber,
    settle, tile_entries,
)
from firmware.motion import ChangeMap
from firmware.screens import base as scr
from firmware.screens import town77 as t77
from rules.errors import CouldNotRead, IllegalMove, RulesError
from rules.town77.city import Cell
from rules.town77.game import MAX_PLAYERS, MIN_PLAYERS, RefereeGame
from rules.town77.placement import Reason, is_legal, why_illegal
from rules.town77.tiles import ALL_TILES, AXES, SHAPE_LETTERS, Tile

DEFAULT_PITCH_MM = 400.0 / 7.0
MISFIT_LOOKS = 6
"""Looks in a row whose lattice misses the city before one is taken anyway (the city's
last lattice may have been the wrong one; a question is better than a stall)."""
UNREAD_OPTIONS = 12
"""A tile whose labels cannot be named is asked with the tiles it may be (legal there,
agreeing with what could be named) when there are at most this many to scroll through."""
FIRST_TILE_MM2 = 400.0
"""A changed region this large (mm^2; the smallest tiles are about 25 mm across) on a
table with no city yet is looked at again when the reader found no tile."""
UNTOUCHED = 0.01
"""A lone tile read on an empty table, with no more than this share of the table within a
pitch of it changed, is not the pioneer when a tile's area changed elsewhere."""
DECLINED_CHANGE = 0.25
"""Share of a cell the players called "Not a move" at the start that must change for a
tile read there to be looked at again (a tile laid there after all)."""


def _direct(value: Any) -> int | None:
    """A label that IS an index (0-6, "0"-"6", "a"-"g"), else None (a name or group id)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value < 7 else None
    if isinstance(value, str):
        v = value.strip().lower()
        if len(v) == 1 and v.isdigit() and int(v) < 7:
            return int(v)
        if len(v) == 1 and v in SHAPE_LETTERS:
            return SHAPE_LETTERS.index(v)
    return None


class Labels:
    """Vision's shape and colour labels -> the rules' indices, learnt from the city.

    A reader without a taught palette names groups per frame ("shape-3"), so the same
    house may carry another label in the next frame. Tiles already in the city vote for
    what each label means in this frame; a label no known tile carries is a shape (or
    colour) the city does not have yet and takes the lowest free index. Only equality
    matters to the rules, so this labelling is as good as the real names.
    """

    def __init__(self, city_tiles: dict[Cell, Tile], raw: dict[Cell, tuple[Any, Any]]) -> None:
        self.maps: list[dict[Any, int]] = []
        self.free: list[list[int]] = []
        self.used: list[list[int]] = []
        """Per axis, the values the city's tiles have."""
        self.silent: list[list[int]] = []
        """Per axis, the values of city tiles not read this look (face down to the reader,
        hidden) that no read tile carries: a new label may be one of them."""
        self.fresh: list[set[Any]] = [set(), set()]
        """Per axis, the labels given a free index this look."""
        self._tiles, self._raw = city_tiles, raw
        for axis in (0, 1):
            votes: dict[Any, dict[int, int]] = {}
            for cell, tile in city_tiles.items():
                if cell in raw:
                    idx = tile.shape if axis == 0 else tile.colour
                    box = votes.setdefault(raw[cell][axis], {})
                    box[idx] = box.get(idx, 0) + 1
            mapping = {label: max(box, key=lambda i: (box[i], -i)) for label, box in votes.items()}
            used = {(t.shape if axis == 0 else t.colour) for t in city_tiles.values()}
            voiced = {(t.shape if axis == 0 else t.colour) for c, t in city_tiles.items() if c in raw}
            self.maps.append(mapping)
            self.used.append(sorted(used))
            self.free.append([i for i in range(7) if i not in used and i not in mapping.values()])
            self.silent.append(sorted(used - voiced))     # (every voted value is voiced)

    def index(self, label: Any, axis: int) -> int | None:
        d = _direct(label)
        if d is not None:
            return d
        if label is None:
            return None
        mapping = self.maps[axis]
        if label not in mapping:
            if not self.free[axis]:
                return None
            mapping[label] = self.free[axis].pop(0)
            self.fresh[axis].add(label)
        return mapping[label]

    def unvoted(self, tile: Tile, shape_label: Any, colour_label: Any) -> list[Tile]:
        """Other readings of a tile whose label took a free index: that label may be a city
        tile's that was not read this look, so could not vote (alerts game 5006: A2 read
        face down, and the new C2 of A2's shape was taken for a new shape and applied)."""
        shapes = [tile.shape] + (self.silent[0] if shape_label in self.fresh[0] else [])
        colours = [tile.colour] + (self.silent[1] if colour_label in self.fresh[1] else [])
        return [Tile(s, c) for s in shapes for c in colours if (s, c) != (tile.shape, tile.colour)]

    def elsewhere(self, tile: Tile, entry: dict[str, Any]) -> list[Tile]:
        """Other readings along an axis where the reader hesitated over a label no tile
        of the city carries ("a shape of its own"): such a tile sits badly in its group,
        and its truth may as well be a shape the city has elsewhere (dev alerts game 7066:
        D1 read in shape c's group and offered as a shape of its own, while its true shape
        was B4's). Every value the city has; one free value already stands for any new one."""
        out: list[Tile] = []
        for alt in entry.get("candidates", []) or []:
            if not isinstance(alt, dict):
                continue
            for axis, key in ((0, "shape"), (1, "colour")):
                label = alt.get(key)
                if label == entry.get(key) or label not in self.fresh[axis]:
                    continue
                own = tile.shape if axis == 0 else tile.colour
                for v in self.used[axis]:
                    t = Tile(v, tile.colour) if axis == 0 else Tile(tile.shape, v)
                    if v != own and t not in out:
                        out.append(t)
        return out

    def split(self, shape_label: Any, colour_label: Any) -> tuple[int, int, int] | None:
        """(axis, v, w) when a new tile's label finds no free index because the city
        names one shape (or colour) twice: v, the name of a lone city tile whose label
        this look belongs to w's tiles. Such a tile was applied under a name of its own
        when the reader once read it apart from its like (dev alerts game 7009: A2 named
        e3 beside C1's d2, both one colour); with all 7 names taken, a new colour had none
        and the players' pick shared a name with a tile in its row."""
        for axis, label in ((0, shape_label), (1, colour_label)):
            mapping = self.maps[axis]
            if label is None or _direct(label) is not None or label in mapping or self.free[axis]:
                continue
            for v in self.used[axis]:
                cells = [c for c, t in self._tiles.items() if (t.shape if axis == 0 else t.colour) == v]
                if v in mapping.values() or len(cells) != 1 or cells[0] not in self._raw:
                    continue
                w = mapping.get(self._raw[cells[0]][axis])
                if w is not None and w != v:
                    return axis, v, w
        return None

    def tile(self, shape_label: Any, colour_label: Any) -> Tile | None:
        s = self.index(shape_label, 0)
        c = self.index(colour_label, 1)
        return None if s is None or c is None else Tile(s, c)


def tile_of(entry: dict[str, Any]) -> Tile:
    """An entry whose labels are indices or tokens (tests, tools); see Labels otherwise."""
    if "token" in entry and isinstance(entry["token"], str):
        return Tile.parse(entry["token"])
    s, c = _direct(entry.get("shape")), _direct(entry.get("colour"))
    if s is None or c is None:
        raise CouldNotRead(f"bad shape/colour {entry.get('shape')!r}/{entry.get('colour')!r}; "
                           "expected indices 0-6")
    return Tile(s, c)


def readings(entry: dict[str, Any], labels: Labels) -> list[Tile]:
    """The top reading, then any alternatives the reader hesitated between."""
    top = labels.tile(entry.get("shape"), entry.get("colour"))
    out = [top] if top is not None else []
    for alt in entry.get("candidates", entry.get("alternatives", [])) or []:
        t = labels.tile(alt.get("shape"), alt.get("colour")) if isinstance(alt, dict) else None
        if t is not None and t not in out:
            out.append(t)
    return out


AXIS_SLOPE = math.tan(math.radians(22.5))
"""A new tile beside a lone pioneer lies along an axis of the pioneer's lattice: within
half of 45 degrees of one (the tiles' own tilt is a few degrees), else a diagonal."""
DIAGONAL = 1.2
"""A tile off the axes of a lone pioneer's lattice is its diagonal neighbour only this
many of the pioneer look's pitches away, or more (a diagonal is 1.41)."""
HINT_TILES = 3
"""The city's lattice is handed to the reader once this many tiles' places are known."""
HESITATION_OPTIONS = 4
"""At most this many readings of a new tile are offered when they disagree on legality:
what a question's list shows without scrolling far."""
OVERLAP = 0.5
"""A new tile's print nearer than this many pitches to where a city tile was seen lies
on that tile: it is not a move there."""


class _Quiet(NamedTuple):
    """A tile read beside the city where the change map saw nothing, legal there: the
    question about it is made when it is asked (for the player whose turn it is then)."""

    cell: Cell
    tile: Tile
    footprint: tuple[Rect, ...]
    at: tuple[float, float] | None     # where its print was seen (table mm)


def _untouched(change: ChangeMap, at: tuple[float, float], grid: Any) -> bool:
    """No pixel changed within a pitch of a tile read at `at` (a tile about the table's
    colour that changes little of its middle still shades or outlines the table round it)."""
    axes = lattice_axes(grid)
    if axes is None:
        return False
    x, y, p = at[0], at[1], axes[0]
    return change.fraction((x - p, y - p, x + p, y + p)) <= UNTOUCHED


class Town77Session(RecordsMoves):
    """A Town 77 game being refereed: RefereeGame plus the moves that built it."""

    uses_change = True

    game = "town77"

    def __init__(self, options: dict[str, Any]) -> None:
        players = int(options.get("players", 2))
        self.options = {"players": players}
        self.moves: list[Move] = []
        self.game_state = RefereeGame(players)
        self.last_text = ""
        self.finished = False
        self._city_mm: dict[Cell, tuple[float, float]] = {}   # where the city's tiles were seen, last agreed look
        self._misfits = 0
        self._centres: dict[Cell, tuple[float, float]] = {}   # face-up tiles of the look, seen
        self._together: set[Cell] = set()   # new tiles of the last "tiles at once" question
        self._pending: set[Cell] = set()    # the others, once the players applied one of them
        # this look's tiles read beside the city where nothing changed, legal there (_faint),
        # and those still owed a question after a move this look proposed was applied
        self._quiet_now: list[_Quiet] = []
        self._owed: list[_Quiet] = []
        # the last look's proposed cell and the places it saw the city at, kept if applied
        self._proposed: tuple[Cell, dict[Cell, tuple[float, float]]] | None = None
        self._asked: dict[Cell, tuple[float, float]] = {}   # where a question's offered tiles were seen
        self._picked: dict[Cell, tuple[float, float]] = {}  # ... those the players picked
        self._grid: dict[str, Any] | None = None        # the reader's lattice of the look that applied
        self._look_grid: dict[str, Any] | None = None   # and of this look
        self._astray: list[Cell] = []       # known cells this look read in a changed place far off
        self._declined: tuple[Rect, ...] = ()   # a tile on the table at the start, "Not a move"
        self._quiet_asked: tuple[Cell, Ask] | None = None   # a tile read where the table did not change, asked
        self._quiet_declined: set[Cell] = set()  # ... and called "Not a move"
        self._hesitation: Ask | None = None  # this look's question of which tile a new one is
        self._split: tuple[int, int, int] | None = None  # a name the city gave twice (Labels.split)
        self._rename: tuple[int, int, int] | None = None  # ... while a look is read with it merged

    # -- reading the table ---------------------------------------------------------------
    def lattice_hint(self) -> dict[str, Any] | None:
        """The lattice of the places the game agreed its tiles were seen at: one look's
        own lattice can be bent by a hand or fitted to a mat's lines on a small city,
        and the next look would start from it."""
        known = self._placed_seen()
        # two places fix a lattice with nothing to check it by: a lone pioneer's print
        # read a quarter cell off would tilt it; from three on, city_lattice checks the fit
        return city_lattice(known) if len(known) >= HINT_TILES else None

    def more_to_read(self) -> bool:
        return bool(self._pending) or bool(self._owed)

    def not_a_move(self, verdict: Ask) -> None:
        if not self._placed():
            self._declined += tuple(verdict.footprint)
        elif self._quiet_asked is not None and verdict == self._quiet_asked[1]:
            self._quiet_declined.add(self._quiet_asked[0])

    def _placed(self) -> set[Cell]:
        """The cells of the state's city that hold a tile (face up or down)."""
        return {c for c, x in self.game_state.city if x is not None}

    def _placed_seen(self) -> dict[tuple[int, int], tuple[float, float]]:
        """Where the tiles on the state's city were last seen, by (row, col)."""
        placed = self._placed()
        return {(c.row, c.col): p for c, p in self._city_mm.items() if c in placed}

    def _hold(self, why: str) -> Unclear | None:
        """Look again, unless MISFIT_LOOKS looks in a row have been held (None: take this
        one, whose move the players then confirm)."""
        if self._misfits < MISFIT_LOOKS:
            self._misfits += 1
            return Unclear(f"{why}; looking again", why)
        return None

    def _applied_pitch(self) -> float | None:
        """The reader's pitch on the look that applied the last move: what two tiles'
        places, which fit any lattice, are checked by (not this look's, which may be the
        one a hand or a mat bent)."""
        axes = lattice_axes(self._grid)
        return axes[0] if axes is not None else None

    def _lone_lattice(self, seen: dict[tuple[int, int], tuple[float, float]]) -> dict[str, Any] | None:
        """A one-tile city's lattice: through where its tile was seen, at the pitch and angle
        of the look that applied it. Only for finding changed cells beside the city that no
        tile explains (a look whose lattice lies on a mat's lines or a glare reads its
        tiles elsewhere); never to number a look, which a pitch read once could misplace."""
        axes = lattice_axes(self._grid)
        if len(seen) != 1 or len(self._placed()) != 1 or axes is None:
            return None
        (r, c), (x, y) = next(iter(seen.items()))
        pitch, _, (ax, ay), _ = axes
        p, q = pitch * ax, pitch * ay
        return {"pitch_mm": pitch, "angle_deg": math.degrees(math.atan2(ay, ax)),
                "origin_mm": [x - p * c + q * r, y - q * c - p * r]}

    def _read_astray(self, entries: dict[Cell, dict[str, Any]], kept: set[Cell],
                     seen: dict[tuple[int, int], tuple[float, float]],
                     lattices: list[Any]) -> list[Cell]:
        """The state's cells whose reading lies where the table changed, more than
        ANCHOR_NEAR of a pitch from where that cell's tile was seen (the largest pitch
        known: a reader's lattice a symbol's width fine makes a small one)."""
        pitches = [a[0] for a in (lattice_axes(g) for g in [*lattices, self._grid]) if a is not None]
        if not pitches:
            return []
        near = ANCHOR_NEAR * max(pitches)
        out = []
        for cell, e in entries.items():
            q = seen.get((cell.row, cell.col))
            p = point_mm(e.get("centre_mm"))
            if cell not in kept and q is not None and p is not None and math.dist(p, q) > near:
                out.append(cell)
        return sorted(out)

    def _on_city_tile(self, verdict: Proposed | Illegal) -> str | None:
        """The new tile's cell name when its print lies nearer than OVERLAP pitches to
        where a tile of the city was seen, else None. Tiles do not overlap: such a print
        is that tile read on a lattice a print's width off, or a phantom beside it (game
        16 of the loop bench: one 11 mm below A2 was alerted, then applied as A3, along
        the pioneer's axis, which is all the lone-pioneer check of _off_city asks)."""
        if verdict.move.get("type") != "place":
            return None
        try:
            cell = Cell.parse(str(verdict.move["cell"]))
        except CouldNotRead:        # outside the 7x7 area: no tile of the city is there
            return None
        p = self._centres.get(cell)
        seen = self._placed_seen()
        if p is None or not seen:
            return None
        # the city's pitch where two places fix it, else that of the look that applied a
        # tile (a one-tile city's places fix none)
        pitch = lattice_axes(city_lattice(seen, self._applied_pitch())) if len(seen) >= 2 else None
        pitch = pitch or lattice_axes(self._grid) or lattice_axes(self._look_grid)
        placed = self._placed()
        places = list(seen.items()) + [((c.row, c.col), q) for c, q in self._picked.items() if c in placed]
        if pitch is not None and any(math.dist(p, q) < OVERLAP * pitch[0]
                                     for rc, q in places if rc != (cell.row, cell.col)):
            return cell.name
        return None

    def _off_city(self, verdict: Proposed) -> str | None:
        """The new tile's cell name when its print does not lie on that cell of the
        lattice through where the city was seen, else None.

        The reader numbers a look from its own lattice when the city's cannot number it
        (a print between cells), and on a small city of pale tiles it may see only some
        of them: the pioneer and a tile diagonal to it read as a row (a lattice 45 degrees
        off, its pitch 1.4 times), or a pitch a quarter too long that lays the fourth
        row's tile in the third. A lone pioneer fixes no pitch worth trusting, only the
        lattice's axes: the new tile must lie along one of them from it."""
        if verdict.move.get("type") != "place":
            return None
        cell = Cell.parse(str(verdict.move["cell"]))
        p = self._centres.get(cell)
        seen = self._placed_seen()
        if p is None or not seen:
            return None
        if self._on_city_tile(verdict) is not None:
            return cell.name
        lattice = lattice_axes(city_lattice(seen)) if len(seen) >= HINT_TILES else None
        if lattice is not None:
            u, v = lattice_uv(lattice, p)
            on = (round(v), round(u)) == (cell.row, cell.col) and \
                max(abs(u - round(u)), abs(v - round(v))) <= SNAP
            return None if on else cell.name
        # two places (a tile the players picked from a question counts, where that look
        # saw it) fix a lattice with nothing to check it by (see lattice_hint): a print a
        # tenth of a cell off tilts it some 6 degrees, so the new tile need only lie
        # nearest the cell it is read in, not near its middle (a lattice in a lamp's spot
        # numbered loop game 207's B2 as A3, a cell and a half away)
        placed = self._placed()
        known = {(c.row, c.col): q for c, q in self._picked.items() if c in placed} | seen
        pair = lattice_axes(city_lattice(known, self._applied_pitch())) if len(known) >= 2 else None
        if pair is not None:
            u, v = lattice_uv(pair, p)
            return None if (round(v), round(u)) == (cell.row, cell.col) else cell.name
        lone = lattice_axes(self._lone_lattice(seen))
        if lone is None:
            return None
        (r, c), _ = next(iter(seen.items()))
        u, v = lattice_uv(lone, p)
        u, v = u - c, v - r            # from the pioneer, in the pioneer look's pitches
        if min(abs(u), abs(v)) > AXIS_SLOPE * max(abs(u), abs(v)):
            # nearer a diagonal than an axis: the diagonal tile when it also lies a
            # diagonal's length off (a lone tile's lattice can be read 45 degrees off,
            # and then its neighbour lies along that lattice's diagonal, but near its pitch)
            return cell.name if math.hypot(u, v) > DIAGONAL else None
        step = (0, 1 if u > 0 else -1) if abs(u) > abs(v) else (1 if v > 0 else -1, 0)
        return None if (r + step[0], c + step[1]) == (cell.row, cell.col) else cell.name

    def interpret(self, observation: dict[str, Any], change: ChangeMap | None = None) -> Verdict:
        """The look's verdict, unless its lattice misses the city's known cells: a hand or
        a cup bends the reader's fit, and every cell index read on it is then wrong."""
        grid = observation.get("grid")
        forced = False
        # owed to this look only (the one right after the move): later looks read afresh
        owed, self._owed, self._quiet_now = self._owed, [], []
        if change is not None and len(self._city_mm) >= 3:
            misfit = lattice_misfit(grid, self._city_mm.values())
            if misfit is not None and misfit > MISFIT:
                held = self._hold(f"grid off the city by {misfit:.2f} cell")
                if held is not None:
                    return held
                forced = True
        self._look_grid = grid if lattice_axes(grid) is not None else None
        self._split = None
        verdict = self._read(observation, change)
        if self._split is not None and (renamed := self._renamed(self._split)) is not None:
            # read again as if the name given twice were one: the moves this look offers
            # carry the renaming, which is applied with the one the players take
            with self._renaming(renamed, self._split):
                verdict = self._read(observation, change)
        if isinstance(verdict, NoChange) and (ask := self._still_owed(owed)) is not None:
            verdict = ask
        if change is not None and not forced and self._astray and isinstance(verdict, NoChange):
            # a changed place read as a known tile far from where that tile was seen: a
            # new tile numbered onto the city (game 43: B2 read as A1 on a lattice a
            # symbol's width fine, with A1 and A2 unread), whose labels the city's tiles
            # then vote for, so the look agrees with the state and the new tile would be
            # agreed on as table. Only an agreeing look: a place recorded off (a tile
            # the players placed by answering) must not hold up a look that proposes
            held = self._hold(f"{self._astray[0].name} read away from its place")
            if held is not None:
                return held
            forced = True
        which = self._hesitation if verdict is self._hesitation else None
        # a question about which tile it is, or about one not read: where it lies is
        # checked as for a move (a tile the players name stands where this look saw it)
        placing = verdict if isinstance(verdict, Proposed) else None
        if which is not None:
            placing = Proposed(which.candidates[0], which.text, which.footprint)
        elif isinstance(verdict, Ask) and verdict.about is not None:
            placing = Proposed(verdict.about, "", ())
        if change is not None and not forced and placing is not None:
            off = self._off_city(placing)
            if off is not None:
                held = self._hold(f"{off} not where the city puts it")
                if held is not None:
                    return held
                forced = True
        if change is not None and not forced and isinstance(verdict, Illegal):
            on = self._on_city_tile(verdict)
            if on is not None:
                # looked at again, not hidden: after MISFIT_LOOKS looks it is alerted
                held = self._hold(f"{on} lies on a tile of the city")
                if held is not None:
                    return held
        self._misfits = 0
        if forced and not isinstance(verdict, Unclear):
            # looks in a row put the city off where it was seen: those places were the
            # misreading (a first few tiles read on a lattice a symbol's width fine), and
            # every later look would be held up by them; this look's are kept instead
            placed = self._placed()
            self._city_mm.update({c: p for c, p in self._centres.items() if c in placed})
        if forced and isinstance(verdict, Proposed):
            # a look taken on a lattice that still misses the city: its cell may be a
            # whole cell off, so the players confirm rather than the device applying it
            move = dict(verdict.move, source="confirmed")
            return Ask(f"{verdict.text}?", (move,), (verdict.text,), verdict.footprint)
        if isinstance(verdict, NoChange):
            self._pending = set()      # the tiles seen together are gone or applied
        if isinstance(verdict, (NoChange, Proposed)) or which is not None:
            # where the tiles were seen (their prints' centres), not the lattice's nodes: a
            # lattice half a cell off can still read a small city, and must not become the
            # measure of the next looks (the tile of a question of which tile it is, a
            # proposed one whose reading the players give)
            proposed = verdict.candidates[0] if isinstance(verdict, Ask) else \
                verdict.move if isinstance(verdict, Proposed) else {}
            new = Cell.parse(str(proposed["cell"])) if "cell" in proposed else None
            cells = [c for c, x in self.game_state.city if x is not None] + ([new] if new is not None else [])
            merged = {Cell(*rc): p for rc, p in merge_seen(
                {(c.row, c.col): p for c, p in self._city_mm.items()},
                {(c.row, c.col): p for c, p in self._centres.items()},
                [(c.row, c.col) for c in cells], _pitch(self._centres)).items()}
            if isinstance(verdict, NoChange):
                self._city_mm = merged
            elif new is not None:
                # kept once the move is applied: the guard may turn it into a question
                # (a hand's thing read as a tile by the city), and the players refuse it
                self._proposed = (new, merged)
        asked: tuple[Move, ...] = ()
        if isinstance(verdict, Ask):
            asked = verdict.candidates + ((verdict.about,) if verdict.about is not None else ())
        if asked and self._placed():
            # where the offered tiles were seen: no tile is laid on the one the players
            # pick (game 16 of the loop bench: A2, picked from "2 tiles at once", had no
            # place, so a phantom read 11 mm from it on the next look was applied as A3,
            # the city then a row off). Only for that (_on_city_tile): as the city's place
            # it numbered later looks from a question's look, the least sure kind (game
            # 14), and an agreeing look places the tile anyway
            offered = {Cell.parse(str(m["cell"])) for m in asked if "cell" in m}
            # (an owed question's tile has the place the look before saw: _still_owed)
            self._asked = {c: p for c, p in {**self._asked, **self._centres}.items() if c in offered}
        if change is None and isinstance(verdict, Proposed) and not self._placed():
            # a lone tile on the first look at a game's table, with nothing to compare it
            # with: the pioneer laid before the game was started, or the reader's phantom
            # on a mat's print or a glare (which two agreeing looks do not tell apart); the
            # players say which, and "Not a move" makes this table the background
            move = dict(verdict.move, source="confirmed")
            return Ask(f"{verdict.text} already?", (move,), (verdict.text,), verdict.footprint)
        return verdict

    def _read(self, observation: dict[str, Any], change: ChangeMap | None) -> Verdict:
        """One reading of the look, from a clean slate: a look read again with a merged
        name starts over."""
        self._centres, self._proposed, self._asked, self._astray, self._hesitation = {}, None, {}, [], None
        return self._interpret(observation, change)

    def _interpret(self, observation: dict[str, Any], change: ChangeMap | None) -> Verdict:
        city = self.game_state.city
        seen: dict[Cell, Tile | None] = {}     # None = face down
        centres: dict[Cell, tuple[float, float]] = {}
        raw: dict[Cell, tuple[Any, Any]] = {}
        entries = {Cell(*rc): e for rc, e in tile_entries(observation).items()}
        expected: dict[Cell, Tile | None] = {cell: (x if isinstance(x, Tile) else None)
                                             for cell, x in city if x is not None}
        kept: set[Cell] = set()
        unread: list[Cell] = []
        unexplained: list[Cell] = []
        foreign: list[Cell] = []
        quiet: dict[Cell, dict[str, Any]] = {}
        if change is None and not expected and len(entries) > 1:
            # a first look at a table that cannot be a game's start (tiles left from the
            # last game, or the reader's phantoms): it is the background the pioneer will
            # be seen against
            return NoChange()
        if change is not None and (expected or len(entries) > 1):
            # number the tiles by where the city's tiles were seen rather than by the
            # reader's lattice, which a hand or a phantom can shift by a cell
            grid = observation.get("grid")
            by_rc = {(c.row, c.col): e for c, e in entries.items()}
            seen_mm = self._placed_seen()
            lattice = city_lattice(seen_mm, self._applied_pitch())
            placed = renumber(by_rc, lattice, [(c.row, c.col) for c in expected])
            if placed is not None:
                by_rc, grid = placed, lattice
            # trust the state where the table did not change (firmware.games.grid_change);
            # an empty table's lone tile is the pioneer whatever changed
            st = settle(by_rc, {(c.row, c.col) for c in expected}, grid, change,
                        lambda rc: Cell(*rc) in self._pending, seen_mm,
                        (lattice or self._lone_lattice(seen_mm)) if placed is None else None,
                        laid_in=lambda rc: Cell(*rc).in_area)
            entries = {Cell(*rc): e for rc, e in st.entries.items()}
            kept = {Cell(*rc) for rc in st.kept}
            self._astray = self._read_astray(entries, kept, seen_mm, [grid, lattice])
            unexplained = [Cell(*rc) for rc in st.unexplained]
            foreign = [Cell(*rc) for rc in st.foreign]
            quiet = {Cell(*rc): e for rc, e in st.quiet.items()}
            if not expected and len(entries) == 1:
                entries = {Cell(0, 0): next(iter(entries.values()))}   # numbered from a phantom
        # an empty table's one tile read, where its print was seen
        lone = point_mm(next(iter(entries.values())).get("centre_mm")) if len(entries) == 1 else None
        if change is not None and not expected and change.largest_mm2() >= FIRST_TILE_MM2 and \
                (not entries or (lone is not None and _untouched(change, lone, observation.get("grid")))):
            # the pioneer laid and not read (the reader's tiles, if any, lay on table that
            # did not change: a mat's lines, a glare): agreeing on this table would make the
            # pioneer background, and the next tile would be taken for the pioneer. So too
            # for a lone tile read where nothing changed anywhere near (fresh loop game
            # 458: a phantom on a mat's print 260 mm from the pioneer, which the mat's
            # lattice cut, was applied as A1 and every later tile lay off the city)
            return Unclear("the table changed; looking again", "the table changed")
        if change is not None and not expected and lone is not None and self._declined:
            if any(
                    r[0] <= lone[0] <= r[2] and r[1] <= lone[1] <= r[3]
                    and change.fraction(r) < DECLINED_CHANGE for r in self._declined):
                # the tile the players called no move at the start, where the table has not
                # changed since: the reader's phantom again. If the table changed elsewhere
                # by a tile's area, the pioneer was laid and not read (game 5044): agreeing
                # would make it background, as with no tile read at all
                if change.largest_mm2() >= FIRST_TILE_MM2:
                    return Unclear("the table changed; looking again", "the table changed")
                return NoChange()
        for cell, e in entries.items():
            if not e.get("face_down"):
                raw[cell] = (e.get("shape"), e.get("colour"))
            c = point_mm(e.get("centre_mm"))
            if c is not None:
                centres[cell] = c
                if not e.get("face_down"):
                    self._centres[cell] = c
        labels = Labels(city.tiles(), raw)
        backs = [c for c, e in entries.items() if e.get("face_down") and isinstance(expected.get(c), Tile)]
        for cell in sorted(entries):          # known cells first, so votes settle labels
            if cell in raw and cell in city.tiles():
                seen[cell] = labels.tile(*raw[cell])
        for cell in sorted(entries):
            if cell in seen:
                continue
            if cell not in raw:
                seen[cell] = None
                continue
            got = labels.tile(*raw[cell])
            if got is None:
                unread.append(cell)
                continue
            seen[cell] = got
        for cell in kept:
            seen[cell] = expected[cell]
        pitch = _pitch(centres)
        self._faint(quiet, labels, pitch)
        if unread:
            # a label the city's tiles do not explain (a group split this look): the
            # players say which tile it is, among those the reading and the rules allow
            cell = unread[0]
            if self._rename is None:
                self._split = labels.split(*raw[cell])     # or a name the city gave twice
            partial = (labels.index(raw[cell][0], 0), labels.index(raw[cell][1], 1))
            could_be = [t for t in ALL_TILES
                        if partial[0] in (None, t.shape) and partial[1] in (None, t.colour)
                        and self._unplayed(t) and why_illegal(city, t, cell) is None]
            footprint = (_rect(centres.get(cell), cell, pitch),)
            if not 0 < len(could_be) <= UNREAD_OPTIONS:
                # none legal fits what was read, or too many do: Other... lists them all
                return Ask(f"{cell.name}: cannot read the tile", (), (), footprint,
                           self._about(cell, _partial(partial), centres.get(cell), backs))
            return Ask(f"Which tile at {cell.name}?",
                       tuple(self._place_move(t, cell, "confirmed") for t in could_be),
                       tuple(f"{t.token} at {cell.name}" for t in could_be), footprint)
        added = [c for c in seen if c not in expected]
        vanished = [c for c in expected if c not in seen]
        turned = [c for c in seen if c in expected and seen[c] is None and expected[c] is not None]
        changed = [c for c in seen if c in expected and c not in turned and seen[c] != expected[c]]

        def fp(cells: list[Cell]) -> tuple[Rect, ...]:
            return tuple(_rect(centres.get(c), c, pitch) for c in cells)

        def judged(cell: Cell, tile: Tile, footprint: tuple[Rect, ...], ask: bool = False) -> Verdict:
            tiles = readings(entries[cell], labels) or [tile]
            unvoted = labels.unvoted(tile, *raw[cell]) if cell in raw else []
            tiles += [t for t in unvoted if t not in tiles]
            return self._judge(cell, tiles, footprint, ask, labels.elsewhere(tile, entries[cell]))

        if vanished and not added:
            names = ", ".join(c.name for c in vanished[:3])
            return Unclear(f"{names} hidden") if len(vanished) > 2 else \
                missing(names, fp(vanished))
        if vanished and added:
            return Ask(f"Tile moved? {vanished[0].name}>{added[0].name}", (), (), fp(vanished + added))
        one_new = seen[added[0]] if len(added) == 1 else None
        offered: tuple[Move, ...] = ()
        if changed and one_new is not None:
            # a tile of the city read otherwise this look must not hide an illegal new
            # tile: judged by the rest of the city's votes, it is alerted (unless another
            # reads face down too: game 36 of the loop bench, the light drifted and two
            # misread); a legal one is offered with the question about the misread tile
            # (a tile of the city never changes in play, so the players can take the new
            # one and let the misread be: with nothing to pick, the move waited until a
            # look read the old tile right, and was lost when none did)
            verdict = judged(added[0], one_new, fp(added), ask=not turned)
            if isinstance(verdict, (Illegal, Ask)) and not turned:
                # the reader hesitated between readings the rules judge otherwise: asked
                # which tile it is, as a new tile alone is (dev alerts game 7072: C3's c1,
                # read a1, was alerted beside a misread A2 and fixed by the players)
                return verdict
            offered = _confirmable(verdict)
        elif changed and added:
            # several new tiles and a city tile read otherwise: each new tile legal as read
            # is offered, as when they come alone (loop bench held-out game 155: B2, a misread
            # applied earlier, read right at last beside the last two tiles; asked with no
            # option, both were lost)
            self._together = set(added)
            offered = tuple(self._place_move(t, c, "confirmed") for c in added
                            if (t := seen[c]) is not None and why_illegal(city, t, c) is None)
        if changed:
            c = changed[0]
            exp = expected[c]
            got = seen[c]
            return Ask(f"{c.name} reads {got.token if got else '##'}, "
                       f"was {exp.token if exp else '##'}", offered,
                       tuple(_option_text(m) for m in offered), fp(changed + (added if offered else [])))
        if turned and not added:
            c = turned[0]
            if len(turned) > 1:
                return Ask(f"{len(turned)} tiles turned over", (), (), fp(turned))
            # asked, not proposed: a hand resting on a city tile, or a misread, shows it face
            # down far more often than players turn one over (only a misplacement found
            # late is); proposed, it was applied under a hand (loop bench game 51) or on
            # the reader's face-down misread of an unchanged table (game 24)
            move = {"type": "turn_over", "cell": c.name}
            return Ask(f"{c.name} turned over?", (move,), (f"{c.name} turned over",), fp(turned))
        if not added:
            if foreign:
                # a cup or an arm read as a tile: the table is not clear, and what lies
                # there must not become the table the next move is compared with
                return Unclear(f"something on the table at {foreign[0].name}")
            if unexplained:
                # something changed beside the city but no tile was read there: look again
                # rather than let the loop take it for bare table
                return Unclear(f"{unexplained[0].name} changed; looking again",
                               f"{unexplained[0].name} changed")
            if self._quiet_now:
                return self._ask_quiet(self._quiet_now[0])
            return NoChange()
        if turned:
            # the new tile offered when it is legal as read (a city tile read face down
            # is the reader's misread far more often than a turn with a move beside it)
            offered = _confirmable(judged(added[0], one_new, fp(added))) if one_new is not None else ()
            return Ask("A tile turned and one added", offered, tuple(_option_text(m) for m in offered),
                       fp(turned + added))
        if len(added) > 1:
            # if the players apply one, the others lie on the table the loop then takes
            # as agreed: they are read again whatever the change map says (`_took`)
            self._together = set(added)
            for cell in (c for c in added if c in self._pending and seen[c] is not None):
                # one left from the last question, and a tile laid since: the older one
                # first, as when it is alone; the new one is then read with the others
                tile = seen[cell]
                assert tile is not None
                verdict = judged(cell, tile, fp(added))
                if isinstance(verdict, Proposed):
                    return verdict
            options = []
            texts: list[str] = []
            for c in added:
                t = seen[c]
                if t is None:
                    continue
                # each tile's legal readings: the top one, then those the reader hesitated
                # over (game 26 of the loop bench: B2, a shape the city did not have yet,
                # read as A3's, was offered only so, and the players had no true option)
                alts = [r for r in readings(entries[c], labels)[1:] if r != t and self._unplayed(r)]
                for r in [t, *alts]:
                    if why_illegal(city, r, c) is None:
                        options.append(self._place_move(r, c, "confirmed"))
                        texts.append(f"{r.token} at {c.name}")
            return Ask(f"{len(added)} tiles at once", tuple(options), tuple(texts), fp(added))
        cell = added[0]
        new = seen[cell]
        if new is None:
            # no tile is laid face down: one read so is misread (a lamp's glare, a blur),
            # and Other... lets the players name it (alerts game 5057: an illegal B1)
            return Ask(f"Face-down tile at {cell.name}", (), (), fp(added),
                       self._about(cell, "??", centres.get(cell), backs))
        verdict = judged(cell, new, fp(added), ask=True)
        if isinstance(verdict, Illegal) and verdict.reason is Reason.NOT_TOUCHING:
            # a new tile that touches nothing, beside a tile this look reads where the
            # change map saw nothing: that tile was laid unseen and agreed on as table
            # (fresh loop game 414: A2 straddled the reader's lattice lines until A3 came),
            # so it is asked first; called "Not a move", the alert follows on the next look
            bridge = next((q for q in self._quiet_now if (q.cell.row - cell.row, q.cell.col - cell.col) in SIDES), None)
            if bridge is not None:
                return self._ask_quiet(bridge)
        return verdict

    def _faint(self, quiet: dict[Cell, dict[str, Any]], labels: Labels, pitch: float) -> None:
        """This look's tiles to ask about (`_quiet_now`): read beside the city, legal there,
        where the change map saw nothing, before the table is agreed on, since agreeing
        would make them background for good. Such a tile is too faint to change its cell on a table of its
        own colour (a pale outline on white, game 86) or the reader's phantom, which the
        players then call "Not a move" once. (Kept for the look after the move when this
        look proposes one: see _took.)"""
        self._quiet_now = []
        for cell in sorted(quiet):
            e = quiet[cell]
            tile = labels.tile(e.get("shape"), e.get("colour"))
            if tile is not None and self._askable(cell, tile):
                at = point_mm(e.get("centre_mm"))
                self._quiet_now.append(_Quiet(cell, tile, (_rect(at, cell, pitch),), at))

    def _still_owed(self, owed: list[_Quiet]) -> Ask | None:
        """The first question owed from the look before the move that is still one to ask,
        with the tile's place as that look saw it."""
        for q in owed:
            if self._askable(q.cell, q.tile):
                if q.at is not None:
                    self._asked = {q.cell: q.at}
                return self._ask_quiet(q)
        return None

    def _unplayed(self, tile: Tile) -> bool:
        """Whether a tile can still be laid: the box holds each once, so not one in the city
        or turned over (the state's prior on what a reading can be)."""
        return not self.game_state.city.contains(tile) and tile not in self.game_state.turned_over

    def _askable(self, cell: Cell, tile: Tile) -> bool:
        """A tile read where nothing changed is one to ask about: its cell empty and not
        called "Not a move", the tile not in the city nor turned over, and legal there."""
        city = self.game_state.city
        return cell not in self._placed() and cell not in self._quiet_declined and self._unplayed(tile) \
            and why_illegal(city, tile, cell) is None

    def _ask_quiet(self, q: _Quiet) -> Ask:
        """The question about a tile read where nothing changed ("c2 at A2?"), kept so that
        "Not a move" marks its cell (not_a_move)."""
        move = self._place_move(q.tile, q.cell, "confirmed")
        text = _option_text(move)
        ask = Ask(f"{text}?", (move,), (text,), q.footprint)
        self._quiet_asked = (q.cell, ask)
        return ask

    def _judge(self, cell: Cell, tiles: list[Tile], footprint: tuple[Rect, ...],
               ask: bool = False, elsewhere: list[Tile] | None = None) -> Verdict:
        """The new tile's verdict from its readings, the top one first. The state is a
        prior on what the tile can be (not one the city holds or turned over), never on
        where it may go: a top reading that breaks a placement rule is never taken for
        a legal alternative, or every hesitation of the reader could hide an illegal
        placement. With `ask`, when the reader hesitated between the top reading and one
        the rules judge otherwise (one legal, one not), the players are asked which tile
        it is ("B1: f1 or c1?"), both offered: an illegal one picked is alerted
        (IllegalMove from _apply). Otherwise a misread alert is fixed by the players
        (Misread? Fix). `elsewhere` (Labels.elsewhere) are offered only against an
        illegal top reading: against a legal one too they asked 57 more questions on dev
        games 7000-7079 (193 -> 250) and gained no alert."""
        city = self.game_state.city

        def free(ts: list[Tile]) -> list[Tile]:
            return [t for t in ts if self._unplayed(t)]

        possible = free(tiles)
        top = possible[0] if possible else tiles[0]
        reason = why_illegal(city, top, cell)
        if reason is not None and elsewhere:
            possible += [t for t in free(elsewhere) if t not in possible]
        if ask:
            # every such reading is offered (up to HESITATION_OPTIONS): with a city tile
            # unread, a new label may be its shape or its colour (Labels.unvoted), and
            # offering only the first left the truth out (alerts game 5006: "C2: d3 or d1?"
            # for a b3, and the legal d3 was applied)
            others = [t for t in possible[1:] if (why_illegal(city, t, cell) is None) != (reason is None)]
            if others:
                picks = [top, *others[:HESITATION_OPTIONS - 1]]
                options = tuple(self._place_move(t, cell, "confirmed") for t in picks)
                names = [t.token for t in picks]
                self._hesitation = Ask(f"{cell.name}: {', '.join(names[:-1])} or {names[-1]}?", options,
                                       tuple(_option_text(m) for m in options), footprint)
                return self._hesitation
        move = self._place_move(top, cell, "seen")
        if reason is None:
            return Proposed(move, f"{top.token} at {cell.name}", footprint)
        return Illegal(move, reason.short,
                       f"{top.token} at {cell.name}: {reason.sentence} [{self.game_state.notation()}]",
                       footprint, reason)

    def _place_move(self, tile: Tile | None, cell: Cell, source: str) -> Move:
        """Laying `tile` at `cell` now; with no tile, a question's tile it could not read
        (Ask.about)."""
        piece = {} if tile is None else {"tile": tile.token}
        if self.game_state.city.is_empty:
            return {"type": "pioneer", **piece, "cell": cell.name, "source": source}
        move: Move = {"type": "place", "player": self.game_state.turn, **piece,
                      "cell": cell.name, "source": source}
        if self._rename is not None:
            axis, old, new = self._rename
            move["rename"] = {"axis": AXES[axis], "from": old, "to": new}
        return move

    def _about(self, cell: Cell, read: str, at: tuple[float, float] | None,
               backs: list[Cell]) -> Move | None:
        """Ask.about for a tile at `cell` not read (`read` what was, "c?"), or None where
        no tile may go (dev alerts game 7024: B4, touching nothing of a city that missed
        tiles, named from Other... and alerted though legal on the table) or on a look
        that read face-up city tiles face down (`backs`; dev alerts game 7046: on a lattice
        at 0.6 of the pitch the gaps read as backs, A2 among them, and the place the
        players' pick stood at numbered the next looks wrong). Records where the tile was
        seen, for the pick to stand at (_asked)."""
        if backs or not any(self._unplayed(t) and is_legal(self.game_state.city, t, cell) for t in ALL_TILES):
            return None
        if at is not None:
            self._centres[cell] = at
        return dict(self._place_move(None, cell, "confirmed"), read=read)

    def _renamed(self, rename: tuple[int, int, int]) -> RefereeGame | None:
        """The game with a name given twice merged (RefereeGame.rename), or None when the
        city refuses it (the two names share a line: not one shape or colour after all)."""
        game = copy.deepcopy(self.game_state)
        try:
            game.rename(*rename)
        except RulesError:
            return None
        return game

    @contextmanager
    def _like(self, move: Move) -> Iterator[None]:
        """Judge as the look that made `move` did: with the renaming it carries, while the
        city still takes it."""
        rename = _rename_of(move)
        game = self._renamed(rename) if rename is not None else None
        if rename is None or game is None:
            yield
            return
        with self._renaming(game, rename):
            yield

    @contextmanager
    def _renaming(self, game: RefereeGame, rename: tuple[int, int, int]) -> Iterator[None]:
        """Judge with `game` (the state renamed) as the state, and have every move made
        meanwhile carry the renaming, so that the journal holds it with the move."""
        saved = self.game_state
        self.game_state, self._rename = game, rename
        try:
            yield
        finally:
            self.game_state, self._rename = saved, None

    # -- changing the state ---------------------------------------------------------------
    def _apply(self, move: Move) -> Applied:
        g = self.game_state
        kind = move.get("type")
        if kind == "pioneer":
            tile = Tile.parse(str(move["tile"]))
            if not g.city.is_empty:
                raise CouldNotRead(f"pioneer {tile.token} on a city that is not empty [{g.notation()}]")
            fresh = RefereeGame(g.players, tile)
            self.game_state = fresh
            self._took(Cell(0, 0), move)
            return Applied(f"Pioneer {tile.token}")
        if kind == "place":
            tile = Tile.parse(str(move["tile"]))
            cell = Cell.parse(str(move["cell"]))
            rename = _rename_of(move)
            if rename is not None:
                # on a copy: the state changes only if the tile is applied
                g = copy.deepcopy(g)
                g.rename(*rename)        # CouldNotRead naming why, when the city refuses it
            result = g.place(int(move.get("player", g.turn)), tile, cell)
            if not result.applied:
                if result.reason is not None:
                    # the players picked an illegal reading (the option of a question of which tile it is): it is
                    # an illegal placement, alerted like one seen
                    raise IllegalMove(result.message or f"{tile.token} at {cell.name}: illegal",
                                      result.reason)
                raise CouldNotRead(result.message or f"{tile.token} at {cell.name} refused")
            self.game_state = g
            self._took(cell, move)
            return Applied(f"P{int(move.get('player', 0)) + 1}: {tile.token} {cell.name}")
        if kind == "turn_over":
            cell = Cell.parse(str(move["cell"]))
            tile = g.turn_over(cell)
            return Applied(f"{tile.token} turned over")
        if kind == "leave":
            player = int(move["player"])
            g.leave(player)
            return Applied(f"P{player + 1} leaves", over=g.is_over())
        if kind == "end":
            counts = [int(n) for n in move.get("tiles_left", [])]
            for p, n in enumerate(counts[: g.players]):
                g.set_tiles_left(p, n)
            self.finished = True
            return Applied("Game over", over=True)
        raise CouldNotRead(f"unknown town77 move {move!r}; the journal may be from a newer version")

    def _took(self, cell: Cell, move: Move) -> None:
        """After a tile is applied: the places of the look that proposed it are the
        city's; the others of a "tiles at once" question the players answered with this
        one are read on the next looks whatever changed."""
        if self._proposed is not None and self._proposed[0] == cell:
            self._city_mm = self._proposed[1]
            self._grid = self._look_grid
            # a picked tile this look saw stands where it was seen now, not where the
            # look that asked about it put it
            self._picked = {c: q for c, q in self._picked.items() if c not in self._city_mm}
        elif cell in self._asked:
            self._picked[cell] = self._asked[cell]
        self._proposed = None
        self._asked = {}
        if cell in self._together and (move.get("source") == "confirmed" or cell in self._pending):
            # the players picked this one, or it was left from their last answer
            self._pending = (self._pending | self._together) - {cell}
        self._together = set()
        self._pending.discard(cell)
        # a tile this look read beside the city where the change map saw nothing is asked
        # about (_faint) only by a look with no new tile; with the move applied, the table
        # is agreed with it in, and the next looks may not read it again (loop game 213: D1
        # in a lamp's spot, read once, beside C2). The look right after asks it.
        self._owed = [q for q in self._quiet_now if self._askable(q.cell, q.tile)]
        self._quiet_now = []

    def undo(self) -> Move | None:
        if not self.moves:
            return None
        last = self.moves[-1]
        keep = self.moves[:-1]
        rebuilt = Town77Session(self.options)
        for m in keep:
            rebuilt.apply(m)
        self.__dict__.update(rebuilt.__dict__)
        return last

    # -- menus and end ------------------------------------------------------------------------
    def actions(self) -> list[Action]:
        g = self.game_state
        if g.is_over() or self.finished or g.city.is_empty:
            return []
        return [Action(f"P{g.turn + 1} leaves", {"type": "leave", "player": g.turn})]

    def fixes(self, undone: Move) -> list[Action]:
        if undone.get("type") not in ("place", "pioneer") or "cell" not in undone:
            return []
        with self._like(undone):       # an alert on a look that merged a name: fixed so
            return self._fixes(undone)

    def _fixes(self, undone: Move) -> list[Action]:
        cell = Cell.parse(str(undone["cell"]))
        city = self.game_state.city
        read = Tile.parse(str(undone["tile"])) if "tile" in undone else None

        def likeness(t: Tile) -> int:
            # a misreading usually gets one of shape and colour wrong, not both
            return 0 if read is not None and (t.shape == read.shape or t.colour == read.colour) else 1

        out = []
        for t in sorted(ALL_TILES, key=likeness):
            if t != read and t not in self.game_state.turned_over \
                    and why_illegal(city, t, cell) is None:
                move = self._place_move(t, cell, "fix")
                out.append(Action(f"{t.token} at {cell.name}", move))
        return out

    def others(self, verdict: Ask) -> list[Action]:
        """Every tile not in the city that the one a question names may be, when all of
        its options are wrong (loop game 50: "C3: g2, g4, g0 or g3?" with the shape
        misread on every option). Illegal ones included: one picked is alerted. Those
        sharing a shape or colour with the first option come first, then those sharing one
        with any option: a misreading usually gets one of the two wrong. A question about
        a tile not read (Ask.about) lists them all, those like what was read first."""
        about = verdict.about
        if about is not None and not verdict.candidates:
            if about.get("type") not in ("place", "pioneer") or "cell" not in about:
                return []
            with self._like(about):
                return self._unread_others(Cell.parse(str(about["cell"])), str(about.get("read", "??")))
        moves = verdict.candidates
        if not moves or any(m.get("type") not in ("place", "pioneer") or "tile" not in m
                            or m.get("cell") != moves[0].get("cell") for m in moves):
            return []
        with self._like(moves[0]):     # the question's look may have merged a name
            return self._others(moves)

    def _others(self, moves: tuple[Move, ...]) -> list[Action]:
        cell = Cell.parse(str(moves[0]["cell"]))
        offered = [Tile.parse(str(m["tile"])) for m in moves]

        def likeness(t: Tile) -> tuple[int, str]:
            def near(o: Tile) -> bool:
                return t.shape == o.shape or t.colour == o.colour
            return (0 if near(offered[0]) else 1 if any(near(o) for o in offered) else 2), t.token

        return self._listed([t for t in sorted(ALL_TILES, key=likeness) if t not in offered], cell)

    def _unread_others(self, cell: Cell, read: str) -> list[Action]:
        """Other... for a tile not read: every tile, those agreeing most with `read` first."""
        def likeness(t: Tile) -> tuple[int, str]:
            return -sum(r == k for r, k in zip(read, t.token)), t.token
        return self._listed(sorted(ALL_TILES, key=likeness), cell)

    def _listed(self, tiles: list[Tile], cell: Cell) -> list[Action]:
        """Other...'s entries: each of `tiles` still to be laid, at `cell`."""
        out = []
        for t in tiles:
            if self._unplayed(t):
                move = self._place_move(t, cell, "confirmed")
                out.append(Action(_option_text(move), move))
        return out

    def end_questions(self) -> list[Setting]:
        return [Setting(f"p{p + 1}", f"P{p + 1} tiles left", tuple(range(0, 13)), 0)
                for p in range(self.game_state.players)]

    def finish(self, answers: dict[str, Any]) -> Move:
        return {"type": "end",
                "tiles_left": [int(answers.get(f"p{p + 1}", 0)) for p in range(self.game_state.players)]}

    def is_over(self) -> bool:
        return self.finished

    # -- screens ---------------------------------------------------------------------------------
    def status_screen(self) -> Image.Image:
        g = self.game_state
        if g.city.is_empty:
            return scr.text_screen("Town 77", ["Place the", "Pioneer at A1"])
        placed = len(g.city.tiles())
        if g.is_over():
            return scr.text_screen(f"Town 77  {placed} placed", ["All left", "MENU: end game"])
        return t77.turn_screen(g.turn, placed)

    def applied_screen(self, move: Move) -> Image.Image | None:
        """The placement just accepted: cell big, tile, OK (firmware.screens.town77)."""
        if move.get("type") not in ("place", "pioneer"):
            return None
        player = move.get("player") if move.get("type") == "place" else None
        return t77.placement_screen(Cell.parse(str(move["cell"])), Tile.parse(str(move["tile"])),
                                    True, player)

    def illegal_screen(self, verdict: Illegal) -> Image.Image | None:
        reason = why_illegal(self.game_state.city, Tile.parse(str(verdict.move["tile"])),
                             Cell.parse(str(verdict.move["cell"])))
        if reason is None:
            return None
        return t77.illegal_screen(Cell.parse(str(verdict.move["cell"])), reason)

    def question_screen(self, key: str, value: Any) -> Image.Image | None:
        if key.startswith("p") and key[1:].isdigit():
            return t77.tiles_left_screen(int(key[1:]) - 1, int(value))
        return None

    def result_screen(self) -> Image.Image:
        try:
            ranking = self.game_state.ranking()
        except Exception:  # noqa: BLE001  no counts entered: nothing to rank
            return scr.text_screen("Game over", ["No ranking"])
        return t77.ranking_screen(ranking)

    def summary(self) -> dict[str, Any]:
        g = self.game_state
        out: dict[str, Any] = {"game": self.game, "notation": g.notation(),
                               "moves": len(self.moves), "finished": self.finished}
        if self.finished:
            out["ranking"] = [[s.player, s.rank, s.tiles_left] for s in g.ranking()]
        return out


def _pitch(centres: dict[Cell, tuple[float, float]]) -> float:
    """Cell pitch in mm from the observed tile centres (the synthetic and real cities vary)."""
    est = []
    items = list(centres.items())
    for i, (a, pa) in enumerate(items):
        for b, pb in items[i + 1:]:
            d = abs(a.row - b.row) + abs(a.col - b.col)
            if d == 1:
                est.append(((pa[0] - pb[0]) ** 2 + (pa[1] - pb[1]) ** 2) ** 0.5)
    if not est:
        return DEFAULT_PITCH_MM
    est.sort()
    return float(est[len(est) // 2])


def _rect(centre: tuple[float, float] | None, cell: Cell, pitch: float) -> Rect:
    """Where placing a tile at `cell` may change pixels: the cell and a margin for the
    tile being slightly off the grid."""
    if centre is None:
        return (0.0, 0.0, 0.0, 0.0)
    h = 0.6 * pitch
    return (centre[0] - h, centre[1] - h, centre[0] + h, centre[1] + h)


KIND = GameKind(
    name="town77",
    title="Town 77",
    settings=(Setting("players", "Players", tuple(range(MIN_PLAYERS, MAX_PLAYERS + 1)), 2),),
    make=lambda options: Town77Session(options),
)


def _confirmable(verdict: Verdict) -> tuple[Move, ...]:
    """A legal reading as a question's one option, for the players to confirm."""
    return (dict(verdict.move, source="confirmed"),) if isinstance(verdict, Proposed) else ()


def _partial(read: tuple[int | None, int | None]) -> str:
    """A tile read in part, as a token with "?" for what was not read: "c?"."""
    shape, colour = read
    return ("?" if shape is None else SHAPE_LETTERS[shape]) + ("?" if colour is None else str(colour))


def _option_text(move: Move) -> str:
    """A placement as a question's option says: "d4 at A2"."""
    return f"{move['tile']} at {move['cell']}"


def _rename_of(move: Move) -> tuple[int, int, int] | None:
    """A place move's renaming (axis, from, to), or None; a bad one raises CouldNotRead."""
    r = move.get("rename")
    if r is None:
        return None
    try:
        return AXES.index(r["axis"]), int(r["from"]), int(r["to"])
    except (TypeError, KeyError, ValueError):
        raise CouldNotRead(f"bad rename {r!r} in move {move!r}; write "
                           '{"axis": "shape" or "colour", "from": 0-6, "to": 0-6}') from None
