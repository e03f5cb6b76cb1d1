"""Which cells of a tile grid the players changed since the last accepted look.

The reader's view of a whole city is noisy: in a frame of 30 tiles one is read in
another group, a knot in the wood reads as a tile, a tile under glare is missed. The
loop knows where the table's pixels changed since the game last agreed with it
(firmware.motion.ChangeMap), and a tile game changes one or two cells per move. So a
cell whose pixels stayed put keeps what the game state says, and only the changed cells
are read; a misreading elsewhere can no longer turn a good move into a question.

The reader numbers cells from the top-left tile it found; a phantom above or left of
the city would shift every index, so the observation is first re-anchored on the
unchanged tiles of the state. This also lets a tile laid above or left of the pioneer
be seen as what it is: a placement outside the area.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from firmware.games.base import point_mm
from firmware.motion import ChangeMap

CellRC = tuple[int, int]   # (row, col)

CHANGED = 0.08
"""A cell changed when this share of its middle changed (a tile laid or turned over
changes most of it; a neighbour's shadow or a tile's thick side only its rim)."""
MIDDLE = 0.3
"""Half-size of the middle of a cell that is compared, in pitches."""
EMPTY_CHANGED = 0.12
"""An empty cell beside the city whose middle changed this much while no tile was read
there is looked at again rather than taken as bare table."""
SHIFT = 2
"""Re-anchoring tries index offsets up to this many cells each way."""
ANCHOR_NEAR = 0.5
"""A read tile is where a state tile was seen when within this many pitches of it."""
SPILL = 2.0
"""A new tile away from the city is something else when the changed region under its
middle is larger than this many cells (beyond the new tiles beside the city in it): a tile laid changes its own
cell (and its shadow's rim), a cup, a bag or an arm far more."""
SPILL_FIRST = 3.0
"""The same for the first tile, which has no city to stand beside: the lattice of a lone
tile is the reader's least sure (a symbol's width, or a cell of the print), and a pitch
read small makes the tile's own change look large; a cup is still several cells."""


@dataclass
class Settled:
    """The observation with the unchanged cells taken from the state."""

    entries: dict[CellRC, dict[str, Any]] = field(default_factory=dict)
    """Tiles read in changed cells, plus the unchanged cells of the state (as read, so
    their labels still vote), keyed by the state's cell numbering."""
    kept: set[CellRC] = field(default_factory=set)
    """State cells whose pixels did not change: they hold what the state says."""
    unexplained: list[CellRC] = field(default_factory=list)
    """Empty cells beside the city that changed with no tile read there."""
    foreign: list[CellRC] = field(default_factory=list)
    """Tiles read where far more than a tile changed (a cup, a bag, an arm): dropped."""
    offset: CellRC = (0, 0)
    quiet: dict[CellRC, dict[str, Any]] = field(default_factory=dict)
    """Face-up tiles read beside the city where the change map saw nothing: bare table
    to the map (the reader's phantom), or a tile too faint on its table to change it."""
    moved: set[CellRC] = field(default_factory=set)
    """The cells of `entries` whose tile's middle changed."""


Axes = tuple[float, tuple[float, float], tuple[float, float], tuple[float, float]]
SIDES = ((-1, 0), (1, 0), (0, -1), (0, 1))
"""The (row, col) steps to the four cells sharing a side with a cell."""


def lattice_axes(grid: dict[str, Any] | None) -> Axes | None:
    """(pitch, origin centre, x axis, y axis) of the reader's lattice, or None."""
    if not isinstance(grid, dict):
        return None
    try:
        pitch = float(grid["pitch_mm"])
        a = math.radians(float(grid["angle_deg"]))
        ox, oy = (float(v) for v in grid["origin_mm"])
    except (KeyError, TypeError, ValueError):
        return None
    if not (pitch > 0 and math.isfinite(pitch + a + ox + oy)):
        return None
    return pitch, (ox, oy), (math.cos(a), math.sin(a)), (-math.sin(a), math.cos(a))


MISFIT = 0.3
"""A look's lattice is not the city's when a known cell centre lies this many pitches
from its nearest node (a hand, a cup or a phantom bent the reader's fit)."""


def lattice_uv(axes: Axes, point: tuple[float, float]) -> tuple[float, float]:
    """(u, v): where `point` (table mm) lies on a lattice, in pitches along its x and y
    axes from the centre of cell (0, 0); cell (row, col) is (round(v), round(u))."""
    pitch, origin, ux, uy = axes
    dx, dy = point[0] - origin[0], point[1] - origin[1]
    return (dx * ux[0] + dy * ux[1]) / pitch, (dx * uy[0] + dy * uy[1]) / pitch


def lattice_misfit(grid: dict[str, Any] | None, points_mm: Iterable[tuple[float, float]]) -> float | None:
    """How far (in pitches) the worst of the city's known cell centres lies from the
    nearest node of this lattice, whatever its numbering; None without a usable lattice.
    Measured at the tiles, not at the lattice's origin: a lattice fitted to more tiles
    may differ far away from the city and still be the same where the tiles are."""
    axes = lattice_axes(grid)
    pts = list(points_mm)
    if axes is None or not pts:
        return None
    worst = 0.0
    for p in pts:
        u, v = lattice_uv(axes, p)
        worst = max(worst, math.hypot(u - round(u), v - round(v)))
    return worst


SNAP = 0.3
"""A tile seen this many pitches (or more, along either axis) from every node of the
city's lattice lies between cells: the city's numbering cannot place it."""
PAIR_PITCH = 0.2
"""Two tiles' places give the city's lattice only if its pitch is no more than this share
short of the reader's (each print may lie a tenth of a cell or so off its tile's middle)."""
FIT = 0.2
"""The city's known tiles must lie this close (in pitches) to the lattice fitted to them
for it to number a look (a city nudged apart is left to the reader's numbering)."""


def city_lattice(known: dict[CellRC, tuple[float, float]],
                 pitch_mm: float | None = None) -> dict[str, Any] | None:
    """The lattice (in the reader's grid format, numbered as the state) that lays the
    state's cells on where their tiles were last seen, or None with fewer than two
    tiles or when they do not lie on one lattice.

    The reader numbers a look from its own lattice, which a hand, a cup or a phantom
    can shift by a whole cell while every tile is still seen where it lies; the places
    the game agreed on are the better measure of which cell a tile is in.

    Two places fit exactly, so nothing checks them but `pitch_mm` (the reader's pitch
    when the tiles were applied): a pair nearer than PAIR_PITCH short of it is not
    taken (loop bench game 322: a crescent's print a quarter cell off its tile's
    middle made a 34 mm lattice of a 45 mm city, and the next tile was numbered a cell
    too far), and the lattice then has the reader's pitch and the pair's direction,
    through their middle, if both still lie within FIT of it: two places nearly one
    give None (game 206: a tile picked where the pioneer's print was seen). A pair
    further apart than the reader's pitch stands: the reader's known failure is a
    lattice a print's width fine (game 43: 24 mm where the pair's 29 and the city's 37)."""
    if len(known) < 2:
        return None
    # x = ox + p*c - q*r ; y = oy + q*c + p*r  (a similarity: pitch and angle from p, q)
    n = len(known)
    sc = sum(c for _, c in known) / n
    sr = sum(r for r, _ in known) / n
    sx = sum(x for x, _ in known.values()) / n
    sy = sum(y for _, y in known.values()) / n
    num_p = num_q = den = 0.0
    for (r, c), (x, y) in known.items():
        dc, dr, dx, dy = c - sc, r - sr, x - sx, y - sy
        num_p += dc * dx + dr * dy
        num_q += dc * dy - dr * dx
        den += dc * dc + dr * dr
    if den <= 0:
        return None
    p, q = num_p / den, num_q / den
    pitch = math.hypot(p, q)
    if not pitch > 0:
        return None
    if n == 2 and pitch_mm is not None and pitch < (1.0 - PAIR_PITCH) * pitch_mm:
        # the pair's direction at the reader's pitch, through the middle of the two (FIT
        # then refuses a pair further off: two places nearly one, one not its tile's)
        p, q = p * pitch_mm / pitch, q * pitch_mm / pitch
        pitch = pitch_mm
    ox, oy = sx - p * sc + q * sr, sy - q * sc - p * sr
    for (r, c), (x, y) in known.items():
        if math.hypot(ox + p * c - q * r - x, oy + q * c + p * r - y) > FIT * pitch:
            return None
    return {"pitch_mm": pitch, "angle_deg": math.degrees(math.atan2(q, p)), "origin_mm": [ox, oy]}


def renumber(entries: dict[CellRC, dict[str, Any]], lattice: dict[str, Any] | None,
             city: Iterable[CellRC]) -> dict[CellRC, dict[str, Any]] | None:
    """The reader's tiles keyed by the cell of `lattice` their print lies on, or None
    when one lies between cells in or beside the `city`, has no centre, or two land in
    one cell (the reader's numbering is then all there is).

    Something seen between cells away from the city cannot be a tile of it (every
    placement touches the city): it is keyed by its nearest cell, so a cup read as a
    few tiles does not hand the look back to the reader's (then bent) lattice."""
    axes = lattice_axes(lattice)
    if axes is None:
        return None
    near = {(r + a, c + b) for r, c in city for a in (-1, 0, 1) for b in (-1, 0, 1)}
    out: dict[CellRC, dict[str, Any]] = {}
    for e in entries.values():
        p = point_mm(e.get("centre_mm"))
        if p is None:
            return None
        u, v = lattice_uv(axes, p)
        cell = (round(v), round(u))
        if max(abs(u - round(u)), abs(v - round(v))) > SNAP and cell in near:
            return None
        if cell in out:
            return None
        out[cell] = e
    return out


AGREE = 0.3
"""A tile seen this many pitches from where the rest of the city puts it (or from
where it was last seen) was not seen: a phantom numbered into its cell, or a print
read half off."""


def merge_seen(known: dict[CellRC, tuple[float, float]], seen: dict[CellRC, tuple[float, float]],
               cells: Iterable[CellRC], pitch: float) -> dict[CellRC, tuple[float, float]]:
    """Where the city's `cells` lie after a look the game agreed with: a tile's new place
    is taken when it agrees with its last one or with the lattice of the others, and a
    tile not seen (or seen where it cannot be) keeps its last place.

    One look can number a phantom into a known cell, and a lone pioneer's print can be
    read a little off; neither may become the measure of the next looks."""
    out: dict[CellRC, tuple[float, float]] = {}
    cells = list(cells)
    for c in cells:
        p, old = seen.get(c), known.get(c)
        if p is not None:
            near = [old] if old is not None else []
            others = {k: v for k, v in known.items() if k != c and k in cells}
            lat = lattice_axes(city_lattice(others))
            if lat is not None:
                step, origin, ux, uy = lat
                near.append((origin[0] + step * (c[1] * ux[0] + c[0] * uy[0]),
                             origin[1] + step * (c[1] * ux[1] + c[0] * uy[1])))
                pitch = step
            if not near or any(math.dist(p, q) <= AGREE * pitch for q in near):
                out[c] = p
                continue
        if old is not None:
            out[c] = old
    return out


def tile_entries(observation: dict[str, Any]) -> dict[CellRC, dict[str, Any]]:
    """The reader's tiles by its own (row, col); entries without a usable cell are skipped."""
    out: dict[CellRC, dict[str, Any]] = {}
    for t in observation.get("tiles", []):
        try:
            out[(int(t["row"]), int(t["col"]))] = t
        except (KeyError, TypeError, ValueError):
            continue
    return out


def _middle(centre: tuple[float, float], pitch: float) -> tuple[float, float, float, float]:
    h = MIDDLE * pitch
    return centre[0] - h, centre[1] - h, centre[0] + h, centre[1] + h


def _node(axes: Axes, rc: CellRC) -> tuple[float, float]:
    """The centre (table mm) of cell (row, col) on a lattice."""
    pitch, origin, ux, uy = axes
    r, c = rc
    return (origin[0] + pitch * (c * ux[0] + r * uy[0]),
            origin[1] + pitch * (c * ux[1] + r * uy[1]))


def _beside(cells: set[CellRC]) -> set[CellRC]:
    """The cells sharing a side with one of `cells`, not among them."""
    return {(r + a, c + b) for r, c in cells for a, b in SIDES} - cells


def _changed(change: ChangeMap, centre: tuple[float, float], pitch: float, share: float,
             outside: float) -> bool:
    """More than `share` of the middle of the cell at `centre` changed (`outside`: the
    share counted for a middle reaching off the view)."""
    return change.fraction(_middle(centre, pitch), outside) > share


def _anchor(unchanged: dict[CellRC, tuple[float, float]], expected: set[CellRC],
            seen: dict[CellRC, tuple[float, float]], near: float) -> CellRC:
    """The index offset that lays most unchanged read tiles on tiles of the state (no
    shift on a tie: the reader's own numbering is right unless shown otherwise).

    `unchanged` holds the read tiles' centres (table mm) and `seen` where the state's
    tiles were seen. A read tile laid on a state tile seen more than `near` mm away
    counts against the offset: when the table holds tiles the state has not taken
    (a question answered with one of several), they can outnumber the state's own, and
    an offset that lays them on the city would renumber every tile."""
    def score(dr: int, dc: int) -> int:
        n = 0
        for (r, c), p in unchanged.items():
            cell = (r + dr, c + dc)
            if cell not in expected:
                continue
            q = seen.get(cell)
            n += 1 if q is None or math.hypot(p[0] - q[0], p[1] - q[1]) <= near else -1
        return n

    best, best_score = (0, 0), score(0, 0)
    for dr in range(-SHIFT, SHIFT + 1):
        for dc in range(-SHIFT, SHIFT + 1):
            sc = score(dr, dc)
            if sc > best_score:
                best, best_score = (dr, dc), sc
    return best


def settle(entries: dict[CellRC, dict[str, Any]], expected: set[CellRC],
           grid: dict[str, Any] | None, change: ChangeMap,
           always: Callable[[CellRC], bool] | None = None,
           seen: dict[CellRC, tuple[float, float]] | None = None,
           city: dict[str, Any] | None = None,
           laid_in: Callable[[CellRC], bool] | None = None) -> Settled:
    """Split one observation into the cells the players changed (read them) and the
    ones they did not (trust the state). `entries` are the reader's tiles by its own
    (row, col); `expected` the occupied cells of the state; cells for which `always`
    holds (the Challenge's pile tops, which the state does not hold) are always read;
    `seen` is where state tiles were seen (table mm), which re-anchoring must agree with;
    `city` is the lattice of those places (city_lattice) when the reader's own lattice
    could not be laid on it (see `_unread_beside`); `laid_in` holds for the cells a tile
    may be laid in (beside the city but outside it, a large change is something else)."""
    axes = lattice_axes(grid)
    if axes is None:
        return Settled(dict(entries))
    pitch = axes[0]

    def centre_of(rc: CellRC) -> tuple[float, float]:
        return _node(axes, rc)

    def changed(centre: tuple[float, float], share: float = CHANGED, outside: float = 1.0) -> bool:
        return _changed(change, centre, pitch, share, outside)

    # where each read tile is (its print's centre, else its cell's), worked out once
    centres = {rc: point_mm(e.get("centre_mm")) or centre_of(rc) for rc, e in entries.items()}
    moved = {rc: changed(p) for rc, p in centres.items()}
    unchanged = {rc: centres[rc] for rc, m in moved.items() if not m}
    dr, dc = _anchor(unchanged, expected, seen or {}, ANCHOR_NEAR * pitch) if expected else (0, 0)
    out = Settled(offset=(dr, dc))

    def to_state(rc: CellRC) -> CellRC:
        return rc[0] + dr, rc[1] + dc

    def beside_city(rc: CellRC) -> bool:
        r, c = to_state(rc)
        return any((r + a, c + b) in expected for a, b in SIDES)

    def regions(rc: CellRC) -> frozenset[int]:
        return change.regions(_middle(centres[rc], pitch))

    def spills(rc: CellRC) -> bool:
        inside = laid_in is None or laid_in(to_state(rc))
        if beside_city(rc) and inside:
            # beside the city a new tile is the likely thing, with a cup or its shadow
            # perhaps touching it; a phantom there is the reader's to avoid. Outside the
            # area tiles may be laid in, a cup is the likelier, and its region is not the
            # city's to explain (loop bench game 18: a cup left of the pioneer's column,
            # its shade over the whole city, read as a tile, and the new tile was lost)
            return False
        mine = regions(rc)
        area = change.area_mm2(mine)
        if area <= (SPILL if expected else SPILL_FIRST) * pitch * pitch:
            return False
        # a new tile beside the city may share the region (two laid side by side), and
        # with no city yet so may any tile read there (the pioneer missed while the next
        # tiles were laid by it: without this the region always spills, and the game
        # never starts)
        tiles = [o for o, m in moved.items()
                 if m and o != rc and (beside_city(o) or not expected)
                 and (inside or to_state(o) not in expected) and regions(o) & mine]
        return area > (SPILL + 1.5 * len(tiles)) * pitch * pitch

    for (r, c), e in entries.items():
        cell = to_state((r, c))
        if moved[(r, c)] and cell not in expected and not (always is not None and always(cell)) \
                and spills((r, c)):
            out.foreign.append(cell)
            continue
        if moved[(r, c)] or cell in expected or (always is not None and always(cell)):
            # changed: the reader decides; unchanged on the state: kept (labels still vote)
            out.entries[cell] = e
            if moved[(r, c)]:
                out.moved.add(cell)
        elif beside_city((r, c)) and not e.get("face_down"):
            out.quiet[cell] = e
        # unchanged and not on the state: what the reader made of bare table
    for cell in expected:
        rc = (cell[0] - dr, cell[1] - dc)
        if not (moved[rc] if rc in moved else changed(centre_of(rc))):
            out.kept.add(cell)
    for cell in sorted(_beside(expected) - set(out.entries)):
        if changed(centre_of((cell[0] - dr, cell[1] - dc)), EMPTY_CHANGED, 0.0):
            out.unexplained.append(cell)
    if city is not None:
        out.unexplained += [c for c in _unread_beside(city, expected, change, centres.values())
                            if c not in out.unexplained]
    return out


def _unread_beside(city: dict[str, Any], expected: set[CellRC], change: ChangeMap,
                   read: Iterable[tuple[float, float]]) -> list[CellRC]:
    """Cells beside the city, on the city's own lattice, whose middle changed with no
    read tile near: a look on a lattice far off the city (a symbol's width, a mat's
    lines) reads its tiles elsewhere, and the unexplained check made on that lattice
    looks at the wrong places, so a new tile would be taken for bare table and the
    table with it agreed on (the move then lost for good)."""
    axes = lattice_axes(city)
    if axes is None:
        return []
    pitch = axes[0]
    points = list(read)
    out = []
    for cell in sorted(_beside(expected)):
        centre = _node(axes, cell)
        if _changed(change, centre, pitch, EMPTY_CHANGED, 0.0) and \
                all(math.hypot(p[0] - centre[0], p[1] - centre[1]) > ANCHOR_NEAR * pitch for p in points):
            out.append(cell)
    return out
