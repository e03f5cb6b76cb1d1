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
from dataclasses import dataclass, field
from typing import Any, Callable

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.railways import skeleton as sk
from vision.railways.chains import LazyMap, Sampled, bridge, chain_paths, strip
from vision.railways.clip_counter import STEP_MM, CountResult
from vision.railways.config import RailwaysConfig
from vision.railways.frame import TopView

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
    silver_mm: list[float] = field(default_factory=list)   # silver clip centres, mm along path_mm
    clip_length_source: str = "default"                     # "silver", "bends" or "default"


def river_path(river_band: U8, view: TopView, cfg: RailwaysConfig) -> F64 | None:
    """The River's centre line (table mm) from the band cells coloured blue or silver: the
    pieces between crossings bridged end to end, the longest chain of them kept."""
    band = cv2.morphologyEx(river_band, cv2.MORPH_CLOSE,
                            cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
    small = dataclasses.replace(cfg, min_chain_area_mm2=cfg.river_piece_mm2)
    paths = chain_paths(np.asarray(band, dtype=np.uint8), view.origin_mm, small)
    if not paths:
        return None
    rcfg = dataclasses.replace(cfg, bridge_mm=cfg.river_bridge_mm, bridge_angle_deg=cfg.river_bridge_angle_deg)
    items = bridge(paths, rcfg)
    path, _ = max(items, key=lambda it: sk.path_length(it[0]))
    if sk.path_length(path) < cfg.river_min_mm:
        return None
    ys, xs = np.nonzero(band)
    cells = np.stack([xs, ys], axis=1).astype(np.float64) + 0.5 + np.asarray(view.origin_mm)
    path = grow(np.asarray(path, dtype=np.float64), cells, cfg.river_gap_mm, cfg)
    return np.asarray(path, dtype=np.float64)


def grow(path: F64, cells: F64, reach_mm: float, cfg: RailwaysConfig) -> F64:
    """The path followed on at both ends through the River's cells (table mm): the next
    cells ahead within reach_mm, near where the path's own curve leads, are walked to,
    so pieces too small to trace on their own (between crossings, silver clips) join."""
    for _ in range(2):
        path = _grow_end(path, cells, reach_mm, cfg)[::-1]
    return path


def _grow_end(path: F64, cells: F64, reach_mm: float, cfg: RailwaysConfig) -> F64:
    p = sk.resample(path, 2.0)
    added: list[F64] = []
    span = cfg.river_curve_span_mm
    for _ in range(int(2000 / 2.0)):
        q = np.vstack([p] + added) if added else p
        e = q[-1]
        h = sk.end_direction(q, False, span / 2)
        nrm = np.array([-h[1], h[0]])
        tail = q[-int(span / 2.0):]
        rel_t = tail - e
        ft, lt = rel_t @ h, rel_t @ nrm
        den = float(np.sum(ft ** 4))
        k = float(np.sum(lt * ft * ft) / den) if den > 1e-9 else 0.0
        k = float(np.clip(k, -cfg.river_max_curve, cfg.river_max_curve))   # lat = k * fwd^2
        rel = cells - e
        f, lat = rel @ h, rel @ nrm
        near = (f > 0.5) & (f < reach_mm)
        if not near.any():
            break
        f, lat = f[near], lat[near]
        ok = np.abs(lat - k * f * f) < cfg.river_lateral_mm + 0.08 * f
        if not ok.any():
            break
        f, lat = f[ok], lat[ok]
        f0 = float(f.min())
        win = f < f0 + 4.0
        fw = float(np.median(f[win]))
        lw = float(np.median(lat[win]))
        target = e + h * fw + nrm * lw
        # walk there in 2 mm steps (a jump over a gap is a straight line)
        n = max(1, int(np.ceil(fw / 2.0)))
        steps = e + (target - e) * (np.arange(1, n + 1)[:, None] / n)
        added.append(steps)
    return np.vstack([p] + added) if added else p


def _profile(values: Sampled, view: TopView, path: F64, half_mm: float) -> F32:
    e, _, _ = strip(values, view, path, half_mm)
    return np.asarray(cv2.blur(e.max(axis=1).reshape(-1, 1), (1, 5)).ravel(), dtype=np.float32)


def silver_centres(silver: Sampled, blue: Sampled, view: TopView, path: F64, clip_len: float,
                   cfg: RailwaysConfig) -> list[float]:
    """Where along the path (mm) the two silver clips lie: the two strongest stretches
    where silver wire outweighs blue, as far apart as four clips of any slack."""
    half = clip_len * cfg.clip_width_ratio / 2 + 1.0
    ps = _profile(silver, view, path, half)
    pb = _profile(blue, view, path, half)
    q = np.clip(ps - pb, 0.0, None)
    k = max(3, int(round(0.4 * clip_len / STEP_MM)) | 1)
    q = np.asarray(cv2.blur(q.reshape(-1, 1), (1, k)).ravel(), dtype=np.float32)
    n = len(q)
    if n < 3:
        return []
    peaks = [i for i in range(1, n - 1) if q[i] >= q[i - 1] and q[i] > q[i + 1] and q[i] > cfg.silver_min]
    lo = int(cfg.silver_gap_clips[0] * clip_len / STEP_MM)
    hi = int(cfg.silver_gap_clips[1] * clip_len / STEP_MM)
    best: tuple[float, int, int] | None = None
    for a in peaks:
        for b in peaks:
            if lo <= b - a <= hi and (best is None or q[a] + q[b] > best[0]):
                best = (float(q[a] + q[b]), a, b)
    if best is None:
        if not peaks:
            return []
        return [max(peaks, key=lambda i: float(q[i])) * STEP_MM]
    return [best[1] * STEP_MM, best[2] * STEP_MM]


def silver_length(silver: Sampled, blue: Sampled, view: TopView, path: F64, centre_mm: float,
                  clip_len: float, cfg: RailwaysConfig) -> float:
    """The length of the silver clip around centre_mm along the path: the extent of its
    silver wire (bend to bend), gaps under its blue neighbours allowed."""
    half = clip_len * cfg.clip_width_ratio / 2 + 1.0
    a = max(0.0, centre_mm - 1.0 * clip_len)
    sub = _cut(path, a, centre_mm + 1.0 * clip_len)
    ps = _profile(silver, view, sub, half)
    pb = _profile(blue, view, sub, half)
    on = (ps > cfg.silver_min) & (ps > 0.5 * pb)
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


def read_river(view: TopView, wires: dict[str, U8], river_band: U8, cfg: RailwaysConfig,
               count_chain: CountChain) -> RiverReading | None:
    """The River read from the chain band's blue and silver cells (1 px/mm) and the blue
    and silver wire evidence (top-view size); None when no River is seen."""
    path = river_path(river_band, view, cfg)
    if path is None:
        return None
    silver = LazyMap.over255(wires["silver"])
    blue = LazyMap.over255(wires["blue"])
    clip_len = cfg.default_clip_mm
    centres = silver_centres(silver, blue, view, path, clip_len, cfg)
    lengths = [silver_length(silver, blue, view, path, c, clip_len, cfg) for c in centres]
    source = "default"
    good = [v + cfg.silver_wire_mm for v in lengths
            if cfg.clip_min_mm <= v + cfg.silver_wire_mm <= cfg.clip_max_mm]
    if good:
        clip_len = float(max(good))
        source = "silver"

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
    if silver_idx and np.mean(silver_idx) > (res.count + 1) / 2:
        silver_idx = sorted(res.count + 1 - i for i in silver_idx)
        seen = seen[::-1]
        total = sk.path_length(path)
        centres = sorted(total - c for c in centres)
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
                        float(conf), [float(c) for c in centres], source)
