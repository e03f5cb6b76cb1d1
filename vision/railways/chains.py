"""Chains of clips: wire evidence per colour, centre lines of the chain bands (found by
vision.railways.trace), gaps bridged, and the straightened strip the clip counter reads.

Why per colour: a link is one player's colour from end to end, so two links crossing
separate by colour; only a player's own links crossing each other share a band, and the
skeleton pairs those at the crossing. A chain covered by another (crossings, cubes, a
hand) leaves a gap; ends that face each other across a short gap are joined.
"""

from __future__ import annotations

from typing import Any, Callable, Union
import math
from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.railways import skeleton as sk
from vision.railways.clip_counter import STEP_MM
from vision.railways.config import RailwaysConfig
from vision.railways.frame import TopView

U8 = NDArray[Any]
F32 = NDArray[Any]
F64 = NDArray[Any]


@dataclass
class Chain:
    """A chain's centre line in table mm (from one end to the other) and its colour."""

    colour: str
    path_mm: F64
    pieces: int = 1                      # how many visible pieces were joined
    ends_free: list[bool] = field(default_factory=lambda: [True, True])


def wire_maps(view: TopView, colours: dict[str, tuple[int, int, int]], cfg: RailwaysConfig,
              bg: U8) -> tuple[dict[str, U8], dict[str, U8]]:
    """Wire evidence per colour (0..255) and where each colour is invisible (0/1)."""
    from vision.railways.frame import mixing_evidence
    return mixing_evidence(view.image, bg, colours, residual=cfg.mix_residuals(colours))


def fill_small_holes(blob: U8, max_area: float) -> U8:
    """The blob (0/1, one cell per mm, its border clear) with every hole of at most
    max_area cells filled. Why: a few band cells inside a chain lost to another colour's
    speck or to no evidence (a white chain on a pale mat) leave pinholes; each is a loop
    of the skeleton, whose junctions cut the chain's line into pieces too short to keep
    (dev 2139: a 122 mm link traced as 50 mm). A real hole in a band (chains of one
    colour closing a loop) is far larger than a clip's width squared."""
    n, lab, stats, _ = cv2.connectedComponentsWithStats((blob == 0).astype(np.uint8), connectivity=4)
    if n <= 2:
        return blob
    small = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] <= max_area)
    small = small[(small != 0) & (small != lab[0, 0])]     # 0: the blob itself; lab[0, 0]: the outside
    if not len(small):
        return blob
    out = blob.copy()
    out[np.isin(lab, small)] = 1
    return out


def chain_paths(band: U8, origin_mm: tuple[float, float], cfg: RailwaysConfig) -> list[F64]:
    """Centre lines (table mm) of every band blob big enough to be a chain."""
    n, lab, stats, _ = cv2.connectedComponentsWithStats(band, connectivity=8)
    out: list[F64] = []
    for i in range(1, n):
        if stats[i, cv2.CC_STAT_AREA] < cfg.min_chain_area_mm2:
            continue
        x, y, w, h = stats[i, 0], stats[i, 1], stats[i, 2], stats[i, 3]
        if max(w, h) < 22:
            continue
        area = float(stats[i, cv2.CC_STAT_AREA])
        if area > cfg.max_chain_area_mm2 and area > cfg.max_chain_fill * float(w) * float(h):
            # a table-sized patch of one colour (a blue cloth under the River's colours, a
            # textured mat): no chain is that wide, and thinning it costs a minute
            continue
        crop = (lab[y:y + h, x:x + w] == i).astype(np.uint8)
        crop = np.pad(crop, 2)
        if cfg.chain_hole_mm2 > 0:
            crop = fill_small_holes(crop, cfg.chain_hole_mm2)
        args = (crop, cfg.spur_mm, cfg.cross_mid_mm, cfg.cross_turn_deg, int(cfg.cross_skip_mm),
                int(cfg.cross_span_mm))
        got = sk.paths(*args)
        longest = max((sk.path_length(p) for p in got), default=0.0)
        if cfg.unstair_lost and longest < 10:
            # the blob's line was lost whole (a short chain thinned to a staircase whose
            # steps are all junctions): taken again without the staircase's corners
            got = sk.paths(*args, unstaired=True)
        elif cfg.unstair_short_share > 0 and longest < cfg.unstair_short_share * max(w, h):
            # or lost mostly: the longest line is far shorter than the blob (a short link
            # between two cards, aslant: dev 2128's 60 mm band gave 10 mm); taken again
            # without the corners when that gives a longer line
            again = sk.paths(*args, unstaired=True)
            if max((sk.path_length(p) for p in again), default=0.0) > longest:
                got = again
        for p in got:
            if sk.path_length(p) < 10:
                continue
            p = sk.smooth(p, 9) + np.array([x - 2, y - 2]) + 0.5
            out.append(np.asarray(p + np.asarray(origin_mm), dtype=np.float64))
    return out


