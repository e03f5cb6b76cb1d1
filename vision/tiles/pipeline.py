"""The tile reader's stages composed: table view -> grid -> candidate cells -> per-cell
look -> tile or not, face down or up -> shape and colour groups -> palette names."""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass, field, replace
from collections.abc import Callable
from typing import Any, NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.colour import ColourReference, measure_reference
from calibration.geometry import TableFit
from calibration.profile import TableProfile
from vision.tiles.config import TilesConfig
from vision.tiles.crops import glared_crops, normalise_crop, normalise_crops, one_thread, shoulder, to_lab
from vision.tiles.face import CellGeometry, CellLook, analyse_cell, shape_distances, with_pale
from vision.tiles.grid import (GridFit, Outline, fit_grid, half_shifts, mid_offsets, print_strokes, quarter_turn,
                               refine_grid, table_near, tile_outline, widest_print_mm)
from vision.tiles.group import agglomerate, agglomerate_cut, hesitations, one_of_each, pairwise
from vision.tiles.occupancy import (cell_stats, cell_table, coarse_candidates, hue_backs, is_hue_tile, is_tile,
                                    lab_planes, printed, rows_score, side_steps, spread_backs)
from vision.tiles.palette import name_groups
from vision.tiles.trust import SIDE_STEPS, anchored, side_groups
from vision.tiles.view import grid_view_matrix, table_view_matrix, warp_view

F64 = NDArray[np.float64]


@dataclass
class TileReading:
    col: int                      # lattice cell (absolute, before re-basing at the pioneer)
    row: int
    centre_mm: tuple[float, float]
    face_down: bool
    look: CellLook
    shape_group: int | None = None
    colour_group: int | None = None
    shape: str | None = None      # palette label or "shape-N"
    colour: str | None = None
    colour_lab: F64 | None = None  # the colour that names the tile (symbol's or face's)
    pale: bool = False            # turned up by a print at noise level (CellLook.pale)
    spread: bool = False          # a cell only occupancy.spread_backs looked at: may be a
    # back, but never vouches for the fronts' face (a hand's fingers, loop game 309)
    hued: bool = False            # a plain cell only occupancy.hue_backs looked at: its hue,
    # not its lightness, sets it off the table
    # groups the grouping hesitated to put the tile in instead (group.hesitations;
    # group.OWN_GROUP: one of its own)
    shape_candidates: list[int] = field(default_factory=list)
    colour_candidates: list[int] = field(default_factory=list)
    pile: bool = False            # a pile's top, read alone (vision.tiles.piles)


@dataclass
class TilesReading:
    grid: GridFit | None
    tiles: list[TileReading] = field(default_factory=list)
    origin_cell: tuple[int, int] = (0, 0)      # (col, row) of row 0 / col 0
    reference: str = ""
    shape_groups: int = 0
    colour_groups: int = 0
    colour_on_face: bool = False
    pile_patches: list[dict[str, Any]] = field(default_factory=list)
    """Each pile's patch when a Challenge look's band search found them all
    (vision.tiles.piles.patch_dict), for the game to hand back on later looks."""

    def rc(self, t: TileReading) -> tuple[int, int]:
        return t.row - self.origin_cell[1], t.col - self.origin_cell[0]


def _area(profile: TableProfile) -> tuple[float, float, float, float]:
    x0, y0 = profile.area_origin_mm
    w, h = profile.area_size_mm
    return x0, y0, x0 + w, y0 + h


