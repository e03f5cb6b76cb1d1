"""The River: its path, its two silver clips, its clip count, and the length of one clip.

Why the River teaches the clip length: it is a chain of known make-up (30 blue and 2
silver clips, the silver ones at 12 and 16), laid on every table with the same clips as
the links, so whatever the brand, one clip's length can be measured on it before any
link is counted.

Why found from the colour-blind band: the River is long (70-100 cm) and links cross it,
so its own colour's wire breaks into pieces wherever a link lies on top. The chain band
(vision.railways.trace) finds it whole but for those crossings; its blue and silver cells
are the River's, and the pieces are bridged end to end along its gentle curve.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.railways import skeleton as sk
from vision.railways.chains import (LazyMap, Sampled, bridge, carry_by_wire, chain_paths, sample, strip,
                                    strip_grid, wire_profile)
from vision.railways.clip_counter import STEP_MM, CountResult, oriented_evidence
from vision.railways.config import CLIP_COLOURS, RIVER_COLOURS, RailwaysConfig
from vision.railways.frame import TopView
from vision.railways.trace import colour_costs_per_slice, station_mask

U8 = NDArray[Any]
F32 = NDArray[Any]
F64 = NDArray[Any]

RIVER_CLIPS = 32                # the River's make-up (rulebook): 30 blue, 2 silver
SILVER_AT = (12, 16)            # the silver clips' places, from the end nearer them

# how a chain is counted (pipeline._count_chain with no cover): (wire, path, clip length)
CountChain = Callable[[Sampled, F64, float], tuple[CountResult, F64]]


@dataclass
class RiverReading:
    clips: int
    silver: list[int]
    path_mm: F64
    clip_length_mm: float
    pitch_mm: float
    confidence: float
    silver_mm: list[tuple[float, float]] = field(default_factory=list)   # the silver clips' middles (table mm)
    clip_length_source: str = "default"                     # "chains", "silver" or "default"


def river_path(river_band: U8, view: TopView, cfg: RailwaysConfig, silver_band: U8 | None = None,
               clip_mm: float | None = None) -> F64 | None:
    """The River's centre line (table mm) from the band cells coloured blue: the pieces
    between crossings bridged end to end, the longest chain of them kept and followed on
    along its own curve through pieces too small to trace (between crossings, beside the
    silver clips)."""
    band = np.asarray(cv2.morphologyEx(river_band, cv2.MORPH_CLOSE,
                                       cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))), dtype=np.uint8)
    small = dataclasses.replace(cfg, min_chain_area_mm2=cfg.river_piece_mm2)
    paths = chain_paths(band, view.origin_mm, small)
    if not paths:
        return None
    rcfg = dataclasses.replace(cfg, bridge_mm=cfg.river_bridge_mm, bridge_angle_deg=cfg.river_bridge_angle_deg)
    items = bridge(paths, rcfg)
    path, _ = max(items, key=lambda it: sk.path_length(it[0]))
    if sk.path_length(path) < cfg.river_min_mm:
        return None
    if silver_band is not None:
        # a silver clip's cells where they touch the blue: they bridge the gap it leaves
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (cfg.river_silver_reach_mm | 1,) * 2)
        band = band | (silver_band & cv2.dilate(band, k))
    ys, xs = np.nonzero(band)
    cells = np.stack([xs, ys], axis=1).astype(np.float64) + 0.5 + np.asarray(view.origin_mm)
    for _ in range(2):
        path = _follow(np.asarray(path, dtype=np.float64), cells, cfg)[::-1]
    if cfg.river_jump_mm > 0:
        path = _jumped(np.asarray(path, dtype=np.float64), paths, cells, clip_mm or cfg.default_clip_mm, cfg)
    return _centred(np.asarray(sk.smooth(path, 5), dtype=np.float64), band, view.origin_mm, cfg)


def _jumped(path: F64, pieces: list[F64], cells: F64, clip_mm: float, cfg: RailwaysConfig) -> F64:
    """The path carried across gaps longer than following jumps (river_gap_mm), while it
    is too short to be 32 clips (river_jump_below_clips clips long): where the River's blue
    is lost for a stretch (blue wire on a blue mat beside the silver clips, a card laid
    over it), following stops at the gap and the count falls short by the clips beyond.
    A jump lands only on a traced piece of River (river_jump_piece_mm long at least) ahead
    along the path's own measured curve or straight on (never the fan of curves following
    tries: the River may bend the other way past the gap), and the path is followed on from
    there."""
    below = cfg.river_jump_below_clips * clip_mm
    long_pieces = [sk.resample(p, 1.0) for p in pieces if sk.path_length(p) >= cfg.river_jump_piece_mm]
    if not long_pieces:
        return path
    marks = np.vstack(long_pieces)
    for _ in range(2):
        for _ in range(cfg.river_jump_times):
            if sk.path_length(path) >= below:
                break
            # the gap is measured from the followed end itself (not from behind its hook)
            landed = _follow(path, marks, cfg, gap_mm=cfg.river_jump_mm, sweep=False, steps=1, hook=False,
                             spread=cfg.river_jump_spread)
            if len(landed) <= len(sk.resample(path, 2.0)):
                break
            path = _follow(landed, cells, cfg)
        path = path[::-1]
    return path


def _centred(path: F64, band: U8, origin_mm: tuple[float, float], cfg: RailwaysConfig) -> F64:
    """The path moved sideways onto the middle of the River's cells around each point:
    following walks along the cells nearest its guess of the curve, which can be the
    band's edge rather than its middle."""
    p = sk.resample(path, 2.0)
    if len(p) < 5:
        return path
    k = int(cfg.river_centre_mm) * 2 + 1
    h, w = band.shape[:2]
    q = p - np.asarray(origin_mm)
    ix = np.clip(q[:, 0].astype(int), 0, w - 1)
    iy = np.clip(q[:, 1].astype(int), 0, h - 1)
    c, sx, sy = _cell_sums(band, iy, ix, k)
    ok = c >= 0.25 * k * k
    cen = np.stack([sx, sy], axis=1) / np.maximum(c, 1.0)[:, None]
    tang = np.gradient(p, axis=0)
    tang /= np.maximum(np.linalg.norm(tang, axis=1, keepdims=True), 1e-9)
    nrm = np.stack([-tang[:, 1], tang[:, 0]], axis=1)
    shift = np.einsum("ij,ij->i", cen - q, nrm)
    shift = np.where(ok, np.clip(shift, -cfg.river_centre_mm, cfg.river_centre_mm), 0.0)
    shift = np.convolve(np.pad(shift, 4, mode="edge"), np.ones(9) / 9, mode="valid")
    return np.asarray(p + shift[:, None] * nrm, dtype=np.float64)