def _root(group: list[int], x: int) -> int:
    """Union-find root of piece x (paths halved): pieces joined end to end must not close a loop."""
    while group[x] != x:
        group[x] = group[group[x]]
        x = group[x]
    return x


def bridge(paths: list[F64], cfg: RailwaysConfig) -> list[tuple[F64, int]]:
    """Join path ends that face each other across a short gap; returns (path, pieces).
    Candidate joins are scored once and taken greedily, best first, each end once."""
    paths = [p for p in paths if sk.path_length(p) >= 8.0]
    n = len(paths)
    if n < 2:
        return [(p, 1) for p in paths]
    ends = np.array([[p[0], p[-1]] for p in paths]).reshape(-1, 2)          # 2n x 2
    dirs = np.array([[_heading(p, True, cfg), _heading(p, False, cfg)] for p in paths]).reshape(-1, 2)
    dist = np.hypot(ends[:, None, 0] - ends[None, :, 0], ends[:, None, 1] - ends[None, :, 1])
    lim = math.cos(math.radians(cfg.bridge_angle_deg))
    cands: list[tuple[float, int, int]] = []
    ii, jj = np.nonzero(dist <= cfg.bridge_mm)
    for a_, b_ in zip(ii.tolist(), jj.tolist()):
        if a_ >= b_ or a_ // 2 == b_ // 2:
            continue
        gap = float(dist[a_, b_])
        v = ends[b_] - ends[a_]
        da, db = dirs[a_], dirs[b_]
        if float(da @ -db) < lim * 0.8:
            continue
        # where each end lies from the other's heading: ahead (or a little behind, when
        # the two pieces overshoot each other in a crossing) and not far to the side
        lon_a, lon_b = float(da @ v), float(db @ -v)
        lat_a = abs(float(da[0] * v[1] - da[1] * v[0]))
        lat_b = abs(float(db[0] * v[1] - db[1] * v[0]))
        side = max(cfg.bridge_lateral_mm, gap * math.sin(math.radians(cfg.bridge_angle_deg)))
        if min(lon_a, lon_b) < -cfg.bridge_overlap_mm or max(lat_a, lat_b) > side:
            continue
        # a chain runs straight on through a crossing: how well the two headings continue
        # each other counts first (two chains crossing at a shallow angle leave four ends
        # close together), then how far to the side the ends miss, then the gap
        cands.append(((1.0 - float(da @ -db)) * cfg.bridge_turn_cost + lat_a + lat_b + gap * 0.05, a_, b_))
    cands.sort()
    partner: dict[int, int] = {}
    group = list(range(n))

    for _, a_, b_ in cands:
        if a_ in partner or b_ in partner:
            continue
        if _root(group, a_ // 2) == _root(group, b_ // 2):      # would close a loop
            continue
        partner[a_] = b_
        partner[b_] = a_
        group[_root(group, a_ // 2)] = _root(group, b_ // 2)
    out: list[tuple[F64, int]] = []
    used: set[int] = set()
    for i in range(n):
        if i in used:
            continue
        # find a free end of this group's chain: walk from path i's start end backwards
        cur, end_in = i, 0            # end_in: which end of `cur` we entered by (0 start)
        seen_walk: set[int] = {i}
        while (2 * cur + end_in) in partner:
            nxt = partner[2 * cur + end_in]
            cur = nxt // 2
            end_in = 1 - (nxt % 2)
            if cur in seen_walk:
                break
            seen_walk.add(cur)
        # now cur's end `end_in` is free: walk forward from it
        pieces: list[F64] = []
        c, e_in = cur, end_in
        while True:
            used.add(c)
            p = paths[c]
            pieces.append(p if e_in == 0 else p[::-1])
            out_end = 2 * c + (1 - e_in)
            if out_end not in partner:
                break
            nxt = partner[out_end]
            c, e_in = nxt // 2, nxt % 2
            if c in used:
                break
        out.append((np.vstack(pieces), len(pieces)))
    return out


def _heading(path: F64, at_start: bool, cfg: RailwaysConfig) -> F64:
    """Which way a path leaves at one end, measured behind its last few millimetres: a
    piece that stops at a crossing bends into it as it is thinned, and the crossing is
    exactly where two pieces of one chain must be matched."""
    long_enough = sk.path_length(path) > 3 * cfg.bridge_skip_mm
    return sk.end_direction(path, at_start, cfg.bridge_span_mm, cfg.bridge_skip_mm if long_enough else 0.0)


def extend(path: F64, by_mm: float) -> F64:
    """The path with straight runs of by_mm added at both ends, each along the heading
    of the path's last 20 mm (its very end may hook where the band meets another)."""
    d0 = sk.end_direction(path, True, 20.0)
    d1 = sk.end_direction(path, False, 20.0)
    return np.vstack([path[0] + d0 * by_mm, path, path[-1] + d1 * by_mm])


class LazyMap:
    """A top-view-sized float map that is only ever made where it is sampled: `make(rows,
    cols)` returns the float32 values of that window. Chains cover a few percent of the
    table, so the whole-table float copies (wire, cover, blind, changed) are never built."""

    def __init__(self, shape: tuple[int, ...], make: Callable[[slice, slice], F32]) -> None:
        self.shape = (int(shape[0]), int(shape[1]))
        self.make = make

    @staticmethod
    def of(values: U8) -> "LazyMap":
        """values.astype(float32) (0/1 masks), made window by window."""
        return LazyMap(values.shape, lambda r, c: values[r, c].astype(np.float32))

    @staticmethod
    def over255(values: U8) -> "LazyMap":
        """values.astype(float32) / 255 (uint8 evidence as 0..1), made window by window."""
        return LazyMap(values.shape, lambda r, c: values[r, c].astype(np.float32) / np.float32(255.0))


Sampled = Union[F32, LazyMap]
SAMPLE_ROWS = 64        # strip rows sampled from one LazyMap window


def strip_grid(view: TopView, path_mm: F64, half_mm: float) -> tuple[F32, F32, F64, F64]:
    """Where a strip along the path samples the top view: the remap maps (px), the sample
    centres (mm) and the unit normals; shared by every map sampled along one chain."""
    pts = sk.resample(path_mm, STEP_MM)
    if len(pts) < 2:
        return np.zeros((0, 1), np.float32), np.zeros((0, 1), np.float32), pts, pts
    tang = np.gradient(pts, axis=0)
    tang = cv2.GaussianBlur(tang.reshape(-1, 1, 2), (1, 21), 0).reshape(-1, 2)
    tang /= np.maximum(np.linalg.norm(tang, axis=1, keepdims=True), 1e-9)
    nrm = np.stack([-tang[:, 1], tang[:, 0]], axis=1)
    mx, my = strip_maps(view, pts, nrm, half_mm)
    return mx, my, pts, nrm


def strip_maps(view: TopView, centres_mm: F64, nrm: F64, half_mm: float) -> tuple[F32, F32]:
    """The remap maps (px) of a strip across `centres_mm` along the normals `nrm`, half_mm
    each side (strip_grid's; a strip moved off its path samples through the same)."""
    offs = np.arange(-half_mm, half_mm + 1e-9, STEP_MM)
    grid = centres_mm[:, None, :] + offs[None, :, None] * nrm[:, None, :]
    px = (grid - np.asarray(view.origin_mm)) * view.px_per_mm - 0.5
    return px[..., 0].astype(np.float32), px[..., 1].astype(np.float32)


def sample(values: Sampled, mx: F32, my: F32) -> F32:
    """`values` at the strip grid (bilinear, 0 outside the map)."""
    if mx.shape[0] == 0:
        return np.zeros((0, 1), np.float32)
    if isinstance(values, LazyMap):
        return _sample_lazy(values, mx, my)
    s = cv2.remap(values, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=(0.0,))
    return np.asarray(s, dtype=np.float32)


def _sample_lazy(values: LazyMap, mx: F32, my: F32) -> F32:
    """sample() of a LazyMap, SAMPLE_ROWS rows at a time: each piece's window is small,
    where the whole strip's bounding box was up to the table (a diagonal River: 36 MB of
    Lab). Each window is what the samples reach (+2 px for the bilinear neighbours), and
    float32 minus a whole number is exact, so remap samples the very same values. The
    windows' bounds are found for every piece at once (four reductions a piece were most
    of a short strip's time), each piece remapped into its rows of the output."""
    h, w = values.shape
    n = mx.shape[0]
    starts = np.arange(0, n, SAMPLE_ROWS)
    full = n // SAMPLE_ROWS                 # whole pieces: each one long row of the maps
    bounds = []
    for m, red in ((mx, np.minimum), (my, np.minimum), (mx, np.maximum), (my, np.maximum)):
        flat = m.reshape(n, -1)
        got = red.reduce(flat[:full * SAMPLE_ROWS].reshape(full, -1), axis=1) if full else np.zeros(0, m.dtype)
        if n > full * SAMPLE_ROWS:
            got = np.append(got, red.reduce(flat[full * SAMPLE_ROWS:], axis=None))
        bounds.append(np.floor(got).astype(np.int64).tolist())
    out: F32 | None = None                  # made at the first window (its channels)
    empty: list[tuple[int, int]] = []
    for i, r0 in enumerate(starts.tolist()):
        r1 = min(n, r0 + SAMPLE_ROWS)
        x0 = min(max(0, bounds[0][i] - 2), w)
        y0 = min(max(0, bounds[1][i] - 2), h)
        x1 = max(min(w, bounds[2][i] + 3), x0)
        y1 = max(min(h, bounds[3][i] + 3), y0)
        if x1 - x0 < 1 or y1 - y0 < 1:
            empty.append((r0, r1))
            continue
        src = values.make(slice(y0, y1), slice(x0, x1))
        got = cv2.remap(src, mx[r0:r1] - np.float32(x0), my[r0:r1] - np.float32(y0), cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_CONSTANT, borderValue=(0.0,))
        if out is None:
            out = np.empty(mx.shape + got.shape[mx.ndim:], np.float32)
        out[r0:r1] = got
    if out is None:
        return np.zeros(mx.shape, np.float32)
    for r0, r1 in empty:
        out[r0:r1] = 0.0
    return out


def strip(values: Sampled, view: TopView, path_mm: F64, half_mm: float) -> tuple[F32, F64, F64]:
    """Sample `values` (a top-view map) along the path every STEP_MM, across +-half_mm.
    Returns the strip (rows along), the sample centres (mm) and the unit normals."""
    mx, my, pts, nrm = strip_grid(view, path_mm, half_mm)
    return sample(values, mx, my), pts, nrm


def wire_profile(values: Sampled, view: TopView, path: F64, half_mm: float) -> F32:
    """The strongest value across the strip at each row along the path, smoothed over
    2.5 mm (a wire's loop is not solid)."""
    e, _, _ = strip(values, view, path, half_mm)
    return np.asarray(cv2.blur(e.max(axis=1).reshape(-1, 1), (1, 5)).ravel(), dtype=np.float32)


def carry_by_wire(path: F64, wire: Sampled, view: TopView, half_mm: float, reach_mm: float, fan_deg: float,
                  gap_mm: float, wire_min: float, ends: tuple[bool, bool] = (True, True),
                  straight_share: float = 0.7) -> F64:
    """The path carried on straight at each end for as long as its wire goes on (up to
    reach_mm, across gaps up to gap_mm): where a chain lies on a card the band is masked
    (and a card's printing is no chain), but its wire is still seen. The traced end may
    bend along the card's edge, so a fan of headings is tried; the straightest one whose
    wire runs straight_share as far as the longest wins (a card's edge beside the chain's
    end can run on further, off to the side). ends: which ends (start, end) to carry."""
    n = int(reach_mm / STEP_MM)
    steps = (np.arange(0, n + 1) * STEP_MM)[:, None]
    gap = int(gap_mm / STEP_MM)
    for at_end in (True, False):
        if not ends[1 if at_end else 0]:
            path = path[::-1]
            continue
        d0 = sk.end_direction(path, False, 20.0, 5.0)
        e = path[-1]
        runs: list[tuple[float, int, F64]] = []
        degs = np.arange(-fan_deg, fan_deg + 1e-9, 5.0)
        rays, profs = _fan(wire, view, e, d0, degs, steps, half_mm)
        # each ray's wire runs from its start until more than `gap` samples in a row miss:
        # `last` is its last sample with wire (0: none). Compared in float64, as a float32
        # sample against the Python float always was
        seen = np.asarray(profs, dtype=np.float64) > wire_min
        for deg, ray, hit in zip(degs, rays, seen):
            at = np.concatenate([[0], np.flatnonzero(hit[1:]) + 1])
            broken = np.flatnonzero(np.diff(at) > gap + 1)
            last = int(at[broken[0]] if len(broken) else at[-1])
            runs.append((abs(float(deg)), last, ray[1:last + 1]))
        longest = max(r[1] for r in runs)
        best = min((r for r in runs if r[1] >= straight_share * longest), key=lambda r: r[0])[1:]
        if best[0] > 0:
            path = np.vstack([path, best[1]])
        path = path[::-1]
    return path


def _fan(wire: Sampled, view: TopView, e: F64, d0: F64, degs: F64, steps: F64,
         half_mm: float) -> tuple[F64, F32]:
    """Straight rays from e, turned degs from d0, and wire_profile along each: sampled in
    one go (one window of the map, not one per ray)."""
    a = np.radians(degs)
    d = np.stack([d0[0] * np.cos(a) - d0[1] * np.sin(a), d0[0] * np.sin(a) + d0[1] * np.cos(a)], axis=1)
    rays = e[None, None, :] + d[:, None, :] * steps[None, :, :]                   # (rays, steps, 2)
    nrm = np.stack([-d[:, 1], d[:, 0]], axis=1)
    offs = np.arange(-half_mm, half_mm + 1e-9, STEP_MM)
    r, n, k = rays.shape[0], rays.shape[1], len(offs)
    # per coordinate, the very operations of (rays + offs * nrm - origin) * px_per_mm - 0.5
    # on (rays, steps, offsets), made in place (not the interleaved x, y grid)
    maps = []
    for c in (0, 1):
        g = np.add(rays[:, :, None, c], (offs[None, :] * nrm[:, c, None])[:, None, :])
        g -= view.origin_mm[c]
        g *= view.px_per_mm
        g -= 0.5
        maps.append(g.reshape(r * n, k).astype(np.float32))
    mx, my = maps
    if isinstance(wire, LazyMap) and mx.shape[0] > SAMPLE_ROWS:
        # the whole fan from one window of the map (a fan is small), not sample's window
        # per SAMPLE_ROWS rows: the same values (every window holds each sample's bilinear
        # neighbours, or ends where the map does), a tenth of the windows
        h, w = wire.shape
        x0 = min(max(0, int(np.floor(mx.min())) - 2), w)
        y0 = min(max(0, int(np.floor(my.min())) - 2), h)
        x1 = max(min(w, int(np.floor(mx.max())) + 3), x0)
        y1 = max(min(h, int(np.floor(my.max())) + 3), y0)
        wire = wire.make(slice(y0, y1), slice(x0, x1)) if x1 > x0 and y1 > y0 else np.zeros((1, 1), np.float32)
        mx -= np.float32(x0)
        my -= np.float32(y0)
        if x1 <= x0 or y1 <= y0:
            mx[...] = -10.0             # all off the map: every sample 0, as sample gives
    top = sample(wire, mx, my).max(axis=1).reshape(r, n)
    return rays, np.asarray(cv2.blur(np.ascontiguousarray(top), (5, 1)), dtype=np.float32)


def walk_by_wire(path: F64, wire: Sampled, view: TopView, half_mm: float, arrived: Callable[[F64], bool],
                 reach_mm: float, step_mm: float, look_mm: float, turn_deg: float, gap_mm: float,
                 wire_min: float, radius_mm: float = 40.0) -> F64 | None:
    """The path walked on from its end along its own wire, a step at a time, turning as
    the wire turns (a chain bends; carry_by_wire only goes straight), across gaps up to
    gap_mm (another chain over it, a cube), until `arrived` says the walk has reached a
    station. None when the wire gives out first or reach_mm is walked: a walk that ends
    nowhere proves nothing (a grid line or a card's edge can be followed as far), so only
    a walk that reaches a station is taken. Why: the band breaks where the chain runs over
    a tile, beside another chain of its colour, or in glare, and a link whose last stretch
    is lost joins no station and is dropped or read half."""
    steps = (np.arange(0, int(look_mm / STEP_MM) + 1) * STEP_MM)[:, None]
    degs = np.arange(-turn_deg, turn_deg + 1e-9, 5.0)
    head = sk.end_direction(path, False, 20.0, 5.0)
    max_turn = math.degrees(step_mm / radius_mm)
    p = np.asarray(path[-1], dtype=np.float64)
    out: list[F64] = []
    walked = miss = 0.0
    while walked < reach_mm:
        rays, profs = _fan(wire, view, p, head, degs, steps, half_mm)
        # turn by the wire seen further on (a ray into the side of a gap keeps more of
        # the wire before it than the straight one does)
        far = profs[:, profs.shape[1] // 2:].mean(axis=1)
        k = int(np.argmax(far - 0.002 * np.abs(degs)))                # straight on wins near ties
        if float(far[k]) >= wire_min:
            # no sharper than a chain bends (a ray may find a leg's remnant beside a gap)
            a = math.radians(float(np.clip(degs[k], -max_turn, max_turn)))
            head = np.array([head[0] * math.cos(a) - head[1] * math.sin(a),
                             head[0] * math.sin(a) + head[1] * math.cos(a)])
            miss = 0.0
        elif float(profs[len(degs) // 2, 1:].mean()) >= wire_min:
            miss = 0.0                                                  # the wire goes on straight for now
        else:
            miss += step_mm
            if miss > gap_mm:
                return None
        p = p + head * step_mm
        if miss == 0.0:
            p = p + _recentre(wire, view, p, head, half_mm)
        walked += step_mm
        out.append(p.copy())
        if arrived(p):
            return np.vstack([path, np.asarray(out)])
    return None


def _recentre(wire: Sampled, view: TopView, p: F64, head: F64, half_mm: float) -> F64:
    """The shift (at most 1 mm, across the heading) that puts p at the middle of the wire
    seen across it: the best ray alone sees a clip's legs anywhere within its width, so a
    walk round a bend would drift to its outside."""
    nrm = np.array([-head[1], head[0]])
    offs = np.arange(-half_mm - 3.0, half_mm + 3.0 + 1e-9, STEP_MM)
    along = np.arange(-2.0, 2.0 + 1e-9, STEP_MM)
    grid = p[None, None, :] + along[:, None, None] * head[None, None, :] + offs[None, :, None] * nrm[None, None, :]
    px = (grid - np.asarray(view.origin_mm)) * view.px_per_mm - 0.5
    e = sample(wire, px[..., 0].astype(np.float32), px[..., 1].astype(np.float32)).sum(axis=0)
    if float(e.sum()) < 1e-6:
        return np.zeros(2)
    shift = float(np.clip((e * offs).sum() / e.sum(), -1.0, 1.0))
    return np.asarray(nrm * shift, dtype=np.float64)


def gap_curve(a: F64, da: F64, b: F64, db: F64, step_mm: float = 1.0) -> F64:
    """The curve (cubic Hermite) from end a leaving along da to end b entered against db
    (db points out of b's piece), sampled every step_mm; a and b excluded."""
    g = float(np.hypot(*(b - a)))
    n = max(2, int(math.ceil(g / step_mm)))
    t = (np.arange(1, n) / n)[:, None]
    h00, h10 = 2 * t ** 3 - 3 * t ** 2 + 1, t ** 3 - 2 * t ** 2 + t
    h01, h11 = -2 * t ** 3 + 3 * t ** 2, t ** 3 - t ** 2
    return np.asarray(h00 * a + h10 * (da * g) + h01 * b + h11 * (-db * g), dtype=np.float64)


def join_through(paths: list[F64], free: list[tuple[bool, bool]], seen: Callable[[F64], F32],
                 blocked: Callable[[F64], bool], reach_mm: float, turn_deg: float, lateral_mm: float,
                 span_mm: float, skip_mm: float, seen_share: float,
                 straight: tuple[float, float, float] = (0.0, 0.0, 1.0)) -> list[tuple[F64, list[int]]]:
    """Pieces of one colour joined where one chain runs on through a crossing: two free
    ends (free[i]: the start's, the end's) within reach_mm whose headings continue each
    other within turn_deg, each no further than lateral_mm (plus the gap times the turn's
    sine) to the side of the other's heading, with the chain's evidence along the curve
    between them: seen(curve) is 1 where its own wire or another chain over it is seen,
    and must be so along seen_share of it; blocked(curve) refuses gaps over a card. Why:
    a chain crossed at a shallow angle is hidden for three or four clip widths, further
    than a walk or a bridge across bare table jumps, and the halves each stop in the open.
    Two ends in line (straight: within its first value in degrees and its second in mm to
    the side) need the evidence along only its third share of the gap: chains meet only
    at stations, so two free ends in line across a short gap are one chain, and the chain
    over it may be faint (a white one on a pale table).
    Candidates are taken best first (the straighter continuation, then the nearer side,
    then the shorter gap), each end once, never closing a loop. Returns each joined path
    with the indices of its pieces, in order."""
    n = len(paths)
    heads: list[tuple[F64, F64]] = []
    for p in paths:
        long_enough = sk.path_length(p) > 3 * skip_mm
        sk_ = skip_mm if long_enough else 0.0
        heads.append((sk.end_direction(p, True, span_mm, sk_), sk.end_direction(p, False, span_mm, sk_)))
    lim = math.cos(math.radians(turn_deg))
    cands: list[tuple[float, int, int, F64]] = []
    for i in range(n):
        for j in range(i + 1, n):
            for ea in (0, 1):
                if not free[i][ea]:
                    continue
                for eb in (0, 1):
                    if not free[j][eb]:
                        continue
                    a = paths[i][0] if ea == 0 else paths[i][-1]
                    b = paths[j][0] if eb == 0 else paths[j][-1]
                    da, db = heads[i][ea], heads[j][eb]
                    v = b - a
                    gap = float(np.hypot(*v))
                    if gap > reach_mm:
                        continue
                    turn = float(da @ -db)
                    if turn < lim:
                        continue
                    lat_a = abs(float(da[0] * v[1] - da[1] * v[0]))
                    lat_b = abs(float(db[0] * v[1] - db[1] * v[0]))
                    side = lateral_mm + gap * math.sin(math.radians(turn_deg)) * 0.5
                    if gap > 1.0 and (float(da @ v) <= 0 or float(db @ -v) <= 0 or max(lat_a, lat_b) > side):
                        continue
                    curve = gap_curve(a, da, b, db)
                    got = seen(curve) if len(curve) else np.ones(1, np.float32)
                    in_line = (turn >= math.cos(math.radians(straight[0])) and max(lat_a, lat_b) <= straight[1])
                    need = min(seen_share, straight[2]) if in_line else seen_share
                    # a gap too short to sample (under a millimetre) needs no evidence
                    if blocked(curve) or (len(got) and float(np.mean(got)) < need):
                        continue
                    cost = (1.0 - turn) * 60.0 + lat_a + lat_b + gap * 0.05
                    cands.append((cost, 2 * i + ea, 2 * j + eb, curve))
    cands.sort(key=lambda c: c[0])
    partner: dict[int, tuple[int, F64]] = {}
    group = list(range(n))

    for _, ka, kb, curve in cands:
        if ka in partner or kb in partner or _root(group, ka // 2) == _root(group, kb // 2):
            continue
        partner[ka] = (kb, curve)
        partner[kb] = (ka, curve[::-1])
        group[_root(group, ka // 2)] = _root(group, kb // 2)
    out: list[tuple[F64, list[int]]] = []
    used: set[int] = set()
    for i in range(n):
        if i in used:
            continue
        # walk to a piece end with no partner, then along the joins
        cur, end_in = i, 0
        seen_walk = {i}
        while (2 * cur + end_in) in partner:
            nxt = partner[2 * cur + end_in][0]
            cur, end_in = nxt // 2, 1 - (nxt % 2)
            if cur in seen_walk:
                break
            seen_walk.add(cur)
        parts: list[F64] = []
        order: list[int] = []
        c, e_in = cur, end_in
        while c not in used:
            used.add(c)
            order.append(c)
            parts.append(paths[c] if e_in == 0 else paths[c][::-1])
            out_end = 2 * c + (1 - e_in)
            if out_end not in partner:
                break
            nxt, curve = partner[out_end]
            parts.append(curve)
            c, e_in = nxt // 2, nxt % 2
        out.append((np.vstack(parts), order))
    return out