def read_tiles(image: NDArray[np.uint8], fit: TableFit, profile: TableProfile,
               cfg: TilesConfig | None = None, shapes: int | None = None,
               colours: int | None = None, palette: dict[str, Any] | None = None,
               reference: ColourReference | None = None,
               grid_hint: GridFit | None = None, copies: int | None = None) -> TilesReading:
    """Read every tile of one frame: a first pass on the lattice fitted to edges finds
    the tiles, a second pass reads them on the lattice fitted to their centres.

    grid_hint (the lattice of this table's last reading, in table mm, so a moved camera
    does not spoil it) skips the lattice search when the tiles still sit on it."""
    cfg = cfg or TilesConfig()
    ref = reference or measure_reference(image, fit, profile)
    x0, y0, x1, y1 = _area(profile)
    cpx = cfg.coarse_px_per_mm
    size = (max(8, int(round((x1 - x0) * cpx))), max(8, int(round((y1 - y0) * cpx))))
    coarse = warp_view(image, fit, table_view_matrix((x0, y0), cpx), size)
    centre = np.array([[(x0 + x1) / 2, (y0 + y1) / 2]])
    lab = to_lab(normalise_crop(coarse, ref, centre[0], cfg.glare_knee))
    # the view every cell statistic is taken on, made once (every cell read wants it)
    half_lab, half_px = _half(lab, cfg)
    halved = _HalfView(half_lab, half_px, lab_planes(half_lab))
    area = (x0, y0, x1, y1)

    def where(g: GridFit, prints: tuple[tuple[float, float], ...] = ()) -> list[TileReading]:
        # the reads that place the lattice: half-size crops, and looks that say only
        # where the prints lie (the last read, below, reads every tile in full)
        return _read_cells(image, fit, ref, halved, g, area, cfg, cfg.crop_px // 2, prints=prints, detail=False)

    # the bare table (grid.table_near), found once and only when asked for: a frame read
    # on its last lattice (grid_hint) seldom needs it
    near: Callable[[], NDArray[np.bool_] | None] = functools.cache(lambda: table_near(lab, cpx, cfg))
    grid: GridFit | None = None
    found: list[TileReading] = []
    apart = False     # the hint holds the city but not what lies apart from it
    settled = False   # the hint holds the city, outnumbered by prints apart: kept as it is
    if grid_hint is not None:
        found = where(grid_hint)
        # the city's symbols sit in their cells; a cup or a hand beside it, read on the
        # same lattice, may not (its pieces of print lie anywhere in their cells)
        main = _main_group(found, cfg)
        city = [t for i, t in enumerate(found) if i in main]
        printed_ = sum(t.look.has_symbol and not t.look.faint for t in found)
        held = sum(t.look.has_symbol and not t.look.faint for t in city)
        if _on_lattice(found, cfg):
            grid = grid_hint
        elif held >= 2 and (2 * held >= printed_ or (held >= cfg.hint_city and _alone(found, main)))  \
                and _on_lattice(city, cfg):
            # (the city's group must hold at least half the prints: one tile that
            # happens to sit mid-cell among many that do not says nothing; but a
            # group of a few tiles side by side in their cells, no other print in a
            # cell beside it, is the city, however many pieces of print a cup's rim or
            # a hand scatters apart from it; a lattice half a pitch off cuts every
            # tile of a city into printed cells side by side)
            grid, apart = grid_hint, True
            # outnumbered, the city's lattice is not refitted: a few tiles' refit follows
            # the one a hand left askew (its diagonal neighbours count as sides), and the
            # few tiles' outline lattice (_sparse_grid) takes the strays for tiles
            settled = 2 * held < printed_
    white = float(np.mean(ref.white_at(centre)[0]))
    grey = np.asarray(cv2.cvtColor(coarse, cv2.COLOR_BGR2GRAY), dtype=np.float32) / max(white, 1.0)
    if grid is None:
        half, hpx = halved.lab, halved.px_per_mm
        # a lattice is judged on its cells' averages: every other pixel of the half view
        # serves a cell as wide as judge_sparse_px of them (a quarter the work), a smaller
        # one needs them all (its face ring would be a pixel wide). Print on bare table
        # (a mat's lines) does not make a crowded table.
        table = near()
        bare = None if table is None else np.ascontiguousarray(table[::2, ::2][:half.shape[0], :half.shape[1]])
        quarter = np.ascontiguousarray(half[::2, ::2])
        # (each view's channels laid out as float64 planes once: every lattice is judged on them)
        views = ((half, hpx, bare, halved.planes),
                 (quarter, hpx / 2, None if bare is None else bare[::2, ::2], lab_planes(quarter)))

        def stats(g: GridFit, view: tuple[NDArray[np.float32], float, NDArray[np.bool_] | None, F64],
                  inner: float) -> F64:
            return cell_table(view[0], g, view[1], (x0, y0), area, cfg.face_ring, inner, view[2], view[3])[1]

        def judge(g: GridFit) -> tuple[float, GridFit]:
            # a pale front of about the table's colour is "bare" too: here every print
            # counts, over the whole face inside the ring (an outlined symbol leaves the
            # very centre plain)
            v = views[1] if g.pitch_mm * hpx / 2 >= cfg.judge_sparse_px else views[0]
            return max(((rows_score(stats(s, (v[0], v[1], None, v[3]), cfg.judge_inner), cfg), s)
                        for s in half_shifts(g)), key=lambda js: js[0])

        def crowded(g: GridFit) -> bool:
            v = stats(g, views[0], cfg.centre_fraction)
            return len(v) > 0 and int(np.count_nonzero(printed(v, cfg))) > cfg.outline_tiles

        grid = fit_grid(grey, cpx, (x0, y0), cfg, lab, near(), judge, crowded)
        found = where(grid)
        if not found:
            # a lattice line through a lone tile's print (a face of about the table's
            # colour shows the search little else) hides it from every cell's centre:
            # half a pitch over, one cell holds it
            shifted = half_shifts(grid)[1]
            again = where(shifted)
            if again:
                grid, found = shifted, again
        if not found:
            lone = _lone_print(near(), grid, cpx, (x0, y0), cfg, where)
            if lone is not None:
                grid, found = lone
        picked = _blob_choice(found, grid, near, grey, cpx, (x0, y0), cfg, where)
        if picked is not None:
            grid, found = picked
    # the game's own lattice, its tiles whole and about in their cells: a refit that
    # turns it over took a cell's diagonal for its side (refit_to_tiles); on a searched
    # lattice, pieces of prints cut by it lie at any turn and distance, and are fitted
    # as they always were
    hinted = grid is not None and grid is grid_hint
    coarser = _coarser(found, grid, grey, near, cpx, (x0, y0), cfg, where)
    if coarser is not None:
        grid, found = coarser
    for _ in range(0 if settled else cfg.refits):
        main = _main_group(found, cfg) if apart else set(range(len(found)))
        up = [t.centre_mm for i, t in enumerate(found) if t.look.has_symbol and i in main]
        if not up:
            break
        new = refit_to_tiles(grid, np.array(up), cfg, diagonals=hinted)
        # a small correction does not change which cells hold tiles: no second read
        moved = (abs(new.pitch_mm - grid.pitch_mm) > cfg.reread_pitch * grid.pitch_mm
                 or abs(new.angle_rad - grid.angle_rad) > cfg.reread_angle
                 or (len(up) > cfg.outline_tiles and _shift(grid, new) > cfg.reread_shift * grid.pitch_mm))
        if not moved:
            grid = new
            break
        again = where(new)
        if not any(t.look.has_symbol for t in again):
            break       # a lattice fitted to the prints' pieces that shows no print is not theirs
        grid, found = new, again
    # where the lattice cut the prints up, the whole prints' middles (table mm): their
    # cells are read on every lattice from here on
    prints: tuple[tuple[float, float], ...] = ()
    whole = _whole_prints(found, grid, lab, cpx, (x0, y0), cfg, where)
    if whole is not None:
        grid, found, prints = whole
    sparse = None if settled else _sparse_grid(found, grid, grey, near, cpx, (x0, y0), cfg)
    if sparse is not None:
        new = sparse[0]
        same = (abs(new.pitch_mm - grid.pitch_mm) <= cfg.reread_pitch * grid.pitch_mm
                and abs(new.angle_rad - grid.angle_rad) <= cfg.reread_angle)
        if not same:
            # the outlines' lattice must not cut a tile into more face-up "tiles", must
            # read every tile whose outline was seen, and must hold the symbols in their
            # cells where the lattice it replaces held them (a square round more than
            # one tile, or a mat's, puts them off to one side)
            again = where(new, prints)
            n_again, n_found = (sum(t.look.has_symbol for t in ts) for ts in (again, found))
            same = ((sparse[1] <= n_again <= n_found and (_on_lattice(again, cfg) or not _on_lattice(found, cfg)))
                    # more prints, each mid-cell where the replaced lattice held some off
                    # their cells' middles: that lattice missed or cut tiles (a tile cut
                    # up leaves its pieces off their cells' middles)
                    or (n_again > n_found and _all_mid(again, cfg) and not _all_mid(found, cfg)))
            # and it must not lose a print (a faint one too: a tile in a lamp's spot) that
            # the lattice it replaces read while holding every clear symbol mid-cell: a
            # tile's outline measured a little wide in the glare moves the cells off it
            same = same and not (n_again < n_found and _all_mid(found, cfg))
        if same:
            grid = new
    found = _read_cells(image, fit, ref, halved, grid, area, cfg, cfg.crop_px, pale=True, prints=prints,
                        outlines=(grey, cpx))
    found = _without_bare(found, near, grid, cpx, (x0, y0), cfg)
    found = _without_repeats(found, near, grid, cpx, (x0, y0), cfg, lab)
    out = TilesReading(grid, reference=ref.source)
    out.colour_on_face = _mark_face_down(found, cfg)
    found = _outlined_backs(found, lab, grid, cpx, (x0, y0), cfg, lambda: _table_colour(lab, near()))
    found = anchored(found, [not t.face_down for t in found])
    out.tiles = found
    if found:
        out.origin_cell = (min(t.col for t in found), min(t.row for t in found))
    _group(out, cfg, shapes, colours, copies)
    if palette:
        name_groups(out.tiles, palette, cfg.shape_angles, cfg.shape_shift)
    return out


def _filled(cands: list[Outline], near: NDArray[np.bool_] | None, cpx: float,
            origin: tuple[float, float], cfg: TilesConfig) -> list[Outline]:
    """The squares a tile fills: a square of a mat's print, or around several tiles,
    holds bare table inside."""
    if near is None:
        return cands
    return [o for o in cands if 1.0 - _table_share(near, o.inside_mm(), cpx, origin) >= cfg.outline_fill]


def refit_to_tiles(grid: GridFit, pts: NDArray[np.float64], cfg: TilesConfig,
                   diagonals: bool = False) -> GridFit:
    """The lattice refitted to whole tiles' centres (table mm) read on `grid`.

    Where the tiles sit mid-cell on it (within cfg.mid_cell pitches), diagonal
    neighbours are left out if that keeps nearer it (city 5299: all pairs turned it 23
    degrees, 34 -> 39 mm). Off their cells' middles, or moved further by it, the few
    side pairs were chance (loop games 95 and 14: 52 -> 47 mm and 46 -> 37 against 53
    and 44 with all), or pieces of one print (cities 5458, 5415). `diagonals` (on the
    game's own lattice): a refit that turns it past cfg.refit_turn_deg is made again
    with pairs 45 degrees off it taken for cells' diagonals (refine_grid); any other
    refit is kept as it was (on a hint gone wrong, loop games 30 and 141, pieces of
    prints lie at any turn and distance)."""
    new = refine_grid(grid, pts)
    if diagonals and _turned_over(grid, new, cfg):
        # a refit is a correction: one that turns the game's lattice most of the way to
        # its diagonals took diagonal pairs for sides
        new = refine_grid(grid, pts, diagonals=True)
    if np.all(mid_offsets(grid.cell_coords(pts)) <= cfg.mid_cell):
        side = refine_grid(grid, pts, sides=True)
        if abs(side.pitch_mm - grid.pitch_mm) < abs(new.pitch_mm - grid.pitch_mm):
            return side
    return new


def _turned_over(grid: GridFit, new: GridFit, cfg: TilesConfig) -> bool:
    """`new` is turned more than cfg.refit_turn_deg from `grid` (the turn folded to a
    quarter turn). A pitch moved a lot but not turned is not this: on a hint gone wrong
    (half the tiles' pitch), a refit to the prints' pieces is how the whole prints are
    found again (held-out loop game 141)."""
    return abs(math.degrees(quarter_turn(new.angle_rad - grid.angle_rad))) > cfg.refit_turn_deg


def _table_share(near: NDArray[np.bool_], pts: NDArray[np.float64], cpx: float,
                 origin: tuple[float, float]) -> float:
    """The share of table-mm points that fall on bare table (grid.table_near)."""
    h, w = near.shape
    x = np.clip(((pts[:, 0] - origin[0]) * cpx).astype(np.int64), 0, w - 1)
    y = np.clip(((pts[:, 1] - origin[1]) * cpx).astype(np.int64), 0, h - 1)
    return float(np.mean(near[y, x]))


def _bare_share(near: NDArray[np.bool_], grid: GridFit, col: int, row: int, cpx: float,
                origin: tuple[float, float], inset: float) -> float:
    """The share of a cell's middle (its central `inset` part) that is bare table."""
    return float(_bare_shares(near, grid, [(col, row)], cpx, origin, inset)[0])


def _bare_shares(near: NDArray[np.bool_], grid: GridFit, cells: list[tuple[int, int]], cpx: float,
                 origin: tuple[float, float], inset: float, n: int = 7) -> F64:
    """_bare_share of each (col, row) cell, all at once: the n x n points of each cell's
    middle (Outline.inside_mm of a cell-sized square about its centre) looked up on the
    bare-table mask like _table_share. The same arithmetic element by element, so the
    same shares; a large city's every printed cell is asked, one call each was dear."""
    if not cells:
        return np.zeros(0, dtype=np.float64)
    h, w = near.shape
    cr = np.array(cells, dtype=np.int64)
    ux, uy = grid.axes
    # GridFit.cell_centre_mm of every cell, then Outline.inside_mm about each
    ctr = np.asarray(grid.origin_mm, dtype=np.float64) + grid.pitch_mm * ((cr[:, :1] + 0.5) * ux
                                                                           + (cr[:, 1:] + 0.5) * uy)
    c, s = math.cos(grid.angle_rad), math.sin(grid.angle_rad)
    f = (np.arange(n) + 0.5) / n - 0.5
    a, b = np.meshgrid(f * inset * grid.pitch_mm, f * inset * grid.pitch_mm)
    a, b = a.ravel(), b.ravel()
    px = ctr[:, :1] + a * c - b * s
    py = ctr[:, 1:] + a * s + b * c
    x = np.clip(((px - origin[0]) * cpx).astype(np.int64), 0, w - 1)
    y = np.clip(((py - origin[1]) * cpx).astype(np.int64), 0, h - 1)
    return np.asarray(np.mean(near[y, x], axis=1), dtype=np.float64)


def _without_bare(found: list[TileReading], near: Callable[[], NDArray[np.bool_] | None], grid: GridFit,
                  cpx: float, origin: tuple[float, float], cfg: TilesConfig) -> list[TileReading]:
    """Printed cells that are bare table all over and whose face is not the face of the
    printed cells that are plainly not table: a game's fronts share one face (a mat's
    ruled lines crossing a cell turned against them read as a print; a pale print on a
    front of about the table's colour is bare too, but has the fronts' face)."""
    up = [t for t in found if t.look.has_symbol]
    if len(up) < 2:
        return found
    table = near()
    if table is None:
        return found
    share = dict(zip(map(id, up), _bare_shares(table, grid, [(t.col, t.row) for t in up], cpx, origin,
                                               cfg.bare_inset).tolist()))
    # (a cup's rim read on the lattice is off the table too, but its pieces of print
    # lie off their cells' middles: no front's)
    fronts = [t.look.face_lab for t in up
              if share[id(t)] <= cfg.bare_front and t.look.off_middle < cfg.hint_offset]
    bare = sum(v >= cfg.bare_share for v in share.values())
    if not fronts or bare <= len(fronts):
        return found     # a few bare cells among many fronts: more likely pale fronts
    face = np.median(np.array(fronts), axis=0)
    # the bare cells' own face: a mat's cell that camera noise leaves a few per cent off
    # the bare-table mask still has it (0.84 bare, its face 0.5 from the bare cells', 74
    # from the lone front beside it)
    table_face = np.median(np.array([t.look.face_lab for t in up
                                     if share[id(t)] >= cfg.bare_share]), axis=0)

    def stray(t: TileReading) -> bool:
        s = share.get(id(t), 0.0)
        to_front = float(np.linalg.norm(t.look.face_lab - face))
        if to_front <= cfg.table_delta_e:
            return False
        if s >= cfg.bare_share:
            return True
        to_table = float(np.linalg.norm(t.look.face_lab - table_face))
        return s > cfg.bare_front and to_table <= cfg.table_delta_e and to_table < to_front

    strays = [t for t in found if stray(t)]
    if _varied_prints(strays, cfg):
        return found
    return [t for t in found if not stray(t)]


def _without_repeats(found: list[TileReading], near: Callable[[], NDArray[np.bool_] | None], grid: GridFit,
                     cpx: float, origin: tuple[float, float], cfg: TilesConfig,
                     lab: NDArray[np.float32] | None = None) -> list[TileReading]:
    """Printed cells mostly bare table (at least repeat_bare of their middle) that repeat
    one print colour on one face at least repeat_print times, where tiles plainly off
    the table (at most bare_front bare) show fronts none of which has that look: a mat's
    ruled lines crossing in cell after cell of a lattice near the mat's own (where the
    crossing falls in each cell varies, so the shape does not repeat). Then, where
    repeat_print to outline_tiles fronts off the table (their symbols mid-cell)
    outnumber the printed cells left that are at least stray_bare bare, those go too
    (those whose face and print are both off the table's colour, lab, stay). With no
    front off the table, or prints on bare table in several inks none holding most of
    them (a game's faces of about the table's colour), nothing is dropped."""
    table = near()
    if table is None:
        return found
    up = [t for t in found if t.look.has_symbol and not t.look.faint]
    share = dict(zip(map(id, up), _bare_shares(table, grid, [(t.col, t.row) for t in up], cpx, origin,
                                               cfg.bare_inset).tolist()))
    bare = [t for t in up if share[id(t)] >= cfg.repeat_bare]
    fronts = [t for t in up if share[id(t)] <= cfg.bare_front]
    if not bare or not fronts:
        return found
    placed = [t for t in fronts if t.look.off_middle < cfg.hint_offset]
    inks = agglomerate(pairwise(np.array([t.look.symbol_lab for t in bare])), cfg.colour_merge)
    if len(set(inks)) >= cfg.varied_prints and 2 * max(inks.count(k) for k in set(inks)) <= len(bare):
        # prints on bare table in several inks, no one of which holds most of them: a
        # game's fronts of about the table's colour (white fronts on a white mat), not
        # a mat's lines (one ink)
        return found

    def inked(a: TileReading, b: TileReading) -> bool:
        return float(np.linalg.norm(a.look.symbol_lab - b.look.symbol_lab)) <= cfg.colour_merge

    def alike(a: TileReading, b: TileReading) -> bool:
        return float(np.linalg.norm(a.look.face_lab - b.look.face_lab)) <= cfg.table_delta_e and inked(a, b)

    def one_logo(same: list[TileReading]) -> bool:
        # every print mid-cell and of one shape: the backs' logo (city 5169: eight
        # purple backs with a pink ring, on a slate table of about their colour), where
        # a mat's lines cross each cell of a lattice near the mat's own at another place
        if any(u.look.off_middle >= cfg.hint_offset for u in same):
            return False
        shp = np.array([u.look.shape for u in same])
        form = shape_distances(shp, shp, cfg.shape_angles, cfg.shape_shift)
        return float(np.median(form[np.triu_indices(len(same), 1)])) <= cfg.shape_merge

    drop: set[int] = set()
    for t in bare:
        same = [u for u in bare if alike(t, u)]
        # (an ink that a front in its cell off the table shows is the game's, whatever
        # the face: backs of about the table's colour with a white logo, beside fronts
        # with white symbols)
        if len(same) >= cfg.repeat_print and not any(inked(t, f) for f in placed) and not one_logo(same):
            drop |= {id(u) for u in same}
    rest = [t for t in bare if id(t) not in drop and share[id(t)] >= cfg.stray_bare]
    if cfg.repeat_print <= len(placed) <= cfg.outline_tiles and len(placed) > len(rest):
        # a game's fronts share one kind of face: where most of a small city's are
        # plainly off the table, a print on bare table is none of theirs (a glare spot
        # on a mat lifts a cell of the mat's lines off the table's colour, one at a
        # time). (A large city's pale fronts may read as bare table here and there.)
        # One whose face and print are both off the bare table's colour (by table_delta_e;
        # lab, the coarse view, on the bare-table mask) is a front the mask's smooth
        # spread took in (white fronts beside light wood, 0.94 "bare": cities 5042,
        # 5090): it stays. A mat's lines keep the table's colour as their face, and a
        # glare spot that lifts a cell's face leaves the table's colour as its print
        # (dev 132 f8: face 20 off the mat's colour, print 2).
        colour = None if lab is None else _table_colour(lab, table)

        def tables(t: TileReading) -> bool:
            return colour is None or min(float(np.linalg.norm(t.look.face_lab - colour)),
                                         float(np.linalg.norm(t.look.symbol_lab - colour))) < cfg.table_delta_e

        drop |= {id(t) for t in rest if tables(t)}
    return [t for t in found if id(t) not in drop]


def _varied_prints(tiles: list[TileReading], cfg: TilesConfig) -> bool:
    """The prints come in several colours: fronts (a game's symbols vary), not a mat's
    ruled lines (one ink) nor a repeated logo; fronts of about the table's colour are
    bare table all over, and the few plainly off the table may be backs."""
    marks = [t.look.symbol_lab for t in tiles if t.look.has_symbol and not t.look.faint]
    if len(marks) < cfg.varied_prints:
        return False
    return len(set(agglomerate(pairwise(np.array(marks)), cfg.colour_merge))) >= cfg.varied_prints


def _inside(o: Outline, pt: tuple[float, float]) -> bool:
    c, s = math.cos(o.angle_rad), math.sin(o.angle_rad)
    dx, dy = pt[0] - o.centre_mm[0], pt[1] - o.centre_mm[1]
    return max(abs(dx * c + dy * s), abs(-dx * s + dy * c)) < 0.5 * o.side_mm


def _common_side(cands: list[list[Outline]], points: list[tuple[float, float]],
                 cfg: TilesConfig) -> list[Outline]:
    """One outline per tile, all of one size (a game's tiles are all alike).

    The size is the one most points have a square of (the pieces of a cut-up tile all
    find its square), less the points of other tiles such squares would swallow (a
    square around two touching tiles), the larger on a tie (a frame or symbol lies
    inside the cut edge); squares of two tiles must not overlap."""
    def pick(s: float) -> tuple[list[Outline], int]:
        out: list[Outline] = []
        voters = set()
        for i, cs in enumerate(cands):
            near = [o for o in cs if abs(o.side_mm - s) <= cfg.outline_agree * s]
            if near:
                voters.add(i)
                o = min(near, key=lambda o: abs(o.side_mm - s))
                if all(math.dist(o.centre_mm, k.centre_mm) > 0.5 * s for k in out):
                    out.append(o)
        foreign = sum(any(_inside(o, p) for o in out) for i, p in enumerate(points) if i not in voters)
        return out, len(voters) - foreign

    sides = {o.side_mm for cs in cands for o in cs}
    scored = sorted(((pick(s_)[1], s_) for s_ in sides), reverse=True)
    for _, best in scored:
        out = pick(best)[0]
        if all(math.dist(a.centre_mm, b.centre_mm) >= cfg.outline_apart * best
               for i, a in enumerate(out) for b in out[i + 1:]):
            return out
    return []


def _sparse_grid(found: list[TileReading], grid: GridFit, grey: NDArray[np.float32],
                 near: Callable[[], NDArray[np.bool_] | None], cpx: float, origin: tuple[float, float],
                 cfg: TilesConfig) -> tuple[GridFit, int] | None:
    """The lattice of a few tiles, from their own outlines as much as from their centres,
    and the least number of face-up tiles a read on it must find.

    With few tiles the edge autocorrelation may lock on symbol edges or a mat's print
    (and cut one tile into several "tiles"), and the tiles' centres (each off its cell
    by a hand's jitter) fix the pitch poorly; each tile's outline measures its side
    and its centre well. The pitch is the side plus a gap, weighted against the
    centres' pitch by how many neighbour spans they hold.

    A lone tile whose face is about the table's colour shows the lattice search little
    but its symbol's edges, so the lattice may come out a symbol's width and cut the
    symbol into "tiles" of neighbouring cells. A print never crosses its cell's border
    (a face margin and the gap part two tiles' prints), so cells whose prints are one
    connected print are one tile; when its outline is too faint to measure, the
    lattice is the finest that holds the whole print inside a cell's face ring."""
    up = [t for t in found if t.look.has_symbol and not t.look.faint]
    if not up or len(up) > cfg.outline_tiles:
        return None
    if len(up) > cfg.sparse_tiles and not _off_centre(up, cfg):
        return None     # a small city whose symbols sit in their cells: its lattice holds
    if len(up) <= cfg.sparse_tiles:
        # few tiles, each symbol near its tile's centre: each tile's outermost square
        # (a print wider than the largest tile's face holds is a mat's lines joined
        # from cell to cell, no tile's)
        joined = _joined_prints(up, near(), grid, cpx, origin, cfg)
        prints = [(c, e) for c, e in joined if e <= widest_print_mm(cfg)]
        if not prints:
            return None
        tiles = [c for c, _ in prints]
        outs = [cs[0] for c, e in prints if (cs := _lone_outline(grey, cpx, origin, c, e, grid, cfg))]
        need = max(e for _, e in prints) / (2.0 * cfg.face_ring[0])
        # a lattice that holds each print whole in one cell, mid-cell, has a tile's
        # pitch: every print it shows is a tile and must still read on the outlines'
        # lattice (a pitch a few tiles' outlines set too coarse puts two tiles in one
        # cell). One that cuts a print up (its pieces in several cells or off their
        # cells' middles) or spills it into a face ring is a symbol's width fine: its
        # pieces are one tile, and its small cells turn a mat's lines into "prints" no
        # tile's lattice shows (seed 3 of the sparse tests: a white tile cut in two on
        # a white ruled mat, and a cell of the mat's shaded lines beside it), so there
        # one print read is enough.
        cut = len(joined) < len(up) or need > grid.pitch_mm or _off_centre(up, cfg)
        least = 1 if cut else len(prints)
        if not outs and (len(prints) < len(up) or need > grid.pitch_mm):
            # no outline seen, and the lattice cuts a print up or spills it into a
            # face ring: the finest lattice that holds every print in a cell
            return _through(np.array(tiles, dtype=np.float64), grid.angle_rad, max(grid.pitch_mm, need),
                            grid.strength), len(prints)
    else:
        # more "tiles" than a sparse table holds: perhaps pieces of a few cut-up tiles,
        # whose symbols lie well off their tiles' centres
        table = near()
        outs = _common_side([_filled(tile_outline(grey, cpx, origin, np.asarray(t.centre_mm), grid.angle_rad,
                                                  cfg, cfg.outline_shift_mm), table, cpx, origin, cfg)
                             for t in up], [t.centre_mm for t in up], cfg)
        tiles = [o.centre_mm for o in outs]
        least = len(tiles)
        if len(tiles) > cfg.sparse_tiles:
            return None
    if not outs:
        return None
    side = float(np.median([o.side_mm for o in outs]))
    z = sum(np.exp(4j * o.angle_rad) for o in outs)
    theta = float(np.angle(z)) / 4.0
    p_out = side + cfg.gap_mm
    pts = np.array(tiles, dtype=np.float64)
    pitch = p_out
    if len(pts) >= 2:
        ls = refine_grid(GridFit(theta, p_out, grid.origin_mm, grid.strength), pts)
        c, s_ = math.cos(ls.angle_rad), math.sin(ls.angle_rad)
        q = np.stack([pts[:, 0] * c + pts[:, 1] * s_, -pts[:, 0] * s_ + pts[:, 1] * c], 1) / ls.pitch_mm
        spread = float(np.sum((q - q.mean(axis=0)) ** 2))
        if spread > 0.5 and abs(ls.pitch_mm - p_out) < 0.25 * p_out:
            var_ls = cfg.centre_sd_mm ** 2 / spread
            var_out = cfg.outline_sd_mm ** 2
            pitch = (ls.pitch_mm / var_ls + p_out / var_out) / (1.0 / var_ls + 1.0 / var_out)
            theta = ls.angle_rad
    out = _through(pts, theta, float(pitch), grid.strength)
    if least > 1 and len({(int(c), int(r)) for c, r in out.cell_of(pts)}) < len(pts):
        return None     # two outlined tiles in one cell: not their lattice
    if _spacing(out.cell_of(pts)) > 1:
        return None     # tiles only every k-th cell apart: a symbol's square, not a tile's
    return out, least


def _lone_outline(grey: NDArray[np.float32], cpx: float, origin: tuple[float, float], centre: tuple[float, float],
                  extent: float, grid: GridFit, cfg: TilesConfig) -> list[Outline]:
    """A few tiles' outline squares about one print (tile_outline), outermost first.

    A tile's cut edge lies outside its print. When the outermost square is no wider
    than the print (extent mm), it is the print's own edge: on a face of the table's
    colour the cut edge is a faint shadow line that a symbol's strong edges outshine,
    so it is looked for again beyond the print, among the squares there."""
    outs = tile_outline(grey, cpx, origin, np.asarray(centre), grid.angle_rad, cfg, cfg.outline_near_mm)
    if outs and outs[0].side_mm <= extent:
        return tile_outline(grey, cpx, origin, np.asarray(centre), grid.angle_rad, cfg, cfg.outline_near_mm,
                            extent) or outs
    return outs


def _lone_print(table: NDArray[np.bool_] | None, grid: GridFit, cpx: float, origin: tuple[float, float],
                cfg: TilesConfig, read: Callable[[GridFit], list[TileReading]]
                ) -> tuple[GridFit, list[TileReading]] | None:
    """A lone tile that the searched lattice holds in no cell: the lattice (the searched
    pitch and turn) centred on the largest patch off the bare table no wider than a
    print, taken only when that cell reads one clear print near its middle. None: keep
    the lattice.

    A white front on a white mat in a lamp's spot shows the search only the mat's
    ruled lines, and their lattice put the print off every cell's middle (fresh loop
    game 231: the pioneer went unread on two frames, and the second tile was taken
    for it)."""
    if table is None:
        return None
    n, _, box, ctrs = cv2.connectedComponentsWithStats((~table).astype(np.uint8), connectivity=8)
    widest = widest_print_mm(cfg) * cpx
    fits = [i for i in range(1, n) if box[i, cv2.CC_STAT_WIDTH] <= widest and box[i, cv2.CC_STAT_HEIGHT] <= widest]
    if not fits:
        return None
    i = max(fits, key=lambda k: int(box[k, cv2.CC_STAT_AREA]))
    centre = ctrs[i] / cpx + np.asarray(origin)
    ux, uy = grid.axes
    o = centre - 0.5 * grid.pitch_mm * (ux + uy)
    g = GridFit(grid.angle_rad, grid.pitch_mm, (float(o[0]), float(o[1])), grid.strength)
    again = read(g)
    sym = [t for t in again if t.look.has_symbol and not t.look.faint]
    if len(sym) != 1 or sym[0].look.off_middle >= cfg.hint_offset:
        return None
    return g, again


def _spacing(cells: NDArray[np.int64]) -> int:
    """The greatest number of cells that divides every step between the cells along
    both axes (0 for one cell): tiles laid side by side are 1 apart somewhere."""
    step = 0
    for c, r in cells[1:] - cells[0]:
        step = math.gcd(step, math.gcd(int(c), int(r)))
    return step


def _coarser(found: list[TileReading], grid: GridFit, grey: NDArray[np.float32],
             near: Callable[[], NDArray[np.bool_] | None], cpx: float, origin: tuple[float, float], cfg: TilesConfig,
             read: Callable[[GridFit], list[TileReading]]) -> tuple[GridFit, list[TileReading]] | None:
    """The lattice k times coarser (k = 2 or 3) when every symbol read lies k cells from
    the others along both axes: tiles are laid side by side, so symbols that only ever
    sit in every k-th cell are one tile per k x k cells of a lattice k times too fine
    (a lone pioneer's symbol edges set the pitch, and a white face on a white table
    shows no outline to correct it). None: keep the lattice.

    Taken only where the tiles agree: no other candidate cell among the symbols lies
    off every k-th cell (a back between two fronts is a tile of the fine lattice), the
    coarse lattice reads every symbol near its cell's middle, and (on faces off the
    table's colour) no more tiles show a square outline of the fine pitch than of the
    coarse one."""
    up = [t for t in found if t.look.has_symbol and not t.look.faint]
    if len(up) < 2 or len(up) > cfg.sparse_tiles:
        return None
    c0, r0 = up[0].col, up[0].row
    step = _spacing(np.array([(t.col, t.row) for t in up], dtype=np.int64))
    k = next((f for f in (2, 3) if step % f == 0), 0) if step > 1 else 0
    if not k or k * grid.pitch_mm > cfg.max_pitch_mm:
        return None
    cols, rows = [t.col for t in up], [t.row for t in up]
    if any(min(cols) <= t.col <= max(cols) and min(rows) <= t.row <= max(rows)
           and ((t.col - c0) % k or (t.row - r0) % k) for t in found):
        return None
    ux, uy = grid.axes
    o = grid.cell_centre_mm(c0, r0) - 0.5 * k * grid.pitch_mm * (ux + uy)
    g = GridFit(grid.angle_rad, k * grid.pitch_mm, (float(o[0]), float(o[1])), grid.strength)
    again = read(g)
    sym = [t for t in again if t.look.has_symbol and not t.look.faint]
    if len(sym) < len(up) or not _on_lattice(again, cfg):
        return None
    if any(t.look.off_middle >= cfg.blob_offset for t in sym):
        return None
    # the coarse lattice's pitch is the fine one's k times: the symbols' own spacing
    # sets it before the outlines are asked
    g = refine_grid(g, np.array([t.centre_mm for t in sym]))
    again = read(g)
    sym = [t for t in again if t.look.has_symbol and not t.look.faint]
    if len(sym) < len(up) or not _on_lattice(again, cfg):
        return None
    # a square of the fine pitch round a tile whose face is off the table's colour
    # speaks for the fine lattice; on a face of about the table's colour the only
    # square is the symbol's own, which says nothing of the pitch
    table = near()
    plain = table is not None and all(_bare_share(table, grid, t.col, t.row, cpx, origin, 1.0) >= cfg.print_bare
                                      for t in up)
    if not plain and (_outline_votes(up, grid, grey, cpx, origin, cfg)[0]
                      > _outline_votes(sym, g, grey, cpx, origin, cfg)[0]):
        return None
    return g, again


def _whole_prints(found: list[TileReading], grid: GridFit, lab: NDArray[np.float32], cpx: float,
                  origin: tuple[float, float], cfg: TilesConfig,
                  read: Callable[[GridFit, tuple[tuple[float, float], ...]], list[TileReading]]
                  ) -> tuple[GridFit, list[TileReading], tuple[tuple[float, float], ...]] | None:
    """The tiles' lattice from their whole prints, where the lattice cuts most printed
    cells' prints into pieces or holds the symbols off their cells' middles; with it,
    the whole prints' middles (table mm), whose cells are read on every lattice after.
    None: keep the lattice.

    A print never crosses its tile's edge (a face margin and the gap part two tiles'
    prints), so cells whose strokes of print (grid.print_strokes) are one connected
    print, no wider than the largest tile's face, are pieces of one tile. Where more
    than cut_prints of the printed cells are such pieces, the lattice is a fraction of
    the tiles' pitch: white fronts on a white table show the lattice search nothing but
    their symbols' edges (and table_near, which smooths thin print away, neither their
    faces nor their outlined symbols), so it may settle on a symbol's width and cut
    every front into pieces, each of which reads as a "tile" of its own (dev loop game
    135: six fronts read as 16 cells on a 15.4 mm lattice, true pitch 41 mm; seven as
    eight on a 30.4 mm one that held the symbols off their cells' middles). Each whole
    print is then one tile, and tiles laid side by side lie one pitch from their
    nearest neighbour: the lattice through the prints at that spacing. It is taken only
    where it holds every print in a cell of its own, near the cell's middle, reads at
    least as many face-up tiles as there are prints (each print's cell is read, see
    _read_cells), and cuts no print itself."""
    # (numbered afresh: a refit that did not read again anchors the lattice's origin at
    # a crossing of its own, and the cells read keep the old lattice's numbers)
    up = [replace(t, col=int(c), row=int(r)) for t in found if t.look.has_symbol and not t.look.faint
          for c, r in grid.cell_of(np.array([t.centre_mm]))]
    if len(up) < 2:
        return None
    widest = widest_print_mm(cfg)
    # the strokes about the printed cells only (the median filter is dear over the view)
    h, w = lab.shape[:2]
    about = _window(np.array([t.centre_mm for t in up]), 1.5 * grid.pitch_mm + widest + cfg.table_smooth_mm,
                  origin, cpx, (h, w))
    if about is None:
        return None
    x0, y0, x1, y1 = about
    strokes = np.zeros((h, w), dtype=bool)
    strokes[y0:y1, x0:x1] = print_strokes(np.ascontiguousarray(lab[y0:y1, x0:x1]), cpx, cfg)

    def pieces(tiles: list[TileReading], g: GridFit) -> tuple[list[tuple[float, float]], int]:
        # (a game's symbols are printed at one scale: a print much smaller than the
        # others is a speck, a scrap of a tile's edge or a piece a stroke's gap cut off)
        groups = [(c, e, n) for c, e, n in _print_groups(tiles, ~strokes, g, cpx, origin, cfg, middle=True)
                  if 0.0 < e <= widest]
        typical = float(np.median([e for _, e, _ in groups])) if groups else 0.0
        whole = [(c, n) for c, e, n in groups if e >= cfg.print_scale * typical]
        return [c for c, _ in whole], sum(n for _, n in whole if n > 1)

    prints, cut = pieces(up, grid)
    if (cut <= cfg.cut_prints * len(up) and _on_lattice(found, cfg)) or len(prints) < 2:
        return None
    pts = np.array(prints, dtype=np.float64)
    dist = np.linalg.norm(pts[:, None, :] - pts[None, :, :], axis=2)
    np.fill_diagonal(dist, np.inf)
    pitch = float(np.median(dist.min(axis=1)))
    if not cfg.min_pitch_mm <= pitch <= cfg.max_pitch_mm:
        return None
    g = refine_grid(GridFit(grid.angle_rad, pitch, grid.origin_mm, grid.strength), pts)
    if not cfg.min_pitch_mm <= g.pitch_mm <= cfg.max_pitch_mm:
        return None
    if len({(int(c), int(r)) for c, r in g.cell_of(pts)}) < len(pts):
        return None     # two prints in one cell: not the tiles' lattice
    held = tuple(prints)
    again = read(g, held)
    sym = [t for t in again if t.look.has_symbol and not t.look.faint]
    if len(sym) < len(prints) or not _on_lattice(again, cfg) or pieces(sym, g)[1] > 0:
        return None
    return g, again, held


def _window(ctrs: NDArray[np.float64], pad: float, origin: tuple[float, float], cpx: float,
            shape: tuple[int, int]) -> tuple[int, int, int, int] | None:
    """The view's pixels (x0, y0, x1, y1) about these centres (table mm), `pad` mm wider,
    clipped to a view of `shape` (h, w); None when under two pixels across."""
    lo = np.floor((ctrs.min(axis=0) - pad - np.asarray(origin)) * cpx).astype(int)
    hi = np.ceil((ctrs.max(axis=0) + pad - np.asarray(origin)) * cpx).astype(int)
    x0, y0 = max(0, int(lo[0])), max(0, int(lo[1]))
    x1, y1 = min(shape[1], int(hi[0])), min(shape[0], int(hi[1]))
    return None if x1 - x0 < 2 or y1 - y0 < 2 else (x0, y0, x1, y1)


def _through(pts: NDArray[np.float64], theta: float, pitch: float, strength: float) -> GridFit:
    """The lattice at that pitch and turn through the tiles: the mean phase of the centres."""
    ux = np.array([math.cos(theta), math.sin(theta)])
    uy = np.array([-math.sin(theta), math.cos(theta)])
    q = np.stack([pts @ ux, pts @ uy], 1) / pitch
    idx = np.round(q - q[0:1])
    o = np.mean(pts - pitch * ((idx[:, :1] + 0.5) * ux + (idx[:, 1:] + 0.5) * uy), axis=0)
    return GridFit(theta, float(pitch), (float(o[0]), float(o[1])), strength)


@dataclass
class _Patch:
    """One patch off the table's colour that a small city could be: its pixels in the
    coarse view (labels == index), the share of its smallest rectangle it fills, and
    each split of that rectangle into a x b cells whose pitches along both sides agree
    (lattice with cells (0..a-1, 0..b-1) over the patch, a, b), fewest cells first."""

    labels: NDArray[np.int32]
    index: int
    fill: float
    splits: list[tuple[GridFit, int, int]]

    def holds(self, pt: tuple[float, float], cpx: float, origin: tuple[float, float]) -> bool:
        """The table-mm point lies on the patch."""
        h, w = self.labels.shape
        x, y = int((pt[0] - origin[0]) * cpx), int((pt[1] - origin[1]) * cpx)
        return 0 <= x < w and 0 <= y < h and int(self.labels[y, x]) == self.index

    def share(self, g: GridFit, col: int, row: int, cpx: float, origin: tuple[float, float]) -> float:
        """The share of a cell's middle half that lies on the patch."""
        c = g.cell_centre_mm(col, row)
        pts = Outline(g.pitch_mm, g.angle_rad, 0.0, (float(c[0]), float(c[1]))).inside_mm(inset=0.5)
        return float(np.mean([self.holds((float(x), float(y)), cpx, origin) for x, y in pts]))


def _blob_grids(table: NDArray[np.bool_] | None, cpx: float, origin: tuple[float, float],
                cfg: TilesConfig) -> list[_Patch]:
    """Each patch off the table's colour that a small city could be, fullest first.

    A few tiles laid side by side are one patch unlike the table (grid.table_near): its
    smallest rectangle lies along the tiles' sides and spans a x b pitches, whatever
    print the tiles carry (a symbol's edges or a mat's lines fool the edge search, not
    the patch). Several splits may fit one rectangle (2 x 2 tiles are 1 x 1 cell of
    twice the pitch): the tiles' own evidence picks one (_blob_choice)."""
    if table is None:
        return []
    n, comp, st, _ = cv2.connectedComponentsWithStats((~table).astype(np.uint8), connectivity=8)
    lo = (0.6 * cfg.min_pitch_mm * cpx) ** 2
    hi = (cfg.blob_cells * cfg.max_pitch_mm * cpx) ** 2
    shapes = sorted(itertools.product(range(1, cfg.blob_cells + 1), repeat=2), key=lambda ab: (ab[0] * ab[1], ab))
    out: list[_Patch] = []
    for i in range(1, n):
        size = int(st[i, cv2.CC_STAT_AREA])
        if not lo <= size <= hi:
            continue
        x, y, w, h = (int(v) for v in st[i, :4])
        ys, xs = np.nonzero(comp[y:y + h, x:x + w] == i)
        pix = np.stack([xs + x, ys + y], 1).astype(np.float32)
        ang = float(cv2.minAreaRect(pix)[2])
        theta = math.radians((ang + 45.0) % 90.0 - 45.0)
        c, s_ = math.cos(theta), math.sin(theta)
        X = origin[0] + (pix[:, 0].astype(np.float64) + 0.5) / cpx
        Y = origin[1] + (pix[:, 1].astype(np.float64) + 0.5) / cpx
        u, v = X * c + Y * s_, -X * s_ + Y * c
        wu, hv = float(np.ptp(u)) + 1.0 / cpx, float(np.ptp(v)) + 1.0 / cpx
        fill = size / (wu * hv * cpx * cpx)
        if fill < cfg.blob_fill:
            continue
        splits: list[tuple[GridFit, int, int]] = []
        for a, b in shapes:
            pu, pv = (wu - cfg.blob_margin_mm) / a, (hv - cfg.blob_margin_mm) / b
            p = 0.5 * (pu + pv)
            if abs(pu - pv) <= cfg.blob_agree * p and cfg.min_pitch_mm <= p <= cfg.max_pitch_mm:
                u0 = 0.5 * (float(u.min()) + float(u.max())) - 0.5 * a * p
                v0 = 0.5 * (float(v.min()) + float(v.max())) - 0.5 * b * p
                splits.append((GridFit(theta, p, (u0 * c - v0 * s_, u0 * s_ + v0 * c), 1.0), a, b))
        if splits:
            out.append(_Patch(np.asarray(comp, np.int32), i, fill, splits))
    return sorted(out, key=lambda pt: -pt.fill)


def _same_lattice(a: GridFit, b: GridFit, cfg: TilesConfig) -> bool:
    """Two lattices of about one pitch and turn (a quarter turn apart is the same)."""
    turn = abs(quarter_turn(a.angle_rad - b.angle_rad))
    return abs(a.pitch_mm - b.pitch_mm) <= cfg.blob_keep_pitch * b.pitch_mm and turn <= cfg.blob_keep_angle


def _outline_votes(tiles: list[TileReading], g: GridFit, grey: NDArray[np.float32], cpx: float,
                   origin: tuple[float, float], cfg: TilesConfig, face_only: bool = False) -> tuple[int, int]:
    """(tiles with a square of side + gap about g's pitch among their outlines, tiles
    with squares of other sizes only): no square two tiles wide lies symmetric about
    one tile's centre, so a split too coarse finds no outline of its pitch (a printed
    frame or the symbol give smaller squares, hence any square, not the outermost)."""
    return _cell_outline_votes([(t.col, t.row) for t in tiles], g, grey, cpx, origin, cfg, face_only)


def _cell_outline_votes(cells: list[tuple[int, int]], g: GridFit, grey: NDArray[np.float32], cpx: float,
                        origin: tuple[float, float], cfg: TilesConfig,
                        face_only: bool = False) -> tuple[int, int]:
    """_outline_votes of the tiles in these cells (col, row) of g. With face_only, squares
    within g's face ring (where only print lies) are left out: a print's own edges."""
    yes = no = 0
    inner = 2.0 * cfg.face_ring[0] * g.pitch_mm
    for col, row in cells:
        c = g.cell_centre_mm(col, row)
        outs = tile_outline(grey, cpx, origin, np.asarray(c), g.angle_rad, cfg, cfg.outline_near_mm)
        if face_only:
            outs = [o for o in outs if o.side_mm > inner]
        if not outs:
            continue
        if any(abs(o.side_mm + cfg.gap_mm - g.pitch_mm) <= cfg.blob_outline_agree * g.pitch_mm for o in outs):
            yes += 1
        else:
            no += 1
    return yes, no


def _blob_choice(found: list[TileReading], grid: GridFit, near: Callable[[], NDArray[np.bool_] | None],
                 grey: NDArray[np.float32], cpx: float, origin: tuple[float, float], cfg: TilesConfig,
                 read: Callable[[GridFit], list[TileReading]]) -> tuple[GridFit, list[TileReading]] | None:
    """A small city's lattice from its patch off the table (_blob_grids) instead of the
    searched one, when the searched one does not hold its symbols in their cells or
    lies off the patch's pitch or turn (a lattice a symbol's width fine, fitted to a
    mat's lines or tilted by a few tiles' print). None: keep the searched lattice.

    A split of the patch is taken only where the tiles' own evidence agrees: the patch
    holds every tile the searched lattice holds in its cell (a patch beside a city is
    not the city), each of its cells that the patch fills holds a tile, every symbol
    off the bare table sits near its cell's middle (a split too coarse puts a cell's
    symbol off to one side or cuts it at a cell's edge), it reads no fewer tiles in
    their cells on the patch than the searched lattice did, and the tiles' outlines
    do not speak against its pitch (those of a searched lattice that held must speak
    for it)."""
    up = [t for t in found if t.look.has_symbol and not t.look.faint]
    held = _on_lattice(found, cfg)
    if held and len(up) > cfg.outline_tiles:
        return None     # a city of many tiles in their cells
    blobs = _blob_grids(near(), cpx, origin, cfg)
    if not blobs or (held and any(_same_lattice(grid, g, cfg) for b in blobs for g, _, _ in b.splits)):
        return None
    # the symbols the searched lattice holds in their cells off the bare table: each a
    # tile (a mat's lines on bare table are no tile's)
    table = near()

    def off_table(t: TileReading) -> bool:
        return table is None or _table_share(table, np.array([t.centre_mm]), cpx, origin) < 0.5

    placed = [t for t in up if t.look.off_middle < cfg.hint_offset and off_table(t)]
    for patch in blobs[:3]:
        mine = [t for t in placed if patch.holds(t.centre_mm, cpx, origin)]
        if len(mine) < len(placed):
            continue     # tiles in their cells off this patch: it is not the city
        for g, a, b in patch.splits:
            again = read(g)
            inside = [t for t in again if 0 <= t.col < a and 0 <= t.row < b]
            sym = [t for t in inside if t.look.has_symbol and not t.look.faint]
            if not sym or len(sym) < len(mine) or not _on_lattice(again, cfg):
                continue
            # every symbol off the bare table, in the patch or beside it (tiles the
            # table's colour parted from it), sits near its cell's middle: a split too
            # coarse puts a cell's symbol to one side, a patch that is a symbol's or a
            # few tiles' of a larger city cuts the other tiles up
            tiles = [t for t in again if t.look.has_symbol and not t.look.faint and off_table(t)]
            if any(t.look.off_middle >= cfg.blob_offset for t in tiles):
                continue
            held_cells = {(t.col, t.row) for t in inside}
            if any(patch.share(g, i, j, cpx, origin) >= cfg.blob_cell_fill and (i, j) not in held_cells
                   for i in range(a) for j in range(b)):
                continue
            # (a square inside the face ring is a print's own edge: a tile whose face is
            # about the table's grey shows the outline finder its print and nothing
            # more, and that says nothing against the patch's pitch; fresh loop game
            # 460: a magenta pioneer's ring, 18 mm, against its 34 mm patch)
            yes, no = _outline_votes(tiles, g, grey, cpx, origin, cfg, face_only=True)
            if no > yes:
                continue
            if held and yes == 0:
                continue     # a lattice that held its symbols gives way to evidence only
            return replace(g, strength=grid.strength), again
    return None


def _joined_prints(up: list[TileReading], table: NDArray[np.bool_] | None, grid: GridFit, cpx: float,
                   origin: tuple[float, float], cfg: TilesConfig) -> list[tuple[tuple[float, float], float]]:
    """The prints of the face-up cells, those of cells whose prints are one connected
    print taken as one: (centre in table mm, widest extent of the connected print along
    the lattice's axes in mm) per print; a cell alone keeps its symbol's centre.

    Print is what is not bare table (grid.table_near): this tells a print only on a
    face of about the table's colour, so a cell nearly all off the table (less than
    print_bare of it bare: a face of its own colour, whose outline the lattice search
    sees anyway) keeps its own print, of unknown extent (0)."""
    return [(c, e) for c, e, _ in _print_groups(up, table, grid, cpx, origin, cfg)]


def _print_groups(up: list[TileReading], table: NDArray[np.bool_] | None, grid: GridFit, cpx: float,
                  origin: tuple[float, float], cfg: TilesConfig,
                  middle: bool = False) -> list[tuple[tuple[float, float], float, int]]:
    """_joined_prints with the number of cells each print spans; with `middle`, a cell
    alone gives its connected print's middle too (a cell may hold only part of it)."""
    if table is None:
        return [(t.centre_mm, 0.0, 1) for t in up]
    ux, uy = grid.axes
    h, w = table.shape
    ctrs = np.array([grid.cell_centre_mm(t.col, t.row) for t in up])
    about = _window(ctrs, 1.5 * grid.pitch_mm, origin, cpx, (h, w))
    if about is None:
        return [(t.centre_mm, 0.0, 1) for t in up]
    x0, y0, x1, y1 = about
    mask = ~table[y0:y1, x0:x1]
    _, comp, box, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)

    def mm(rows: slice, cols: slice) -> F64:
        # the table mm of the window's pixels [rows, cols] (clipped as numpy slices
        # clip): only those asked for, not the whole window's
        r0, r1, _ = rows.indices(y1 - y0)
        c0, c1, _ = cols.indices(x1 - x0)
        ys, xs = np.mgrid[y0 + r0:y0 + max(r0, r1), x0 + c0:x0 + max(c0, c1)]
        return np.stack([origin[0] + (xs + 0.5) / cpx, origin[1] + (ys + 0.5) / cpx], -1)

    label: list[int] = []
    reach = int(math.ceil(math.sqrt(2.0) * cfg.face_ring[0] * grid.pitch_mm * cpx)) + 1
    plains = _bare_shares(table, grid, [(t.col, t.row) for t in up], cpx, origin, 1.0) < cfg.print_bare
    for i, t in enumerate(up):
        # (only the pixels about the cell: the inner square lies within `reach` of its centre)
        cx, cy = (int((ctrs[i][k] - origin[k]) * cpx) - (x0, y0)[k] for k in (0, 1))
        win = (slice(max(0, cy - reach), max(0, cy + reach + 1)), slice(max(0, cx - reach), max(0, cx + reach + 1)))
        d = mm(*win) - ctrs[i]
        inner = np.maximum(np.abs(d @ ux), np.abs(d @ uy)) < cfg.face_ring[0] * grid.pitch_mm
        hit = comp[win][inner & mask[win]]
        label.append(int(np.bincount(hit).argmax()) if len(hit) and not plains[i] else -1 - i)
    out: list[tuple[tuple[float, float], float, int]] = []
    for k in dict.fromkeys(label):
        members = [t for t, lb in zip(up, label) if lb == k]
        if k < 0:
            out.append((members[0].centre_mm, 0.0, 1))
            continue
        bx, by, bw, bh = (int(b) for b in box[k, :4])
        pts = mm(slice(by, by + bh), slice(bx, bx + bw))[comp[by:by + bh, bx:bx + bw] == k]
        u, v = pts @ ux, pts @ uy
        # (a few pixels of a tile's shadowed corners may join its print: they do not
        # widen it)
        q = (cfg.print_extent_trim, 1.0 - cfg.print_extent_trim)
        extent = float(max(np.diff(np.quantile(u, q))[0], np.diff(np.quantile(v, q))[0]))
        if len(members) == 1 and not middle:
            out.append((members[0].centre_mm, extent, 1))
            continue
        mid = 0.5 * (u.min() + u.max()) * ux + 0.5 * (v.min() + v.max()) * uy
        out.append(((float(mid[0]), float(mid[1])), extent, len(members)))
    return out