def _cell_sums(band: U8, iy: NDArray[Any], ix: NDArray[Any], k: int) -> tuple[F32, F32, F32]:
    """At pixels (iy, ix): the k x k box sums (cv2.boxFilter, unnormalised, its default
    reflect-101 border) of the 0/1 band, of band * (x + 0.5) and of band * (y + 0.5), as
    float32. Why only there: the River's path samples a few hundred pixels, where the
    whole-map filters were three million sums. Why the same floats: every term is a whole
    number or a half and every sum stays below 2^22, so float32 holds each partial sum
    exactly in any order (else, or on a map narrower than the box, the whole filters)."""
    h, w = band.shape[:2]
    r = k // 2
    if h <= k or w <= k or len(iy) == 0 or int(band.max(initial=0)) > 1 or (k * k) * (max(h, w) + 1) >= 2 ** 22:
        f = band.astype(np.float32)
        xs = np.arange(w, dtype=np.float32)[None, :] + 0.5
        ys = np.arange(h, dtype=np.float32)[:, None] + 0.5
        cnt = cv2.boxFilter(f, -1, (k, k), normalize=False)
        sx = cv2.boxFilter(f * xs, -1, (k, k), normalize=False)
        sy = cv2.boxFilter(f * ys, -1, (k, k), normalize=False)
        return cnt[iy, ix], sx[iy, ix], sy[iy, ix]
    offs = np.arange(-r, r + 1)

    def reflect(i: NDArray[Any], n: int) -> NDArray[Any]:
        i = np.abs(i)                                   # -j -> j
        return np.where(i > n - 1, 2 * (n - 1) - i, i)  # n - 1 + j -> n - 1 - j
    rows = reflect(np.asarray(iy)[:, None] + offs[None, :], h)
    cols = reflect(np.asarray(ix)[:, None] + offs[None, :], w)
    win = band[rows[:, :, None], cols[:, None, :]].astype(np.float64)          # (points, k, k)
    cnt = win.sum(axis=(1, 2))
    sx = (win * (cols.astype(np.float64) + 0.5)[:, None, :]).sum(axis=(1, 2))
    sy = (win * (rows.astype(np.float64) + 0.5)[:, :, None]).sum(axis=(1, 2))
    return cnt.astype(np.float32), sx.astype(np.float32), sy.astype(np.float32)


