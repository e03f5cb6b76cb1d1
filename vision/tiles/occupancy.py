"""Which lattice cells hold a tile.

Coarse pass (cheap, whole play area): a candidate cell shows a symbol in its centre or a
plain face unlike the bare table. Fine pass (candidates only): a tile shows a symbol, or
a plain face unlike the bare table (a tile's back), and a back needs a straight cut edge
on its free sides (side_steps).
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.tiles.config import TilesConfig
from vision.tiles.face import CellLook
from vision.tiles.grid import GridFit
from vision.tiles.robust import norm_planes
from vision.tiles.trust import SIDE_STEPS

F32 = NDArray[np.float32]
F64 = NDArray[np.float64]


def is_tile(look: CellLook, table_lab: F64, table_spread: float, cfg: TilesConfig) -> bool:
    """A symbol on a face, or a plain face that is not the bare table."""
    if look.has_symbol and not look.faint:
        return True
    de = float(np.linalg.norm(look.face_lab - table_lab))
    return de > max(cfg.table_delta_e, 3.0 * table_spread)


def cell_stats(lab: F32, grid: GridFit, px_per_mm: float, origin_mm: tuple[float, float],
               area: tuple[float, float, float, float], ring: tuple[float, float],
               inner: float, bare: NDArray[np.bool_] | None = None,
               planes64: F64 | None = None) -> dict[tuple[int, int], F64]:
    """Per cell wholly inside the area: ring mean L, a, b, ring spread (RMS delta E),
    and the centre's mean delta E from the ring mean (a symbol's strength); with a
    `bare` table mask (grid.table_near, the view's shape), also the share of the
    centre that is bare table. planes64: lab_planes(lab), when the caller has it."""
    cells, rows = cell_table(lab, grid, px_per_mm, origin_mm, area, ring, inner, bare, planes64)
    return {(c, r): np.array(row) for (c, r), row in zip(cells, rows)}


def lab_planes(lab: F32) -> F64:
    """A Lab view's channels as float64 planes (3, h * w), for cell_table: a view that
    many lattices are judged on is laid out once."""
    return np.ascontiguousarray(lab.reshape(-1, 3).T, dtype=np.float64)


def cell_table(lab: F32, grid: GridFit, px_per_mm: float, origin_mm: tuple[float, float],
               area: tuple[float, float, float, float], ring: tuple[float, float],
               inner: float, bare: NDArray[np.bool_] | None = None,
               planes64: F64 | None = None) -> tuple[list[tuple[int, int]], F64]:
    """cell_stats as its cells (col, row) and one row of statistics per cell, without the
    dict (the lattice judge wants the rows alone). planes64: lab_planes(lab), when the
    caller has it."""
    h, w = lab.shape[:2]
    ux, uy = grid.axes
    # a pixel's table x depends on its column only, y on its row only: each is worked
    # out once per column (row) and the lattice coordinates broadcast from them
    xs = np.arange(w, dtype=np.float32)
    ys = np.arange(h, dtype=np.float32)[:, None]
    X = origin_mm[0] + (xs + 0.5) / px_per_mm - grid.origin_mm[0]
    Y = origin_mm[1] + (ys + 0.5) / px_per_mm - grid.origin_mm[1]
    u = (X * ux[0] + Y * ux[1]) / grid.pitch_mm
    v = (X * uy[0] + Y * uy[1]) / grid.pitch_mm
    cu, cv = np.floor(u), np.floor(v)
    # |u - cu - 0.5| in place (the same float32 steps), then the larger of the two
    u -= cu
    u -= 0.5
    np.abs(u, out=u)
    v -= cv
    v -= 0.5
    np.abs(v, out=v)
    cheb = np.maximum(u, v, out=u).ravel()
    cmin, rmin = float(cu.min()), float(cv.min())
    ncol = int(cu.max() - cmin) + 1
    nk = ncol * (int(cv.max() - rmin) + 1)
    # the cell's index as whole numbers in float32 (exact: far below 2**24), one cast
    cv -= rmin
    cv *= ncol
    cu -= cmin
    cv += cu
    key = cv.astype(np.int64).ravel()
    rs = (cheb >= ring[0]) & (cheb <= ring[1])
    ins = cheb < inner
    # only ring and centre pixels count: each channel as its own plane, over those alone
    used = rs | ins
    k_used = key[used]
    at = np.flatnonzero(used)
    if planes64 is None:
        planes = list(np.ascontiguousarray(lab.reshape(-1, 3).take(at, axis=0).T, dtype=np.float64))
    else:
        planes = list(planes64.take(at, axis=1))
    rs_u, ins_u = rs[used], ins[used]
    k_rs, k_ins = k_used[rs_u], k_used[ins_u]
    n_r = np.bincount(k_rs, minlength=nk).astype(np.float64)
    sums = np.stack([np.bincount(k_rs, weights=p[rs_u], minlength=nk) for p in planes], 1)
    means = np.asarray(sums / np.maximum(n_r, 1.0)[:, None], dtype=np.float64)
    de = norm_planes([p - np.take(np.ascontiguousarray(means[:, i]), k_used) for i, p in enumerate(planes)])
    spread = np.sqrt(np.bincount(k_rs, weights=de[rs_u] ** 2, minlength=nk) / np.maximum(n_r, 1.0))
    n_i = np.bincount(k_ins, minlength=nk).astype(np.float64)
    centre = np.bincount(k_ins, weights=de[ins_u], minlength=nk) / np.maximum(n_i, 1.0)
    cols = [means[:, 0], means[:, 1], means[:, 2], spread, centre]
    if bare is not None:
        on_bare = ins & np.asarray(bare, dtype=bool).ravel()
        cols.append(np.bincount(key[on_bare], minlength=nk) / np.maximum(n_i, 1.0))
    table = np.stack(cols, 1)
    count = np.bincount(key, minlength=nk)
    x0, y0, x1, y1 = area
    h2 = 0.35 * grid.pitch_mm
    ks = np.nonzero(count >= 0.8 * (grid.pitch_mm * px_per_mm) ** 2)[0]
    c = ks % ncol + int(cmin)
    r = ks // ncol + int(rmin)
    # GridFit.cell_centre_mm of every cell at once (the same arithmetic, element by element)
    o = np.asarray(grid.origin_mm, dtype=np.float64)
    ctr = o + grid.pitch_mm * ((c[:, None] + 0.5) * ux + (r[:, None] + 0.5) * uy)
    inside = (x0 + h2 <= ctr[:, 0]) & (ctr[:, 0] <= x1 - h2) & (y0 + h2 <= ctr[:, 1]) & (ctr[:, 1] <= y1 - h2)
    pick = np.nonzero(inside)[0]
    return list(zip(c[pick].tolist(), r[pick].tolist())), np.asarray(table[ks[pick]], dtype=np.float64)


def printed(v: F64, cfg: TilesConfig) -> NDArray[np.bool_]:
    """Rows of cell_stats (with the bare column when it is there) that show a symbol on
    something other than bare table: a mat's ruled lines crossing a cell read as a
    print, but the cell is the table's colour all over."""
    sym = v[:, 4] >= cfg.min_centre_contrast
    if v.shape[1] > 5:
        sym &= v[:, 5] < cfg.bare_share
    return np.asarray(sym, dtype=np.bool_)


def lattice_score(stats: dict[tuple[int, int], F64], cfg: TilesConfig) -> float:
    """How tile-like a lattice's cells look: over the cells with a symbol in the centre,
    the median of its contrast over the face ring's spread. On the tiles' own lattice a
    symbol sits mid-cell inside a plain face; a lattice at a symbol's width, a mat's
    print or a wrong pitch puts tile sides, gaps and other tiles into the ring."""
    if not stats:
        return 0.0
    return rows_score(np.array(list(stats.values())), cfg)


def rows_score(v: F64, cfg: TilesConfig) -> float:
    """lattice_score of cell_table's rows."""
    if len(v) == 0:
        return 0.0
    sym = printed(v, cfg)
    if not np.any(sym):
        return 0.0
    return float(np.median(v[sym, 4] / np.maximum(v[sym, 3], cfg.judge_floor)))


def coarse_candidates(stats: dict[tuple[int, int], F64], cfg: TilesConfig
                      ) -> tuple[list[tuple[int, int]], F64, float]:
    """Cells that may hold a tile (a symbol in the centre, or a plain face unlike the
    table), with the bare table's colour and how far a bare cell's colour strays from
    it (is_tile's table_spread), measured on the other cells."""
    if not stats:
        return [], np.array([50.0, 0.0, 0.0]), 0.0
    keys = list(stats)
    v = np.array([stats[k] for k in keys])
    symbol = v[:, 4] >= cfg.min_centre_contrast
    bare = ~symbol
    fronts = np.zeros(len(v), dtype=bool)
    if np.count_nonzero(symbol) >= 3:
        # the tiles with a clear print share one face colour (unless the colour is the
        # face's): cells of that face with a pale print (thin outlines) are tiles too,
        # and must not be taken for the table when the city covers most of the area
        face = np.median(v[symbol, :3], axis=0)
        if float(np.median(np.linalg.norm(v[symbol, :3] - face, axis=1))) < cfg.table_delta_e / 2:
            fronts = np.linalg.norm(v[:, :3] - face, axis=1) < cfg.table_delta_e / 2
            # ...unless the table itself has the fronts' colour: then the cells two or
            # more cells away from any print (bare table for sure) look like fronts too
            sym_cells = np.array([keys[i] for i in np.nonzero(symbol)[0]])
            at = np.array(keys)
            gap = np.abs(at[:, None, :] - sym_cells[None, :, :]).max(axis=2).min(axis=1)
            away = bare & (gap >= 2)
            if np.count_nonzero(away) >= 3 and np.mean(fronts[away]) > 0.5:
                fronts[:] = False
            elif np.any(bare & ~fronts):
                bare &= ~fronts
    rest = v[bare] if np.any(bare) else v
    table = np.median(rest[:, :3], axis=0)
    spread = float(np.median(rest[:, 3]))
    # how far a bare cell's colour strays: the ring's texture bounds it, but a mat's
    # printed lines crossing every ring make that texture large while the cells' colour
    # hardly moves from cell to cell, and a back a little off the mat's colour is lost;
    # the cells' own scatter about the table's colour bounds it too
    scatter = float(np.median(np.linalg.norm(rest[:, :3] - table, axis=1)))
    vary = min(spread, scatter)
    far = np.linalg.norm(v[:, :3] - table, axis=1) > max(cfg.table_delta_e, 3.0 * vary)
    plain = (v[:, 3] <= max(cfg.plain_spread, 1.5 * spread)) & far
    # an outlined symbol leaves the centre nearly plain: on a plain table, whose bare
    # cells' centres vary far less, a few delta E there is a print too, on a face of the
    # clearly printed tiles' (a lamp's glare on the table has a soft bright centre)
    quiet = float(np.median(v[~symbol, 4])) if np.any(~symbol) else 0.0
    if np.count_nonzero(symbol) >= 3:
        face = np.median(v[symbol, :3], axis=0)
        if float(np.median(np.linalg.norm(v[symbol, :3] - face, axis=1))) < cfg.table_delta_e / 2:
            symbol |= ((v[:, 4] >= max(cfg.centre_floor, cfg.centre_noise * quiet))
                       & (np.linalg.norm(v[:, :3] - face, axis=1) < cfg.table_delta_e / 2))
    pick = symbol | plain | (fronts & far)
    cells = sorted((keys[i] for i in np.nonzero(pick)[0]), key=lambda t: (t[1], t[0]))
    return cells, table, vary


def spread_backs(stats: dict[tuple[int, int], F64], cells: list[tuple[int, int]], table: F64,
                 vary: float, cfg: TilesConfig) -> set[tuple[int, int]]:
    """Cells coarse_candidates passed over that may be backs whose own print (a ring, a
    texture) or a ring reaching the cell's rim spread past plain_spread (CI city 203's
    two backs showed 9, city 201's 9.4): far from the table, no wider than back_spread,
    and within table_delta_e / 2 of another such cell's colour (backs share one colour;
    a table's odd cells seldom do), or alone, twice as far from the table, beside a
    clear print."""
    if not stats:
        return set()
    keys = list(stats)
    v = np.array([stats[k] for k in keys])
    off = np.linalg.norm(v[:, :3] - table, axis=1)
    bound = max(cfg.table_delta_e, 3.0 * vary)
    kin = (off > bound) & (v[:, 3] <= cfg.back_spread)
    alike = _share_colour(v, kin, cfg)
    passed = set(cells)
    # ...or, alone, twice as far from the table beside a clear print: a lone back in a
    # lamp's glare or with its own print spreads like this (cities 5179, 5182, 5184)
    clear = {k for k in passed if stats[k][4] >= cfg.min_centre_contrast}
    lone = (off > 2.0 * bound) & \
        np.array([any((c + dc, r + dr) in clear for dc, dr in SIDE_STEPS) for c, r in keys])
    return {k for k, ok in zip(keys, kin & (alike | lone)) if ok and k not in passed}


def _share_colour(v: F64, kin: NDArray[np.bool_], cfg: TilesConfig) -> NDArray[np.bool_]:
    """Per cell (rows of cell stats), whether it and at least one more of the `kin` cells
    lie within table_delta_e / 2 of its colour: backs share one colour, a table's odd
    cells seldom do."""
    return np.asarray(np.count_nonzero(np.linalg.norm(v[:, None, :3] - v[None, kin, :3], axis=2)
                                       < cfg.table_delta_e / 2, axis=1) >= 2)


def hue_backs(stats: dict[tuple[int, int], F64], cells: list[tuple[int, int]], table: F64,
              cfg: TilesConfig) -> tuple[set[tuple[int, int]], float]:
    """Cells coarse_candidates passed over that may be plain backs of another hue than
    the table's but about its lightness, and the a*b* distance from the table's colour
    a cell must reach (is_hue_tile). The bound is set by the bare cells' own a*b*
    scatter: a lamp's falloff spreads a table's lightness, which the Lab bound of
    coarse_candidates must allow for, but hardly its hue. Such a cell must share its
    colour (within table_delta_e / 2) with another cell off the table's hue: backs
    share one colour, a table's odd cells seldom do."""
    if not stats:
        return set(), math.inf
    keys = list(stats)
    v = np.array([stats[k] for k in keys])
    passed = set(cells)
    bare = np.array([k not in passed and row[4] < cfg.min_centre_contrast for k, row in zip(keys, v)])
    if not np.any(bare):
        return set(), math.inf
    hue = np.linalg.norm(v[:, 1:3] - table[1:3], axis=1)
    limit = max(cfg.hue_back_de, cfg.hue_back_scatter * float(np.median(hue[bare])))
    kin = (hue > limit) & (v[:, 3] <= cfg.plain_spread)
    alike = _share_colour(v, kin, cfg)
    return {k for k, ok in zip(keys, kin & alike) if ok and k not in passed}, limit


def is_hue_tile(look: CellLook, table_lab: F64, limit: float, cfg: TilesConfig) -> bool:
    """A plain face whose hue lies `limit` or more (a*b*) from the table's (hue_backs)."""
    return (look.face_spread <= cfg.plain_spread
            and float(np.linalg.norm(look.face_lab[1:] - table_lab[1:])) > limit)


REMAP_ROWS = 32000
"""Rows of sample map per cv2.remap call (it asserts fewer than 32767)."""


def side_steps(lab: F32, grid: GridFit, px_per_mm: float, origin_mm: tuple[float, float],
               cells: list[tuple[int, int]], along: float = 0.3, across: float = 0.2,
               step_mm: float = 0.5, width_mm: float = 1.5) -> dict[tuple[int, int], F64]:
    """The sharpest straight step (delta E) across each side (left, right, top, bottom)
    of each cell, searched within `across` pitches of the lattice line.

    The colour is averaged ALONG the side before it is differenced across it, so only
    an edge that runs straight the whole way survives: a tile's cut edge does, while
    noise, wood flecks and a lamp's smooth glare average out or have no step at all.
    """
    if not cells:
        return {}
    ux, uy = grid.axes
    p = grid.pitch_mm
    t = np.linspace(-along * p, along * p, max(8, int(2 * along * p / 1.0)))
    d = np.arange(-across * p, across * p + 1e-9, step_mm)
    pts = []
    for c, r in cells:
        ctr = grid.cell_centre_mm(c, r)
        for normal, tangent, sign in ((ux, uy, -1), (ux, uy, 1), (uy, ux, -1), (uy, ux, 1)):
            base = ctr + sign * 0.5 * p * normal
            pts.append(base[None, None, :] + t[:, None, None] * tangent + (sign * d)[None, :, None] * normal)
    grid_pts = np.concatenate(pts, axis=0)            # (cells*4*nt, nd, 2)
    mx = ((grid_pts[..., 0] - origin_mm[0]) * px_per_mm - 0.5).astype(np.float32)
    my = ((grid_pts[..., 1] - origin_mm[1]) * px_per_mm - 0.5).astype(np.float32)
    # cv2.remap takes maps of fewer than 32767 rows (SHRT_MAX): many cells on a coarse
    # lattice's pitch make more (alerts bench game 5172: the look failed with an error)
    src = np.ascontiguousarray(lab, dtype=np.float32)
    samples = np.concatenate([cv2.remap(src, mx[i:i + REMAP_ROWS], my[i:i + REMAP_ROWS], cv2.INTER_LINEAR,
                                        borderMode=cv2.BORDER_REPLICATE)
                              for i in range(0, mx.shape[0], REMAP_ROWS)], axis=0)
    prof = samples.reshape(len(cells) * 4, len(t), len(d), 3).mean(axis=1)   # (sides, nd, 3)
    w = max(1, int(round(width_mm / step_mm)))
    cs = np.concatenate([np.zeros((prof.shape[0], 1, 3)), np.cumsum(prof, axis=1)], axis=1)
    before = (cs[:, w:-w] - cs[:, :-2 * w]) / w       # mean of the w samples before each cut
    after = (cs[:, 2 * w:] - cs[:, w:-w]) / w
    step = np.linalg.norm(after - before, axis=2).max(axis=1) if before.shape[1] else np.zeros(len(prof))
    return {cell: np.asarray(step[4 * i:4 * i + 4], dtype=np.float64) for i, cell in enumerate(cells)}