def _shift(old: GridFit, new: GridFit) -> float:
    """How far (mm) the new lattice's crossings lie from the old one's nearest."""
    ux, uy = old.axes
    d = np.asarray(new.origin_mm) - np.asarray(old.origin_mm)
    q = np.array([d @ ux, d @ uy]) / old.pitch_mm
    return float(np.hypot(*(q - np.round(q)))) * old.pitch_mm


def _off_centre(up: list[TileReading], cfg: TilesConfig) -> bool:
    """The symbols sit well off their cells' centres (typically: a lattice at a
    fraction of the pitch cut each tile up, so each cell holds a piece of a symbol)."""
    return float(np.median([t.look.off_middle for t in up])) > cfg.hint_offset


def _symbol_offsets(found: list[TileReading]) -> list[float]:
    """How far each clear symbol lies from its cell's centre (in pitches)."""
    return [t.look.off_middle for t in found if t.look.has_symbol and not t.look.faint]


def _alone(found: list[TileReading], group: set[int]) -> bool:
    """No print outside the group lies in a cell beside (or diagonal to) one of its cells."""
    cells = [(found[i].row, found[i].col) for i in group]
    return not any(max(abs(t.row - r), abs(t.col - c)) <= 1 for i, t in enumerate(found)
                   if i not in group and t.look.has_symbol for r, c in cells)