class _Buckets:
    """Cells sorted into square buckets one search radius wide, so the cells near a point
    are found among its own and the eight neighbouring buckets, not among all."""

    def __init__(self, cells: F64, radius: float) -> None:
        self.size = radius
        self.cells = cells
        keys = np.floor(cells / radius).astype(np.int64)
        order = np.lexsort((keys[:, 1], keys[:, 0]))
        self.sorted = cells[order]
        k = keys[order]
        self.index: dict[tuple[int, int], tuple[int, int]] = {}
        if len(k):
            cut = np.flatnonzero(np.any(np.diff(k, axis=0) != 0, axis=1)) + 1
            starts = np.concatenate([[0], cut])
            ends = np.concatenate([cut, [len(k)]])
            for a, b in zip(starts.tolist(), ends.tolist()):
                self.index[(int(k[a, 0]), int(k[a, 1]))] = (a, b)

    def near(self, p: F64) -> F64:
        bx, by = int(np.floor(p[0] / self.size)), int(np.floor(p[1] / self.size))
        parts = [self.sorted[a:b] for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                 for a, b in [self.index.get((bx + dx, by + dy), (0, 0))] if b > a]
        return np.vstack(parts) if parts else self.cells[:0]


def _follow(path: F64, cells: F64, cfg: RailwaysConfig, gap_mm: float | None = None, sweep: bool = True,
            steps: int | None = None, hook: bool = True, spread: float | None = None) -> F64:
    """The path followed on from its last point through the River's cells: its heading
    and bend are measured over the last stretch (behind the traced end, which may hook
    into a crossing) and carried on; the nearest cells ahead that lie along that curve
    are walked through, a stretch at a time, so pieces too small to trace (between
    crossings, beside the silver clips) join."""
    out = sk.resample(path, 2.0)
    gap, step = (cfg.river_gap_mm if gap_mm is None else gap_mm), cfg.river_step_mm
    grid = _Buckets(cells, gap + 10.0)
    s = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(out, axis=0).T))])
    if hook and s[-1] > 2 * cfg.river_hook_mm + cfg.river_curve_span_mm:
        out = out[s <= s[-1] - cfg.river_hook_mm]
    spread_mm = cfg.river_spread if spread is None else spread
    t = np.arange(1.0, gap + 1.0, 1.0)
    for _ in range(int(2000 / step) if steps is None else steps):
        sm = sk.smooth(out, 9)
        s = np.concatenate([[0.0], np.cumsum(np.hypot(*np.diff(sm, axis=0).T))])
        end = float(s[-1])
        span = min(cfg.river_curve_span_mm, end)
        if span < 10.0:
            break
        a, b, c = (np.array([np.interp(v, s, sm[:, 0]), np.interp(v, s, sm[:, 1])])
                   for v in (end, end - span / 2, end - span))
        hv = a - b
        hv = hv / max(1e-9, float(np.hypot(hv[0], hv[1])))
        nrm = np.array([-hv[1], hv[0]])
        # the bend: the circle through the three points, capped at the tightest the River
        # may take
        u, w = b - c, a - b
        den = float(np.hypot(*u) * np.hypot(*w) * np.hypot(*(a - c)))
        k = 2.0 * float(u[0] * w[1] - u[1] * w[0]) / den if den > 1e-9 else 0.0
        k = float(np.clip(k, -cfg.river_max_curve, cfg.river_max_curve))
        e = out[-1]
        around = grid.near(e)
        rel = around - e
        near = around[(np.hypot(rel[:, 0], rel[:, 1]) < gap + 10.0) & (rel @ hv > 1.0)]
        if len(near) == 0:
            break
        # the measured curve first; where it finds nothing (a bend at a gap), any curve the
        # River could take, the one reaching the nearest cells
        found: tuple[F64, NDArray[np.bool_]] | None = None
        for kk in [k] + list(np.linspace(-cfg.river_max_curve, cfg.river_max_curve, 9) if sweep else [0.0]):
            curve = e[None, :] + t[:, None] * hv[None, :] + 0.5 * kk * (t * t)[:, None] * nrm[None, :]
            d = np.hypot(near[:, None, 0] - curve[None, :, 0], near[:, None, 1] - curve[None, :, 1])
            j = d.argmin(axis=1)
            tj = t[j]
            ok = (d[np.arange(len(near)), j] < cfg.river_lateral_mm + spread_mm * tj) & (tj < gap)
            if ok.any() and (found is None or float(tj[ok].min()) < float(found[0][found[1]].min()) - 2.0):
                found = (tj, ok)
            if found is not None and kk == k:
                break
        if found is None:
            break
        tj, ok = found
        t0 = float(tj[ok].min())
        win = ok & (tj <= t0 + step)
        bins = np.floor(tj[win] / 2.0)
        pts = [near[win][bins == v].mean(axis=0) for v in np.unique(bins)]
        out = np.vstack([out, np.asarray(pts, dtype=np.float64)])
    return out


def extend_by_wire(path: F64, blue: Sampled, view: TopView, cfg: RailwaysConfig) -> F64:
    """The path carried on by its blue wire (chains.carry_by_wire): the River's silver
    end lies on the Metropolis board, by the rules, where the band is masked."""
    return carry_by_wire(path, blue, view, cfg.default_clip_mm * cfg.clip_width_ratio / 2, cfg.river_wire_reach_mm,
                         cfg.river_wire_fan_deg, cfg.river_wire_gap_mm, cfg.river_wire_min)


def silver_score(view_lab: Sampled, bg_lab: Sampled, silver: Sampled, blue: Sampled, view: TopView,
                 path: F64, cfg: RailwaysConfig) -> F32:
    """How much more each millimetre along the path looks like a silver clip than a blue
    one (one value per mm): the colour of the pixels that differ most from the table
    (grey metal or blue coating, trace.colour_costs_per_slice) plus which colour's wire evidence is
    stronger. Both are put on one scale by their spread along the River."""
    half = cfg.default_clip_mm * cfg.clip_width_ratio / 2
    mx, my, pts, _ = strip_grid(view, path, half)
    a = sample(view_lab, mx, my)
    b = sample(bg_lab, mx, my)
    k = int(round(1.0 / STEP_MM))
    nq = max(0, (len(a) - 1) // k)
    rows = (np.arange(nq) * k)[:, None] + np.arange(k + 1)[None, :]       # each mm and its next row
    costs = colour_costs_per_slice(a[rows].reshape(nq, -1, 3), b[rows].reshape(nq, -1, 3),
                                   {c: CLIP_COLOURS[c] for c in RIVER_COLOURS}, cfg)
    with np.errstate(invalid="ignore", divide="ignore"):
        q = np.log((costs["blue"] + 1.0) / (costs["silver"] + 1.0))
    q = np.where(np.isfinite(q), q, 0.0).astype(np.float32)
    es = sample(silver, mx, my).max(axis=1)
    eb = sample(blue, mx, my).max(axis=1)
    w = (es - eb)[: len(q) * k].reshape(len(q), k).mean(axis=1) if len(q) else np.zeros(0, np.float32)

    def z(v: F32) -> F32:
        if len(v) == 0:
            return v
        med = float(np.median(v))
        mad = float(np.median(np.abs(v - med))) + 1e-6
        return np.asarray((v - med) / (1.4826 * mad), dtype=np.float32)
    return z(q) + z(np.asarray(w, dtype=np.float32))


def silver_centres(score: F32, clip_len: float, cfg: RailwaysConfig) -> list[float]:
    """Where along the path (mm) the two silver clips lie: the best pair of stretches
    (half a clip long) that look silver, as far apart as four clips of any slack."""
    k = max(3, int(round(0.5 * clip_len)) | 1)
    q = np.asarray(cv2.blur(score.reshape(-1, 1).astype(np.float32), (1, k)).ravel(), dtype=np.float32)
    n = len(q)
    if n < 3:
        return []
    peaks = [i for i in range(1, n - 1) if q[i] >= q[i - 1] and q[i] > q[i + 1] and q[i] > cfg.silver_min]
    lo = int(cfg.silver_gap_clips[0] * clip_len)
    hi = int(cfg.silver_gap_clips[1] * clip_len)
    best: tuple[float, int, int] | None = None
    for a in peaks:
        for b in peaks:
            if lo <= b - a <= hi and (best is None or q[a] + q[b] > best[0]):
                best = (float(q[a] + q[b]), a, b)
    if best is None:
        return [float(max(peaks, key=lambda i: float(q[i])))] if peaks else []
    return [float(best[1]) + 0.5, float(best[2]) + 0.5]


def learn_clip_length(silver: Sampled, blue: Sampled, view: TopView, path: F64, centres: list[float],
                      cfg: RailwaysConfig) -> tuple[float, str]:
    """The length of one clip, from the silver clips (each one whole clip): for each, the
    extent of its silver wire and the span between its outermost silver bends (both
    reach half a wire past each bend's middle, so one wire is taken off). Only
    when two of these measurements agree is the length taken as learnt; otherwise the
    standard length is kept (source "default")."""
    cands: list[float] = []
    half = cfg.default_clip_mm * cfg.clip_width_ratio / 2 + 0.5
    for c in centres:
        sub = _cut(path, c - cfg.clip_max_mm * 0.7, c + cfg.clip_max_mm * 0.7)
        es, _, _ = strip(silver, view, sub, half)
        if len(es):
            across, _ = oriented_evidence(es / max(0.1, float(es.max())))
            on = np.flatnonzero(across.max(axis=1) > cfg.silver_bend_min)
            if len(on):
                cands.append(float(on[-1] - on[0]) * STEP_MM - cfg.silver_wire_mm)
        cands.append(silver_length(silver, blue, view, path, c, cfg.default_clip_mm, cfg) - cfg.silver_wire_mm)
    cands = sorted(v for v in cands if cfg.clip_min_mm <= v <= cfg.clip_max_mm)
    best: tuple[float, float] | None = None
    for i in range(len(cands)):
        for j in range(i + 1, len(cands)):
            if cands[j] - cands[i] <= cfg.clip_agree_mm and (best is None or cands[j] - cands[i] < best[1] - best[0]):
                best = (cands[i], cands[j])
    if best is None:
        return cfg.default_clip_mm, "default"
    return (best[0] + best[1]) / 2.0, "silver"


def silver_length(silver: Sampled, blue: Sampled, view: TopView, path: F64, centre_mm: float,
                  clip_len: float, cfg: RailwaysConfig) -> float:
    """The length of the silver clip around centre_mm along the path: the extent of its
    silver wire (bend to bend), gaps under its blue neighbours allowed."""
    half = clip_len * cfg.clip_width_ratio / 2 + 1.0
    a = max(0.0, centre_mm - 1.0 * clip_len)
    sub = _cut(path, a, centre_mm + 1.0 * clip_len)
    ps = wire_profile(silver, view, sub, half)
    pb = wire_profile(blue, view, sub, half)
    on = (ps > cfg.silver_evidence_min) & (ps > 0.5 * pb)
    c = int(round((centre_mm - a) / STEP_MM))
    if not (0 <= c < len(on)):
        return 0.0
    idx = np.flatnonzero(on)
    if len(idx) == 0:
        return 0.0
    # grow from the nearest silver sample while gaps stay short
    gap = int(cfg.silver_gap_mm / STEP_MM)
    j = int(idx[np.argmin(np.abs(idx - c))])
    lo = hi = j
    for i in idx[idx < j][::-1]:
        if lo - i > gap:
            break
        lo = int(i)
    for i in idx[idx > j]:
        if i - hi > gap:
            break
        hi = int(i)
    return float((hi - lo) * STEP_MM)


def _cut(path: F64, a_mm: float, b_mm: float) -> F64:
    """The part of the path between arc lengths a and b (mm)."""
    p = sk.resample(path, STEP_MM)
    i, j = int(max(0, a_mm / STEP_MM)), int(min(len(p), b_mm / STEP_MM + 1))
    return np.asarray(p[i:j], dtype=np.float64)


def read_river(view: TopView, wires: dict[str, U8], bands: dict[str, U8], cards: list[F64],
               view_lab: Sampled, bg_lab: Sampled, cfg: RailwaysConfig,
               count_chain: CountChain, chains_length_mm: float | None = None) -> RiverReading | None:
    """The River read from the chain band's blue and silver cells (`bands`, per colour at
    1 px/mm, see trace.colour_bands), the blue and silver wire evidence (top-view size)
    and the view's and the table's Lab (trace.lab_map); `cards` are the station outlines
    (table mm); chains_length_mm: the clip length learnt from the table's chains
    (pipeline.table_clip_length), taken before the silver clips' when known. None when no
    River is seen."""
    # the band between a card's coloured parts (the Metropolis board's seams) is no River
    h, w = bands["blue"].shape[:2]
    on_card = station_mask((h, w), cards, view.origin_mm, cfg.river_card_grow_mm)
    blue_band = np.asarray(bands["blue"] & (on_card == 0), dtype=np.uint8)
    path = river_path(blue_band, view, cfg, bands.get("silver"), chains_length_mm)
    if path is None:
        return None
    silver = LazyMap.over255(wires["silver"])
    blue = LazyMap.over255(wires["blue"])
    path = extend_by_wire(path, blue, view, cfg)
    if sk.path_length(path) > cfg.river_max_mm:
        return None     # longer than 32 clips can stretch: blue noise (a blue cloth), not the River
    score = silver_score(view_lab, bg_lab, silver, blue, view, path, cfg)
    # on a card (the Metropolis board is grey) the colour test cannot tell metal from print
    fine = sk.resample(path, 1.0)[: len(score)]
    ij = np.clip(np.floor(fine - np.asarray(view.origin_mm)).astype(int), 0, [w - 1, h - 1])
    score = np.where(on_card[ij[:, 1], ij[:, 0]] > 0, np.minimum(score, 0.0), score).astype(np.float32)
    centres = silver_centres(score, cfg.default_clip_mm, cfg)
    if chains_length_mm is not None:
        clip_len, source = chains_length_mm, "chains"
    else:
        clip_len, source = learn_clip_length(silver, blue, view, path, centres, cfg)

    def wire(r: slice, c: slice) -> F32:
        return np.maximum(wires["blue"][r, c], wires["silver"][r, c]).astype(np.float32) / np.float32(255.0)
    res, seen = count_chain(LazyMap(wires["blue"].shape, wire), path, clip_len)
    # silver positions: the counted clips (along the path extended by one clip at each
    # end, as the counter reads it) whose middles lie nearest the silver clips
    silver_idx: list[int] = []
    if res.count:
        mids = np.asarray(res.starts_mm) + clip_len / 2 - clip_len
        for c in centres:
            silver_idx.append(int(np.argmin(np.abs(mids - c))) + 1)
    silver_idx = sorted(set(silver_idx))
    fine = sk.resample(path, 1.0)
    points = [(float(fine[min(len(fine) - 1, int(c))][0]), float(fine[min(len(fine) - 1, int(c))][1]))
              for c in centres]
    if centres and float(np.mean(centres)) > sk.path_length(path) / 2:
        # numbered from the end nearer the silver clips
        silver_idx = sorted(res.count + 1 - i for i in silver_idx)
        seen = seen[::-1]
        points = points[::-1]
    length = sk.path_length(seen)
    pitch = (length - clip_len) / max(1, res.count - 1) if res.count > 1 else clip_len
    conf = res.confidence
    # the River's known make-up checks the reading (it is read, never assumed: a table
    # can be set up wrong)
    if res.count == RIVER_CLIPS and tuple(silver_idx) == SILVER_AT:
        conf = 1.0 - 0.5 * (1.0 - conf)
    else:
        conf *= 0.3
    return RiverReading(res.count, silver_idx, np.asarray(seen, dtype=np.float64), clip_len, float(pitch),
                        float(conf), points, source)