def _all_mid(found: list[TileReading], cfg: TilesConfig) -> bool:
    """Every clear symbol sits near its cell's centre (and there is one)."""
    offs = _symbol_offsets(found)
    return bool(offs) and max(offs) < cfg.hint_offset


def _on_lattice(found: list[TileReading], cfg: TilesConfig) -> bool:
    """The face-up tiles sit in their cells (symbols near the cell centres)."""
    offs = _symbol_offsets(found)
    return bool(offs) and float(np.median(offs)) < cfg.hint_offset


class _HalfView(NamedTuple):
    """The coarse Lab view at half its resolution (_half), its pixels per mm, and its
    channels as float64 planes (occupancy.lab_planes): made once a frame, every cell
    read and the lattice judge take their cell statistics on it."""

    lab: NDArray[np.float32]
    px_per_mm: float
    planes: F64


def _half(coarse_lab: NDArray[np.float32], cfg: TilesConfig) -> tuple[NDArray[np.float32], float]:
    """The coarse view at half its resolution, and its pixels per mm: cell statistics
    need no fine detail, and a quarter the pixels is a quarter the work."""
    half = np.asarray(cv2.resize(coarse_lab, (max(1, coarse_lab.shape[1] // 2), max(1, coarse_lab.shape[0] // 2)),
                                 interpolation=cv2.INTER_AREA), dtype=np.float32)
    return half, cfg.coarse_px_per_mm * half.shape[1] / coarse_lab.shape[1]


def _read_cells(image: NDArray[np.uint8], fit: TableFit, ref: ColourReference,
                halved: _HalfView, grid: GridFit,
                area: tuple[float, float, float, float], cfg: TilesConfig,
                crop_px: int, pale: bool = False,
                prints: tuple[tuple[float, float], ...] = (), detail: bool = True,
                outlines: tuple[NDArray[np.float32], float] | None = None) -> list[TileReading]:
    """Candidate cells from the coarse view (`halved`, made once a frame), then each
    read from the camera frame; with
    `pale`, a blank tile's pale print too (only the last reading tells fronts from backs,
    and that look is as dear as a print's). The cells holding `prints` (table mm: whole
    prints, see _whole_prints) are read too: an outlined symbol leaves its cell's
    centre plain, and with fewer than three clear prints beside it the coarse pass
    has no fronts' face to know it by. Without `detail` the looks leave out the
    prints' shapes and colours (face.analyse_cell). `outlines` (the coarse grey view
    and its pixels per mm) lets the read look beside a few clear prints (beside_clear)."""
    stats = cell_stats(halved.lab, grid, halved.px_per_mm, (area[0], area[1]), area, cfg.face_ring,
                       cfg.centre_fraction, planes64=halved.planes)
    cells, table_lab, table_spread = coarse_candidates(stats, cfg)
    if prints:
        held = [(int(c), int(r)) for c, r in grid.cell_of(np.array(prints, dtype=np.float64))]
        cells = sorted(set(cells) | {k for k in held if k in stats}, key=lambda t: (t[1], t[0]))
    beside: set[tuple[int, int]] = set()
    spread: set[tuple[int, int]] = set()
    hued: set[tuple[int, int]] = set()
    hue_limit = math.inf
    if pale:
        # the last read looks at backs spread by their own print too; such a cell is kept
        # only as a back or with a print mid-cell (a lamp's spot on the table spreads
        # like a back and its rim reads as a print off the cell's middle: CI city 200)
        spread = spread_backs(stats, cells, table_lab, table_spread, cfg)
        cells = sorted(set(cells) | spread, key=lambda t: (t[1], t[0]))
        # ...and at plain backs of another hue than the table's, about its lightness
        hued, hue_limit = hue_backs(stats, cells, table_lab, cfg)
        cells = sorted(set(cells) | hued, key=lambda t: (t[1], t[0]))
    if outlines is not None and \
            0 < len(clear := [k for k, v in stats.items() if v[4] >= cfg.min_centre_contrast]) <= cfg.beside_clear:
        yes, no = _cell_outline_votes(clear, grid, outlines[0], outlines[1], (area[0], area[1]), cfg)
        if yes > no:
            # a few clear prints: the last read reads their side neighbours in full too.
            # Tiles are laid side by side, and an outlined print with a plain middle (a
            # large star or hexagon, on a face of the table's colour) can show the coarse
            # view's centre too little to pass, while a clear print's face vouches for it
            # only from three such prints on (coarse_candidates); the full crop judges it.
            # Such a cell is kept only with a print mid-cell (a cup's rim read as a clear
            # print has pieces of rim beside it, off their cells' middles), and only the
            # last read, on the lattice already chosen, looks: on the reads that choose it,
            # a lattice finer than the tiles (wood grain, loop game 64) found a tile's
            # print cut up beside it, mid-cell, and kept the fine lattice. A cell read for
            # its own sake (a candidate, a whole print's) is judged as ever. Nor is it a
            # lattice the clear prints' own tiles' outlines do not fit: a third too fine, it
            # cut loop game 74's A2 in two and the piece beside lost the whole
            extra = {(c + dc, r + dr) for c, r in clear for dc, dr in SIDE_STEPS}
            beside = {k for k in extra if k in stats} - set(cells)
            cells = sorted(set(cells) | beside, key=lambda t: (t[1], t[0]))
    if not cells:
        return []
    cols = [c for c, _ in cells]
    rows = [r for _, r in cells]
    c0, r0 = min(cols), min(rows)
    nc, nr = max(cols) - c0 + 1, max(rows) - r0 + 1
    n = crop_px
    view = warp_view(image, fit, grid_view_matrix(grid, c0, r0, n), (nc * n, nr * n))
    geo = CellGeometry.make(n)
    found: list[TileReading] = []
    ux, uy = grid.axes
    # every cell's crop normalised for the light at its centre and turned to Lab in one
    # pass each (the same numbers as crop by crop)
    at = np.array(cells, dtype=np.int64)
    crops = view.reshape(nr, n, nc, n, 3)[at[:, 1] - r0, :, at[:, 0] - c0]
    ctrs = [grid.cell_centre_mm(c, r) for c, r in cells]
    whites = np.concatenate([ref.white_at(ctr.reshape(1, 2)) for ctr in ctrs])
    raw = normalise_crops(crops, ref, whites, clip=False)
    # cells in a lamp's spot brighter than the markers' white: a tile there (judged on
    # the clipped crop, like the coarse view's table it is compared with) whose print the
    # clip erased has it read off the crop scaled to fit (copies, taken before the clip)
    glared, scaled = glared_crops(raw, cfg.glare_over_share)
    bgrs = shoulder(raw, 1.0)
    labs = to_lab(bgrs)
    spot = dict(zip(glared, zip(scaled, to_lab(scaled)))) if glared else {}
    with one_thread():
        for i, ((c, r), ctr, bgr, lab) in enumerate(zip(cells, ctrs, bgrs, labs)):
            look = analyse_cell(bgr, lab, geo, cfg, detail, table_lab)
            by_hue = not is_tile(look, table_lab, table_spread, cfg)
            if by_hue and not ((c, r) in hued and is_hue_tile(look, table_lab, hue_limit, cfg)):
                continue
            mid = look.has_symbol and look.off_middle < cfg.hint_offset
            if ((c, r) in beside and not mid) or ((c, r) in spread and look.has_symbol and not mid):
                continue
            look = refined_look(look, bgr, lab, spot.get(i), geo, cfg, detail, pale and (c, r) not in hued)
            if (c, r) in hued and look.has_symbol:
                continue    # looked at as a plain back only: a print there (read off a lamp's
                # spot, city 5236) is the spot's rim
            pos = ctr + grid.pitch_mm * (look.offset[0] * ux + look.offset[1] * uy) if look.has_symbol else ctr
            found.append(TileReading(c, r, (float(pos[0]), float(pos[1])), False, look, spread=(c, r) in spread,
                                     hued=by_hue))
    return found


def refined_look(look: CellLook, bgr: NDArray[np.float32], lab: NDArray[np.float32],
                 spot: tuple[NDArray[np.float32], NDArray[np.float32]] | None, geo: CellGeometry,
                 cfg: TilesConfig, detail: bool, pale: bool) -> CellLook:
    """A cell's first look finished as the last read finishes it: in a lamp's spot
    (`spot`: the crop scaled to fit, and its Lab) whose clip erased the print, the print
    read off the scaled crop; with `pale`, a blank tile's pale print looked for too."""
    if spot is not None and not (look.has_symbol and not look.faint):
        fitted = analyse_cell(spot[0], spot[1], geo, cfg, detail)
        if fitted.has_symbol and not (look.has_symbol and fitted.faint):
            look, bgr, lab = fitted, spot[0], spot[1]
    if pale:
        look = with_pale(look, bgr, lab, geo, cfg)
    return look


def _table_colour(lab: NDArray[np.float32], near: NDArray[np.bool_] | None) -> F64 | None:
    """The bare table's median Lab (grid.table_near), None without a clear table."""
    if near is None or not np.any(near):
        return None
    return np.asarray(np.median(lab[near], axis=0), dtype=np.float64)


def _outlined_backs(tiles: list[TileReading], lab: NDArray[np.float32], grid: GridFit,
                    cpx: float, origin: tuple[float, float], cfg: TilesConfig,
                    table: Callable[[], F64 | None] | None = None) -> list[TileReading]:
    """Face-down (and pale) tiles that show a tile's straight cut edge on every side not shared
    with another tile, about as sharp as the face-up tiles' edges: a plain patch of
    table (a lamp's glare, a felt's shading, grain) differs from the table's median but
    has no straight step along a whole side."""
    backs = [t for t in tiles if _weak(t)]
    if not backs:
        return tiles
    steps = side_steps(lab, grid, cpx, origin, [(t.col, t.row) for t in tiles],
                       cfg.outline_along, cfg.outline_across)
    up_tiles = [t for t in tiles if not _weak(t)]
    if not up_tiles:
        return _faint_alone(tiles, steps, cfg)
    up_cells = {(t.col, t.row) for t in up_tiles}
    free_up = [float(v) for t in up_tiles for v, (dc, dr) in zip(steps[(t.col, t.row)], _SIDES)
               if (t.col + dc, t.row + dr) not in up_cells]
    typical = float(np.median(free_up)) if free_up else float(np.median(list(steps.values())))
    need = max(cfg.back_step_floor, cfg.back_outline * typical)
    design = _back_design(backs, cfg)
    # a side shared with another tile may show no gap at all; a free side borders the
    # table and must show the tile's edge
    def sharpness(colour: F64) -> float:
        # how much of their colour's distance from the table the fronts' free sides
        # show as a step: blur, and a tile's shadow along its edge, take the same
        # share off a back's
        off = [float(np.linalg.norm(t.look.face_lab - colour)) for t in up_tiles]
        return min(1.0, typical / max(float(np.median(off)), 1e-6))

    def least(t: TileReading, colour: F64 | None, sharp: float = 1.0) -> float | None:
        if not _weak(t):
            return None
        if id(t) in design:
            return cfg.back_step_floor
        if colour is None:
            return need
        # ...but no bigger a step than its own face can show against the table: the
        # fronts' steps are as high as their faces lie off it (white fronts on dark
        # wood), and a dark back there shows a third of theirs (cities 5012, 5072). A
        # face within table_delta_e of the table's colour is told from the table by its
        # cut edge alone, and needs it whole: a mat's printed lines step up to 14 delta E
        # on its bare cells (colour bench scene 3 under a warm light: 9 phantom backs)
        off = float(np.linalg.norm(t.look.face_lab - colour))
        # (a back of another hue, hue_backs, is no mat's printed line)
        near = off < cfg.table_delta_e and not t.hued
        return need if near else max(cfg.back_step_floor, min(need, cfg.back_outline * off * sharp))

    kept = _peeled(tiles, steps, lambda t: least(t, None))
    # (the table's colour is found only where a back would be peeled without it)
    colour = None if len(kept) == len(tiles) or table is None else table()
    if colour is None:
        return kept
    sharp = sharpness(colour)
    return _peeled(tiles, steps, lambda t: least(t, colour, sharp))


_SIDES = ((-1, 0), (1, 0), (0, -1), (0, 1))
"""A cell's neighbours (dcol, drow) in side_steps' order: left, right, top, bottom."""


def _peeled(tiles: list[TileReading], steps: dict[tuple[int, int], F64],
            least: Callable[[TileReading], float | None]) -> list[TileReading]:
    """The tiles whose every free side (no tile left beside it) shows a straight step of
    least(t) (None: kept whatever its sides), peeled from the outside in, so a patch of
    phantoms cannot vouch for itself."""
    kept = list(tiles)
    while True:
        taken = {(t.col, t.row) for t in kept}
        nxt = [t for t in kept
               if (m := least(t)) is None
               or all(float(v) >= m for v, (dc, dr) in zip(steps[(t.col, t.row)], _SIDES)
                      if (t.col + dc, t.row + dr) not in taken)]
        if len(nxt) == len(kept):
            return kept
        kept = nxt


def _faint_alone(tiles: list[TileReading], steps: dict[tuple[int, int], F64],
                 cfg: TilesConfig) -> list[TileReading]:
    """With no clear print on the table, the fronts whose faint print _mark_face_down
    let stand, kept where every free side shows a cut edge of faint_alone_step; backs
    with no front to vouch for them go."""
    return _peeled([t for t in tiles if not t.face_down and t.look.has_symbol], steps,
                   lambda t: cfg.faint_alone_step)


def _weak(t: TileReading) -> bool:
    """A tile that only its plain face vouches for (a back, or a front whose print is
    at noise level): it must show its cut edge."""
    return t.face_down or t.pale


def _back_design(backs: list[TileReading], cfg: TilesConfig) -> set[int]:
    """ids of the backs that share one printed design (a logo of one shape and colour on
    one face colour): the backs of the game. Their cut edge may be faint against a table
    of about their colour; the print repeated from back to back is the evidence a patch
    of table or glare never shows."""
    printed = [t for t in backs if t.look.has_symbol and not t.look.faint]
    groups = _designs(printed, cfg)
    if not groups:
        return set()
    return {id(printed[i]) for i in max(groups, key=len)}


def _designs(printed: list[TileReading], cfg: TilesConfig) -> list[list[int]]:
    """Indices of the tiles that share one printed design (one face colour, one print
    colour, one shape), per design shown at least twice."""
    if len(printed) < 2:
        return []
    face = pairwise(np.array([t.look.face_lab for t in printed])) / cfg.table_delta_e
    mark = pairwise(np.array([t.look.symbol_lab for t in printed])) / cfg.colour_merge
    shp = np.array([t.look.shape for t in printed])
    form = shape_distances(shp, shp, cfg.shape_angles, cfg.shape_shift) / cfg.shape_merge
    ids = agglomerate(np.maximum(np.maximum(face, mark), form), 1.0)
    return [[i for i, g in enumerate(ids) if g == k] for k in set(ids) if ids.count(k) >= 2]


def _off_designs(sym: list[TileReading], const: NDArray[np.float64], front: NDArray[np.float64],
                 cfg: TilesConfig) -> set[int]:
    """ids of the printed tiles whose design repeats exactly (face, print and shape) and
    whose constant part lies off the fronts' by more than facedown_near_de: the backs
    of the game. A front's design repeats too (a game holds each shape and colour more
    than once), but on the fronts' face; glare that lifts one glossy front does not
    lift a second of the same print the same way. The loose bound (facedown_far_de)
    that glare on dark fronts calls for would take such backs for fronts."""
    out: set[int] = set()
    for g in _designs(sym, cfg):
        part = np.median(const[g], axis=0)
        if float(np.linalg.norm(part - front)) > cfg.facedown_near_de:
            out |= {id(sym[i]) for i in g}
    return out


def _main_group(tiles: list[TileReading], cfg: TilesConfig | None = None) -> set[int]:
    """Indices of the largest group of tiles joined side by side whose symbols sit in
    their cells: the tiles of the game. A hand or a stray card off to one side reads as
    a few "tiles" of its own, which must not decide what the fronts of the game look
    like; a cup's round rim read on the city's lattice is a larger group, but its
    pieces of print lie off their cells' middles (median at least cfg.hint_offset
    pitches), while a game's symbols sit mid-cell. Groups are weighed by their clear
    prints, then their size: a cup's rim that happens to fall about the middles of its
    cells is blank in some (loop bench game 234: 9 cells, 6 printed, against a city of
    8 printed tiles, and the city was taken for backs)."""
    if cfg is None:
        return max(side_groups(tiles), key=len, default=set())
    clear = [_vouches(t) for t in tiles]

    def weight(group: set[int]) -> tuple[bool, int, int]:
        return _on_lattice([tiles[i] for i in group], cfg), sum(clear[i] for i in group), len(group)

    return max(side_groups(tiles), key=weight, default=set())


def _vouches(t: TileReading) -> bool:
    """A clear print that says what the game's fronts look like: a cell only
    spread_backs looked at joins its group but vouches for no print (a hand's fingers
    outweighed loop game 309's city so)."""
    return t.look.has_symbol and not t.look.faint and not t.spread


def _glare_weights(cfg: TilesConfig) -> F64:
    """Lab weights for comparing faces: a lamp's glare lifts a glossy face towards
    grey-white (a dark face by tens of L) while its hue stays, so lightness counts for
    less than colour."""
    return np.array([cfg.glare_l_weight, 1.0, 1.0])


def _two_faces_vary(sym: list[TileReading], cfg: TilesConfig) -> bool:
    """Whether two printed fronts carry their colour on the face: their faces are far
    apart (or apart in a*b* alone, which a lamp's glare barely moves on a neutral face)
    while their prints agree (white symbols on a grey and a cyan face), for the fronts
    of a print-coloured set share one face. Read off the prints, two such tiles share a
    colour, and the second tile of a game was alerted for it."""
    if len(sym) != 2:
        return False
    a, b = sym
    faces = float(np.linalg.norm((a.look.face_lab - b.look.face_lab) * _glare_weights(cfg)))
    marks = float(np.linalg.norm(a.look.symbol_lab - b.look.symbol_lab))
    hues = float(np.linalg.norm(a.look.face_lab[1:] - b.look.face_lab[1:]))
    return (faces > cfg.two_faces_apart_de or hues > cfg.two_faces_hue_de) and marks <= cfg.colour_merge


def _mark_face_down(tiles: list[TileReading], cfg: TilesConfig) -> bool:
    """Decide which tiles show their back, and which print carries the tile's colour.

    Tiles of one game share one constant part of their print: usually the face colour
    (symbols vary), sometimes the symbol colour (a white symbol on faces of every
    colour). Whichever varies less across the tiles is the constant part; a blank
    tile, or one whose constant part is off, shows its back. Returns True when the
    colour is carried by the face."""
    sym = [t for t in tiles if _vouches(t)]
    main = _main_group(tiles, cfg)
    in_main = [t for i, t in enumerate(tiles) if i in main and _vouches(t)]
    if len(in_main) >= 3:
        sym = in_main
    for t in tiles:
        t.colour_lab = t.look.symbol_lab
    if not sym:
        # no clear print anywhere: a faint print is a front only if its cut edge shows
        # (_outlined_backs, faint_alone_step); a blank tile is a back
        for t in tiles:
            t.face_down = not t.look.has_symbol
            t.pale = t.pale or t.look.has_symbol
        return False
    if len(sym) < 3:
        # one or two printed tiles cannot show which look is the fronts' (two fronts
        # under a lamp differ as much as a front and a back): a print is a front, but
        # one seen only at faint_symbol_de (a mat's lines across a cell of a face off
        # the table's) vouches no more than a pale print: the tile must show its cut edge
        for t in tiles:
            t.face_down = not t.look.has_symbol
            t.pale = t.pale or t.look.faint
        on_face = _two_faces_vary(sym, cfg)
        if on_face:
            for t in sym:
                t.colour_lab = t.look.face_lab
        return on_face
    w = _glare_weights(cfg)
    faces = np.array([t.look.face_lab for t in sym]) * w
    marks = np.array([t.look.symbol_lab for t in sym])
    face_ids = np.array(agglomerate(pairwise(faces), cfg.facedown_delta_e))
    mark_ids = np.array(agglomerate(pairwise(marks), cfg.colour_merge))
    n_face, n_mark = len(set(face_ids.tolist())), len(set(mark_ids.tolist()))
    # one print colour across tiles whose faces differ: the colour is the face's (a
    # back's logo in the very colour of every front's print is the rarer reading)
    on_face = n_face > n_mark + 1 or (n_mark == 1 and n_face == 2)
    const, const_ids, var_ids = (marks, mark_ids, face_ids) if on_face else (faces, face_ids, mark_ids)
    # The fronts are the constant-part group carrying the most different varying parts:
    # a tile back's logo, or print on the table, repeats one look.
    best = max(set(const_ids.tolist()), key=lambda g: (len(set(var_ids[const_ids == g].tolist())),
                                                         int(np.count_nonzero(const_ids == g))))
    front = np.median(const[const_ids == best], axis=0)
    # how far a back lies: beyond what the fronts' own constant part varies by (a print
    # run's and a lamp's doing), within bounds
    vary = float(np.percentile(np.linalg.norm(const[const_ids == best] - front, axis=1), 90.0))
    far_de = min(cfg.facedown_far_de, max(cfg.facedown_near_de, cfg.facedown_vary * vary))
    # (only a face repeats alike on every front: a print's colour read off a thin line
    # carries some of its face's, alike on two fronts of one colour and shape)
    design = set() if on_face else _off_designs(sym, const, front, cfg)
    # a front a lamp's sheen lifts less than its fellows (or more), or whose print reaches
    # its face ring, still shows their face on its darker part: a back shows its own on
    # both. Only in the city's group: a hand's fingers are a "print" too, and the shadows
    # between them as dark as dark fronts (loop game 19: a hand's cells taken for fronts
    # moved a city tile to the pioneer's shape group); and only for a print near its
    # cell's middle (cfg.dark_mid), not a neighbour's reaching in with its own dark ink
    darks = [t.look.face_dark for t in sym if t.look.face_dark is not None]
    fronts = const_ids == best
    dark_front = None if on_face or len(darks) < len(sym) or np.count_nonzero(fronts) < cfg.dark_fronts else \
        np.median(np.array(darks)[fronts] * w, axis=0)
    for i, t in enumerate(tiles):
        if not t.look.has_symbol and t.look.pale is not None:
            # a blank tile with the fronts' constant part and a print at noise level is
            # a front whose thin print the noise hid, not a back
            pale = t.look.pale
            part = pale.symbol_lab if on_face else pale.face_lab * w
            if float(np.linalg.norm(part - front)) <= far_de:
                t.look, t.pale = pale, True
                t.colour_lab = pale.symbol_lab
        part = t.look.symbol_lab if on_face else t.look.face_lab * w
        far = float(np.linalg.norm(part - front)) > far_de or id(t) in design
        if far and dark_front is not None and t.look.face_dark is not None and id(t) not in design \
                and i in main and t.look.off_middle <= cfg.dark_mid:
            far = float(np.linalg.norm(t.look.face_dark * w - dark_front)) > far_de
        t.face_down = (not t.look.has_symbol) or far
        if on_face:
            t.colour_lab = t.look.face_lab
    return on_face


def _group(out: TilesReading, cfg: TilesConfig, shapes: int | None, colours: int | None,
           copies: int | None = None) -> None:
    up = [t for t in out.tiles if not t.face_down]
    if not up:
        return
    shp = np.array([t.look.shape for t in up])
    sd = shape_distances(shp, shp, cfg.shape_angles, cfg.shape_shift)
    cd = pairwise(np.array([t.colour_lab for t in up]))
    # a box holding each (shape, colour) `copies` times holds each shape in at most
    # colours x copies tiles, and each colour in shapes x copies
    s_cap = colours * copies if colours is not None and copies is not None else None
    c_cap = shapes * copies if shapes is not None and copies is not None else None
    sg, s_cut = agglomerate_cut(sd, cfg.shape_merge, shapes, cfg.shape_window, s_cap)
    cg, c_cut = agglomerate_cut(cd, cfg.colour_merge, colours, cfg.colour_window, c_cap)
    if copies is not None:
        sg, cg = one_of_each(sd, cd, sg, cg, (s_cut, c_cut), copies, (shapes, colours), cfg.pair_move_most)
    s_alt = hesitations(sd, sg, s_cut, cfg.shape_hesitate, cfg.shape_alone, cfg.alone_most, cfg.shape_single,
                        cfg.shape_apart)
    c_alt = hesitations(cd, cg, c_cut, cfg.colour_hesitate, cfg.colour_alone, cfg.alone_most, cfg.colour_single,
                        cfg.colour_apart)
    for t, s, c, sa, ca in zip(up, sg, cg, s_alt, c_alt):
        t.shape_group, t.colour_group = s, c
        t.shape, t.colour = f"shape-{s + 1}", f"colour-{c + 1}"
        t.shape_candidates, t.colour_candidates = sa, ca
    out.shape_groups = max(sg) + 1
    out.colour_groups = max(cg) + 1
