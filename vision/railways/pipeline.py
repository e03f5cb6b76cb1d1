"""The railway reader's stages composed: top view, stations and cubes, obstacles, the
River (which teaches the clip length), chains found colour-blind and split by colour
(vision.railways.trace), links counted clip by clip, crossings.

Why the River first: it is a chain of known make-up (32 clips, silver at 12 and 16),
so the length of one clip on this table, whatever the brand, is measured from it before
any link is counted.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Callable

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.geometry import TableFit
from vision.railways import skeleton as sk
from vision.railways.chains import (LazyMap, Sampled, bridge, carry_by_wire, chain_paths, extend, join_through,
                                    sample, strip, strip_grid, strip_maps, walk_by_wire, wire_maps)
from vision.railways.clip_counter import (STEP_MM, BendDetector, CountResult, count_clips, end_scores, load_detector,
                                          load_river_detector)
from vision.railways.clip_length import chain_votes, empty_votes, learnt_length
from vision.railways.config import CLIP_COLOURS, PLAYER_COLOURS, RIVER_COLOURS, RailwaysConfig
from vision.railways.crossings import Footprints, outside, touches
from vision.railways.frame import (BAND_ROWS, TopView, blind_window, lab_rows, mixing_evidence, small_backgrounds, top_view,
                                    upsized, upsized_window)
from vision.railways.obstacles import Obstacle, find_obstacles
from vision.railways.river import RiverReading, read_river
from vision.railways.stations import Station, find_cubes, find_stations, grown, nearest_class
from vision.railways.trace import (colour_bands, chain_band, ink, lab_map, path_colour, split_corners, station_mask,
                                   table_near)

F32 = NDArray[Any]
F64 = NDArray[Any]
U8 = NDArray[Any]


@dataclass
class LinkReading:
    colour: str
    count: CountResult
    path_mm: F64
    stations: list[str]
    pieces: int
    crosses: list[str] = field(default_factory=list)
    confidence: float = 0.0
    colour_share: float = 1.0       # how sure its own pixels name its colour (0: they name another)


class _Grid:
    """A map with its own resolution, for strip sampling of coarse maps."""

    def __init__(self, origin_mm: tuple[float, float], px_per_mm: float) -> None:
        self.origin_mm = origin_mm
        self.px_per_mm = px_per_mm


def _presence_limits(e: F32, first_row: int, last_row: int, gap_rows: int,
                     solid_rows: int = 0) -> tuple[int, int]:
    """Walk outwards from the skeleton's ends while wire is present (small gaps allowed).
    Solid patches (wider than solid_rows samples both ways) are not wire: a cube of the
    link's colour or a card's printing often lies just past the end clip."""
    cols = e.shape[1]
    mid = slice(max(0, cols // 2 - 8), min(cols, cols // 2 + 9))
    on = (e > 0.3).astype(np.uint8)
    if solid_rows > 1:
        k = np.ones((solid_rows | 1, solid_rows | 1), np.uint8)     # odd: erode and dilate stay centred
        solid = np.asarray(cv2.dilate(cv2.erode(on, k), k), dtype=np.uint8)
        on = np.where(solid > 0, 0, on).astype(np.uint8)
    pres = on[:, mid].max(axis=1) > 0
    lo = first_row
    miss = 0
    r = first_row
    while r > 0 and miss <= gap_rows:
        r -= 1
        if pres[r]:
            lo, miss = r, 0
        else:
            miss += 1
    hi = last_row
    miss = 0
    r = last_row
    while r < len(pres) - 1 and miss <= gap_rows:
        r += 1
        if pres[r]:
            hi, miss = r, 0
        else:
            miss += 1
    return lo, hi


def _weights(cover: Sampled, same_large: Sampled | None, mx: F32, my: F32) -> F32:
    """1 where the chain's own wire can be seen, 0 where something covers it (another
    chain's wire, a card of the chain's own colour, a cube)."""
    cv_ = sample(cover, mx, my)
    w = np.clip(1.0 - cv_ * 2.0, 0.0, 1.0)
    if same_large is not None:
        sl = sample(same_large, mx, my)
        w = np.where(sl > 0.45, 0.0, w)
    w = cv2.erode(w.astype(np.float32), np.ones((3, 3), np.uint8))
    return np.asarray(w, dtype=np.float32)


@dataclass
class ChainStrip:
    """One chain straightened for counting: its wire evidence and visibility (rows STEP_MM
    apart), where its wire was seen to begin and end (rows), the strip's centre points,
    and the clip end detector's scores (which do not depend on the clip length, so the
    table's length is learnt from them before any chain is counted)."""

    evidence: F32
    weight: F32
    lo: int
    hi: int
    points: F64
    ends: tuple[F32, F32]
    unseen_end: bool
    card_edges: tuple[float | None, float | None] = (None, None)


def _chain_strip(view: TopView, wire: Sampled, cover: Sampled, same_large: Sampled | None, path: F64,
                 clip_len: float, cfg: RailwaysConfig, detector: BendDetector | None = None,
                 stations: list[Station] | None = None,
                 reached: tuple[bool, bool] = (False, False), centre: bool = False,
                 ext_clips: float = 1.0) -> ChainStrip | None:
    """The strip of the chain along path (extended by a clip at each end), or None when
    too short to count. stations: where the path's ends may join a card (_card_edges).
    reached: the path's ends carried on to a card unseen (_reach_cards): the chain is
    taken to run there, though its wire was not seen. centre: the strip is moved onto the
    middle of the chain's seen wire (_off_centre; the River's path is centred already,
    river._centred). ext_clips: the path is extended by this many clips at each end."""
    width = clip_len * cfg.clip_width_ratio
    wire_mm = clip_len * cfg.wire_ratio
    half = width / 2 + wire_mm + 2.5
    ext_by = clip_len * ext_clips
    if stations and cfg.end_card_straight:
        path = _cut_at_cards(path, stations, cfg)
    ext = extend(path, ext_by)
    mx, my, pts, nrm = strip_grid(view, ext, half)      # one grid for every map of this chain
    e = sample(wire, mx, my)
    w = _weights(cover, same_large, mx, my)
    n = len(e)
    if n < 4:
        return None
    # the traced path runs a few mm beside its chain (at crossings, along bunched stretches,
    # into cards): on dev 2100-2139 at 4608x2592 a clip 5-14 mm off the strip's middle was
    # the first cause of 28 of the 134 wrong counts among links found. The end detector
    # sees the strip folded about its middle, so a chain along the strip's edge loses clip
    # ends; the strip is moved onto the middle of the wire it sees (the path itself, and
    # so the link's reported path, stays as traced)
    moved = np.zeros(n, np.float32)
    for _ in range(cfg.strip_centre_passes if centre else 0):
        shift = _off_centre(e, w, half, cfg)
        if shift is None:
            break
        moved = np.clip(moved + shift, -cfg.strip_centre_mm, cfg.strip_centre_mm)
        mx, my = strip_maps(view, np.asarray(pts) + moved[:, None] * nrm, nrm, half)
        e = sample(wire, mx, my)
        w = _weights(cover, same_large, mx, my)
    # the skeleton stops short of the chain ends; find where the wire really ends
    r0 = int(round(ext_by / STEP_MM))
    r1 = max(r0, n - 1 - int(round(ext_by / STEP_MM)))
    lo, hi = _presence_limits(np.where(w > 0, e, 0.0).astype(np.float32), r0, r1, int(3.0 / STEP_MM),
                              int(round(cfg.solid_mm / STEP_MM)))
    if reached[0]:
        lo = min(lo, r0)
    if reached[1]:
        hi = max(hi, r1)
    unseen0 = float(w[max(0, lo - 8):lo + 1].mean()) < 0.5
    unseen1 = float(w[hi:hi + 9].mean()) < 0.5
    ends = end_scores(e, w, detector or load_detector(), cfg.end_cap)
    pts64 = np.asarray(pts, dtype=np.float64)
    edges = _card_edges(pts64, r0, r1, stations, cfg) if stations else (None, None)
    return ChainStrip(e, w, lo, hi, pts64, ends, unseen0 or unseen1, edges)


def _off_centre(e: F32, w: F32, half: float, cfg: RailwaysConfig) -> F32 | None:
    """How far (mm, along the strip's normals) the chain's seen wire lies off the strip's
    middle, row by row, smoothed along the chain; None when nowhere by more than 1 mm."""
    offs = np.arange(e.shape[1], dtype=np.float32) * STEP_MM - np.float32(half)
    seen = np.where(w > 0, e, 0.0).astype(np.float32)
    mass = seen.sum(axis=1)
    cen = (seen * offs[None, :]).sum(axis=1)
    k = max(3, int(round(cfg.strip_centre_span_mm / STEP_MM)) | 1)
    ms = cv2.blur(mass.reshape(-1, 1), (1, k)).ravel()
    cs = cv2.blur(cen.reshape(-1, 1).astype(np.float32), (1, k)).ravel()
    shift = np.where(ms > 0.5, cs / np.maximum(ms, 1e-6), 0.0)
    shift = np.clip(shift, -cfg.strip_centre_mm, cfg.strip_centre_mm).astype(np.float32)
    return shift if float(np.abs(shift).max()) > 1.0 else None


def _cut_at_cards(path: F64, stations: list[Station], cfg: RailwaysConfig) -> F64:
    """The path without what it runs inside the card of the station each end joins (its
    first point inside kept): the strip then goes on straight into the card, along the
    chain's heading before the card, as the end clip does (a clip is straight). Why: on
    the card the band is masked and a carried or walked end follows the card's printing
    or edge, so the strip there missed the end clip."""
    for _ in range(2):
        path = path[::-1]
        st = _end_station(path[-1], np.zeros(2), stations, cfg)
        if st is None or len(path) < 3:
            continue
        inside = st.contains(path)
        k = len(path) - 1
        while k > 0 and inside[k]:
            k -= 1
        if k < len(path) - 2 and sk.path_length(path[:k + 2]) >= cfg.end_card_keep_mm:
            path = path[:k + 2]
    return path


def _card_edges(pts: F64, r0: int, r1: int, stations: list[Station],
                cfg: RailwaysConfig) -> tuple[float | None, float | None]:
    """Where the strip (centre points pts, STEP_MM apart; the path's own ends at rows r0
    and r1) leaves the card of the station each end joins, in mm along the strip: the
    inside row nearest the chain, within end_card_scan_mm of the path's end. None where
    the end joins no station or the strip never enters its card. Why: a link's end clip
    touches its station and the next clip does not, so the chain ends inside the card a
    little past its edge, wherever the trace stopped (at the card's edge, a cube) or ran
    on (along the card's printing)."""
    out: list[float | None] = []
    scan = int(round(cfg.end_card_scan_mm / STEP_MM))
    n = len(pts)
    for at_start in (True, False):
        end_row = r0 if at_start else r1
        st = _end_station(pts[end_row], np.zeros(2), stations, cfg)
        if st is None:
            out.append(None)
            continue
        rows = np.arange(0, min(n, end_row + scan + 1)) if at_start else np.arange(max(0, end_row - scan), n)
        inside = rows[st.contains(pts[rows])].tolist()
        if not inside:
            out.append(None)
            continue
        out.append((max(inside) if at_start else min(inside)) * STEP_MM)
    return out[0], out[1]


def _card_windows(st: ChainStrip, clip_len: float,
                  cfg: RailwaysConfig) -> tuple[tuple[float, float] | None, tuple[float, float] | None]:
    """The counter's windows for the first clip's start and the last clip's end (mm along
    the strip) from the cards' edges: from end_card_outside_mm outside the edge to
    end_card_depth clips inside the card."""
    e0, e1 = st.card_edges
    depth, out = cfg.end_card_depth * clip_len, cfg.end_card_outside_mm
    return (None if e0 is None else (e0 - depth, e0 + out),
            None if e1 is None else (e1 - out, e1 + depth))


def _count_strip(st: ChainStrip, clip_len: float, cfg: RailwaysConfig) -> tuple[CountResult, F64]:
    """The chain's count with this clip length, and its path where its wire was seen."""
    before, after = (cfg.end_before_mm, cfg.end_after_mm) if not st.unseen_end else (12.0, 12.0)
    res = count_clips(st.evidence, st.weight, clip_len, clip_len * cfg.clip_width_ratio,
                      clip_len * cfg.wire_ratio, st.lo * STEP_MM, st.hi * STEP_MM, clip_cost=cfg.clip_cost,
                      cap=cfg.end_cap, end_before_mm=max(before, cfg.count_end_outside_mm),
                      end_after_mm=max(after, cfg.count_end_inside_mm), ends=st.ends, end_slope=cfg.count_end_slope,
                      windows=_card_windows(st, clip_len, cfg), pitch_change=cfg.count_pitch_change,
                      card_margin=cfg.count_card_margin, card_weakest=cfg.count_card_weakest)
    lo, hi = st.lo, st.hi
    if res.count and cfg.path_to_clips:
        # the link ends where its end clips do, not where wire was last seen (a cube or a
        # card's printing of its colour may lie past the end clip)
        lo = int(round(res.starts_mm[0] / STEP_MM))
        hi = min(len(st.points) - 1, int(round((res.starts_mm[-1] + clip_len) / STEP_MM)))
    seen_path = st.points[lo:hi + 1] if hi > lo else st.points
    return res, np.asarray(seen_path, dtype=np.float64)


def _count_chain(view: TopView, wire: Sampled, cover: Sampled, same_large: Sampled | None, path: F64,
                 clip_len: float, cfg: RailwaysConfig, detector: BendDetector | None = None,
                 stations: list[Station] | None = None, ext_clips: float = 1.0) -> tuple[CountResult, F64]:
    st = _chain_strip(view, wire, cover, same_large, path, clip_len, cfg, detector, stations=stations,
                      ext_clips=ext_clips)
    if st is None:
        return CountResult(0, (), 0.0, 0.0, 1.0), path
    return _count_strip(st, clip_len, cfg)


def _river_counter(view: TopView, stations: list[Station],
                   cfg: RailwaysConfig) -> Callable[[Sampled, F64, float], tuple[CountResult, F64]]:
    """How the River is counted (read_river's count_chain): uncovered, by its own detector.
    With river_board_depth, its end at the Metropolis board counts its first clip as a
    link's end clip in its card: that clip's start lies from river_board_inside to
    river_board_depth clips inside the board's edge (the rules put the River's silver end
    on the board, where its blue wire is seldom seen on the board's print), and the strip
    reaches that far into the board. The clip starts are given as along the path extended
    by one clip, as read_river takes them."""
    board = [s for s in stations if s.metropolis] if cfg.river_board_depth > 0 else []
    rcfg, ext = cfg, 1.0
    if board:
        rcfg = dataclasses.replace(cfg, end_card_depth=cfg.river_board_depth,
                                   end_card_outside_mm=-cfg.river_board_inside * cfg.default_clip_mm,
                                   end_card_scan_mm=cfg.river_board_scan_mm, end_card_straight=False)
        ext = max(1.0, cfg.river_board_depth + 0.25)

    def count(wire: Sampled, path: F64, length: float) -> tuple[CountResult, F64]:
        res, seen = _count_chain(view, wire, _uncovered(wire.shape), None, path, length, rcfg, load_river_detector(),
                                 board or None, ext)
        if ext == 1.0:
            return res, seen
        shift = (ext - 1.0) * length
        return dataclasses.replace(res, starts_mm=tuple(v - shift for v in res.starts_mm)), seen
    return count


def table_clip_length(strips: list[ChainStrip], cfg: RailwaysConfig) -> float | None:
    """This table's clip length learnt from its chains' clip ends (vision.railways.
    clip_length), or None when their votes do not single one out."""
    votes = empty_votes(cfg.clip_min_mm, cfg.clip_max_mm)
    for st in strips:
        votes = chain_votes(st.ends[0], st.ends[1], votes)
    got = learnt_length(votes, cfg.clip_votes_z)
    return got[0] if got is not None else None


def _end_station(pt: F64, direction: F64, stations: list[Station], cfg: RailwaysConfig) -> Station | None:
    best: tuple[float, Station] | None = None
    for s in stations:
        d = s.distance(pt)
        if d > cfg.end_station_mm:
            continue
        if best is None or d < best[0]:
            best = (d, s)
    return best[1] if best else None


def _between_cards(path: F64, stations: list[Station], cfg: RailwaysConfig) -> bool:
    """Whether a short path runs from one card to another: each end within
    short_link_card_mm of a card, two different cards, and the path heading from the one
    card towards the other (within short_link_deg of the line between the points of the
    two outlines nearest its ends). Why: a link between two cards a clip or two apart
    shows only the band between them (the cards are masked), which the skeleton shortens
    further; such a piece lies in line between two cards, not across the gap."""
    reach = cfg.short_link_card_mm
    if reach <= 0 or len(path) < 2 or len(stations) < 2:
        return False
    a, b = path[0], path[-1]
    v = b - a
    n = float(np.hypot(v[0], v[1]))
    if n < 1.0:
        return False
    da = sorted((s.distance(a), k) for k, s in enumerate(stations))
    db = sorted((s.distance(b), k) for k, s in enumerate(stations))
    # the card nearest one end, and the nearest other card to the other end (both ways)
    for ka, kb in ((da[0][1], next(k for _, k in db if k != da[0][1])),
                   (next(k for _, k in da if k != db[0][1]), db[0][1])):
        if stations[ka].distance(a) > reach or stations[kb].distance(b) > reach:
            continue
        w = _nearest_on(stations[kb].polygon_mm, b) - _nearest_on(stations[ka].polygon_mm, a)
        m = float(np.hypot(w[0], w[1]))
        if m > 0 and float(v @ w) / (n * m) >= math.cos(math.radians(cfg.short_link_deg)):
            return True
    return False


def _nearest_on(poly: F64, pt: F64) -> F64:
    """The point of a closed polygon's outline nearest to pt."""
    p = np.asarray(poly, dtype=np.float64)
    q = np.roll(p, -1, axis=0)
    d = q - p
    t = np.clip(np.einsum("ij,ij->i", pt[None, :] - p, d) / np.maximum(np.einsum("ij,ij->i", d, d), 1e-9), 0.0, 1.0)
    c = p + t[:, None] * d
    return np.asarray(c[int(np.argmin(np.hypot(*(c - pt[None, :]).T)))], dtype=np.float64)


def _walk_ends(path: F64, wire: Sampled, view: TopView, stations: list[Station],
               cfg: RailwaysConfig, band: U8 | None = None) -> tuple[F64, bool]:
    """The path with each end that joins no station walked on along its wire to the
    station it reaches (chains.walk_by_wire), and whether any end was. band: the chain's
    colour band (1 px/mm, trace.colour_bands), walked the same way where the wire walk
    gives out (walk_band)."""
    walked = False
    maps: list[tuple[Sampled, TopView]] = [(wire, view)]
    if band is not None and cfg.walk_band:
        # the wire evidence of a chain near the table's own colour (black on a dark mat,
        # white on a pale one, red on dark red wood) is too faint to walk, where its band
        # (the colour-blind ink coloured by the evidence around it) still runs on
        maps.append((LazyMap.of(band), TopView(_NO_PIXELS, _NO_PIXELS, view.origin_mm, 1.0)))
    for _ in range(2):
        path = path[::-1]                                  # the start end, then the other
        if _end_station(path[-1], sk.end_direction(path, False, 10.0), stations, cfg) is not None:
            continue
        other = _end_station(path[0], sk.end_direction(path, True, 10.0), stations, cfg)

        def arrived(p: F64, _other: Station | None = other) -> bool:
            return any(s is not _other and s.distance(p) <= cfg.walk_arrive_mm for s in stations)
        for values, grid in maps:
            got = walk_by_wire(path, values, grid, cfg.default_clip_mm * cfg.clip_width_ratio / 2, arrived,
                               cfg.walk_reach_mm, cfg.walk_step_mm, cfg.walk_look_mm, cfg.walk_turn_deg,
                               cfg.walk_gap_mm, cfg.walk_min)
            if got is not None:
                path, walked = got, True
                break
    return path, walked


def _reach_cards(path: F64, stations: list[Station], cfg: RailwaysConfig) -> tuple[F64, tuple[bool, bool]]:
    """The path with an end that joins no station, when its other end joins one, carried
    straight on along its heading into the first card that line meets within end_reach_mm
    (end_reach_inside_mm inside it), never the card its other end joins; and which ends
    were. A path joining no station is left as it is (a fragment is no link). Why: a link always ends
    at a station, and where the band and the wire walk lose a faint chain (a red chain on
    a cream table) its last clips still run on towards the card; the counter's window at
    that card's edge then places the end clip (pipeline._card_windows)."""
    reached = [False, False]
    if cfg.end_reach_mm <= 0 or not stations or len(path) < 2:
        return path, (False, False)
    if all(_end_station(e, np.zeros(2), stations, cfg) is None for e in (path[0], path[-1])):
        return path, (False, False)         # joins no station at all: a piece of something, not a link
    for k in range(2):
        at_start = k == 0
        end = path[0] if at_start else path[-1]
        if _end_station(end, np.zeros(2), stations, cfg) is not None:
            continue
        other = _end_station(path[-1] if at_start else path[0], np.zeros(2), stations, cfg)
        head = sk.end_direction(path, at_start, 10.0)
        steps = np.arange(1.0, cfg.end_reach_mm + 1.0, 1.0)
        line = end[None, :] + steps[:, None] * head[None, :]
        best: tuple[int, Station] | None = None
        for st in stations:
            if st is other:
                continue
            inside = np.flatnonzero(st.contains(line[::2]))
            if len(inside) and (best is None or int(inside[0]) * 2 < best[0]):
                best = (int(inside[0]) * 2, st)
        if best is None:
            continue
        first = best[0]
        while first > 0 and best[1].contains(line[first - 1:first])[0]:
            first -= 1              # the line's first point inside (sampled every 2 mm above)
        stop = min(len(line), first + int(round(cfg.end_reach_inside_mm)) + 1)
        ext = line[:stop]
        path = np.vstack([ext[::-1], path]) if at_start else np.vstack([path, ext])
        reached[k] = True
    return path, (reached[0], reached[1])


def _joined(carried: list[tuple[str, F64, int, float, bool]], named: dict[str, LazyMap],
            per_colour: dict[str, U8], view: TopView, stations: list[Station],
            cfg: RailwaysConfig) -> list[tuple[str, F64, int, float, bool]]:
    """The chains with the pieces of one chain split at a crossing joined again
    (chains.join_through), colour by colour. An end is free where it lies further than
    join_free_mm outside every card: a link's end clip lies inside its card. A gap that
    passes within join_card_clear_mm of a card is two links meeting at it. The gap
    between two pieces must show the chain's own wire or lie in the band of chains of any
    colour (the one over it; the band, unlike the wire maps, holds on textured tables)."""
    half = cfg.default_clip_mm * cfg.clip_width_ratio / 2
    band: U8 | None = None
    for m in per_colour.values():
        band = m.copy() if band is None else np.maximum(band, m, out=band)
    if band is None:
        return carried
    r = int(round(cfg.join_band_reach_mm))
    band = np.asarray(cv2.dilate(band, np.ones((2 * r + 1, 2 * r + 1), np.uint8)), dtype=np.uint8)
    origin = np.asarray(view.origin_mm, dtype=np.float64)

    def free_end(p: F64) -> bool:
        return all(s.distance(p) > cfg.join_free_mm for s in stations)

    def anchored(p: F64) -> bool:
        return _end_station(p, np.zeros(2), stations, cfg) is not None

    def blocked(curve: F64) -> bool:
        pts = curve[::4]
        return any(bool(s.contains(pts, cfg.join_card_clear_mm).any()) for s in stations)

    def in_band(curve: F64) -> NDArray[np.bool_]:
        ij = np.floor(curve - origin).astype(np.int64)
        ok = (ij[:, 0] >= 0) & (ij[:, 1] >= 0) & (ij[:, 0] < band.shape[1]) & (ij[:, 1] < band.shape[0])
        got = np.zeros(len(curve), bool)
        got[ok] = band[ij[ok, 1], ij[ok, 0]] > 0
        return got

    out: list[tuple[str, F64, int, float, bool]] = []
    for colour in dict.fromkeys(c[0] for c in carried):
        mine = [c for c in carried if c[0] == colour]
        if len(mine) < 2:
            out += mine
            continue

        def seen(curve: F64, _wire: LazyMap = named[colour]) -> F32:
            mx, my, pts, _ = strip_grid(view, curve, half)
            if mx.shape[0] == 0:
                return np.zeros(0, np.float32)
            w = cv2.blur(sample(_wire, mx, my).max(axis=1).reshape(-1, 1), (1, 5)).ravel()
            return np.asarray((w > cfg.link_wire_min) | in_band(pts), dtype=np.float32)

        paths = [c[1] for c in mine]
        free = [(free_end(p[0]), free_end(p[-1])) for p in paths]
        joined: list[tuple[str, F64, int, float, bool]] = []
        for path, order in join_through(paths, free, seen, blocked, cfg.join_reach_mm, cfg.join_turn_deg,
                                        cfg.join_lateral_mm, cfg.join_span_mm, cfg.join_skip_mm,
                                        cfg.join_seen_share,
                                        (cfg.join_line_deg, cfg.join_line_mm, cfg.join_line_seen_share)):
            parts = [mine[k] for k in order]
            joined.append((colour, path, sum(p[2] for p in parts), min(p[3] for p in parts),
                           any(p[4] for p in parts)))
        if cfg.join_anchored_turn_deg > 0 and len(joined) > 1:
            # a second pass, wider, only between ends whose pieces are anchored at their
            # other end (a station there): two such halves facing each other are one link
            # bent where it was crossed, not two links each ending in the open
            paths = [c[1] for c in joined]
            free = [(free_end(p[0]) and anchored(p[-1]), free_end(p[-1]) and anchored(p[0])) for p in paths]
            again: list[tuple[str, F64, int, float, bool]] = []
            for path, order in join_through(paths, free, seen, blocked, cfg.join_anchored_reach_mm,
                                            cfg.join_anchored_turn_deg, cfg.join_lateral_mm, cfg.join_span_mm,
                                            cfg.join_skip_mm, cfg.join_seen_share,
                                            (cfg.join_line_deg, cfg.join_line_mm, cfg.join_line_seen_share)):
                parts = [joined[k] for k in order]
                again.append((colour, path, sum(p[2] for p in parts), min(p[3] for p in parts),
                              any(p[4] for p in parts)))
            joined = again
        out += joined
    return out


def _pieces_dropped(carried: list[tuple[str, F64, int, float, bool]],
                    cfg: RailwaysConfig) -> list[tuple[str, F64, int, float, bool]]:
    """The chains without those that lie along a longer walked chain of their colour: a
    walk runs on over the pieces its band broke into, which are that link, not links."""
    if not any(c[4] for c in carried):
        return carried
    order = sorted(range(len(carried)), key=lambda i: -sk.path_length(carried[i][1]))
    kept: set[int] = set()
    walks: list[tuple[str, F64]] = []          # the kept walked chains, resampled once
    for i in order:
        colour, path, walked = carried[i][0], carried[i][1], carried[i][4]
        pts = sk.resample(path, 2.0)
        along = False
        for wcolour, ww in walks:
            if wcolour != colour:
                continue
            d = np.hypot(pts[:, None, 0] - ww[None, :, 0], pts[:, None, 1] - ww[None, :, 1]).min(axis=1)
            if float(np.mean(d < cfg.walk_cover_mm)) >= cfg.walk_cover_share:
                along = True
                break
        if not along:
            kept.add(i)
            if walked:
                walks.append((colour, pts))
    return [c for i, c in enumerate(carried) if i in kept]


_NO_PIXELS = np.zeros((0, 0, 3), np.uint8)


def _lab_window(make_bgr: Callable[[slice, slice], U8], shape: tuple[int, int]) -> LazyMap:
    """trace.lab_map of an image that is itself made window by window."""
    return LazyMap(shape, lambda r, c: np.asarray(cv2.cvtColor(make_bgr(r, c), cv2.COLOR_BGR2Lab),
                                                  dtype=np.float32))


def _uncovered(shape: tuple[int, ...]) -> LazyMap:
    """A cover map of zeros: links lie on the River, never under it, so nothing covers it."""
    return LazyMap(shape, lambda r, c: np.zeros((r.stop - r.start, c.stop - c.start), np.float32))


def read_table(image: U8, fit: TableFit, profile: Any, cfg: RailwaysConfig,
               previous: U8 | None = None) -> dict[str, Any]:
    view = top_view(image, fit, profile, cfg, keep_lab=True)
    small_lab: U8 = (view.small_lab if view.small_lab is not None else
                     cv2.resize(view.lab, None, fx=1.0 / cfg.px_per_mm, fy=1.0 / cfg.px_per_mm,
                                interpolation=cv2.INTER_AREA))
    changed: U8 | None = None
    if previous is not None:
        changed = _changed(view, previous, fit, profile, cfg)
    view_lab_full = view.lab                # for the ink alone (it would make it again)
    view.lab = view.small_lab = _NO_PIXELS  # every later stage reads small_lab or the wires
    classes = nearest_class(small_lab, cfg, 1.0)       # the stations' and the obstacles' map
    spot = _spot_view(image, fit, profile, cfg, view) if cfg.station_spot_mm > 0 else None
    stations = find_stations(view, cfg, small_lab, 1.0, classes, spot)
    del spot
    find_cubes(stations, small_lab, view.origin_mm, 1.0, cfg)
    board = np.asarray([s.centre_mm for s in stations if s.metropolis], dtype=np.float64).reshape(-1, 2)
    obstacles = find_obstacles(small_lab, view.origin_mm, 1.0, cfg, classes=classes, board_mm=board,
                               cards_mm=[s.polygon_mm for s in stations],
                               area_mm=(tuple(profile.area_origin_mm), tuple(profile.area_size_mm)))
    del small_lab, classes
    bg_small, tex_small = small_backgrounds(view.image, int(round(12.0 * cfg.px_per_mm)), textured=True)
    size = (view.image.shape[1], view.image.shape[0])
    # the ink is taken at once, so that the textured background is gone before the plain
    # one is brought to full size (never both full-size backgrounds at once)
    bg_ink = upsized(tex_small if tex_small is not None else bg_small, size)
    del tex_small
    ink_mm = ink(view.image, bg_ink, cfg.px_per_mm, image_lab=view_lab_full if view_lab_full.size else None)
    del bg_ink, view_lab_full
    # the full-size background is never made when the half-size one gives its rows and
    # windows to the byte (upsized_window): the wire maps take it a band of rows at a
    # time (frame.mixing_evidence, as chains.wire_maps does with the whole), and its Lab
    # is read through windows
    bg_window = upsized_window(bg_small, size)
    if bg_window is not None:
        make = bg_window
        wires, blind = mixing_evidence(view.image, lambda y0, y1: make(slice(y0, y1), slice(0, size[0])),
                                       CLIP_COLOURS, residual=cfg.mix_residuals())
        bg_lab = _lab_window(bg_window, (size[1], size[0]))
    else:
        bg = upsized(bg_small, size)
        wires, blind = wire_maps(view, CLIP_COLOURS, cfg, bg)
        bg_lab = lab_map(bg)
        del bg
    near = (table_near(bg_small, CLIP_COLOURS, PLAYER_COLOURS, cfg.blind_relabel_contrast)
            if cfg.blind_relabel_contrast > 0 else blind)
    del bg_small
    h, w = view.image.shape[:2]
    view_px = view.image
    # from here on only the view's geometry is needed, not its pixels
    view = TopView(_NO_PIXELS, _NO_PIXELS, view.origin_mm, view.px_per_mm)

    links: list[LinkReading] = []
    fragments = 0
    view_lab = lab_map(view_px)
    card = station_mask((ink_mm.shape[0], ink_mm.shape[1]), [s.polygon_mm for s in stations],
                        view.origin_mm, cfg.card_grow_mm)
    band = chain_band(ink_mm, card, cfg)
    del ink_mm
    per_colour = colour_bands(band, wires, cfg.px_per_mm, cfg, card, PLAYER_COLOURS, near)
    del band
    named = {c: LazyMap.over255(wires[c]) for c in CLIP_COLOURS}
    covers: dict[str, LazyMap] = {}
    blinds: dict[str, LazyMap] = {}
    items: list[tuple[str, F64, int]] = []
    for colour in PLAYER_COLOURS:
        cb = cv2.morphologyEx(per_colour[colour], cv2.MORPH_CLOSE,
                              cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
        paths = [q for p in chain_paths(cb, view.origin_mm, cfg)
                 for q in split_corners(p, cfg.kink_span_mm, cfg.kink_deg)]
        items += [(colour, p, n) for p, n in bridge(paths, cfg)]
    # every chain straightened first (at the standard length): the table's clip length is
    # learnt from all of them before any is counted
    chains: list[tuple[str, F64, int, float, ChainStrip]] = []
    carried: list[tuple[str, F64, int, float, bool]] = []
    for colour, path, pieces in items:
        if sk.path_length(path) < 12 and not _between_cards(path, stations, cfg):
            continue
        named_as, share = path_colour(view_lab, bg_lab, view, path, cfg.colour_half_mm, CLIP_COLOURS, cfg)
        if named_as in RIVER_COLOURS and not (colour == "white" and named_as == "silver"):
            continue                    # the River (read below); a white chain's pixels may
                                        # pass for silver (trace.colour_bands), the River's never for white
        # the band's colour and the chain's own pixels must agree for a sure colour (taking
        # the pixels' name instead was measured: no better on the dev tables)
        share = share if named_as == colour else 0.0
        if colour not in covers:
            covers[colour] = _cover(wires, colour)
            blinds[colour] = LazyMap((h, w), blind_window(blind[colour], (w, h)))
        if cfg.link_wire_reach_mm > 0:
            # the band stops short of the chain's end: at a station's card (masked; the end
            # clip lies partly on it), at a cube, under another chain (carrying only ends
            # near a station was measured: fewer links found)
            path = carry_by_wire(path, named[colour], view, cfg.default_clip_mm * cfg.clip_width_ratio / 2,
                                 cfg.link_wire_reach_mm, cfg.link_wire_fan_deg, cfg.link_wire_gap_mm,
                                 cfg.link_wire_min, straight_share=cfg.link_wire_straight_share)
        path, walked = _walk_ends(path, named[colour], view, stations, cfg, per_colour[colour])
        carried.append((colour, path, pieces, share, walked))
    if cfg.join_reach_mm > 0:
        carried = _joined(carried, named, per_colour, view, stations, cfg)
    reached_any: list[bool] = []
    for colour, path, pieces, share, walked in _pieces_dropped(carried, cfg):
        path, reached = _reach_cards(path, stations, cfg)
        cs = _chain_strip(view, named[colour], covers[colour], blinds[colour], path, cfg.default_clip_mm, cfg,
                          stations=stations, reached=reached, centre=True)
        if cs is not None:
            chains.append((colour, path, pieces, share, cs))
            reached_any.append(any(reached))
    learnt = table_clip_length([c[4] for c in chains], cfg)
    river = read_river(view, wires, per_colour, [s.polygon_mm for s in stations], view_lab, bg_lab, cfg,
                       _river_counter(view, stations, cfg), learnt)
    clip_len = river.clip_length_mm if river is not None else (learnt or cfg.default_clip_mm)
    for (colour, path, pieces, share, cs), unseen_end in zip(chains, reached_any):
        res, seen = _count_strip(cs, clip_len, cfg)
        if res.count == 0:
            continue
        if changed is not None:
            # the table before this link was built: keep only what changed
            frac = float(np.mean(strip(LazyMap.of(changed), view, seen, 3.0)[0]))
            if frac > 0.5:
                res2, _ = _count_chain(view, _changed_wire(wires[colour], changed), covers[colour],
                                       blinds[colour], path, clip_len, cfg)
                if res2.count and res2.confidence >= res.confidence:
                    res = res2
        ends = []
        for at_start in (True, False):
            p = seen[0] if at_start else seen[-1]
            st = _end_station(p, sk.end_direction(seen, at_start, 10.0), stations, cfg)
            ends.append(st.id if st is not None else "?")
        if ends[0] == ends[1] and ends[0] != "?":
            continue                # printing on one card, or a link may not loop back
        if ends == ["?", "?"]:
            fragments += 1          # joins no station: a piece of something, not a link
            continue
        conf = res.confidence * (1.0 if "?" not in ends and not unseen_end else 0.3) * min(1.0, share / cfg.colour_sure)
        links.append(LinkReading(colour, res, seen, ends, pieces, confidence=conf, colour_share=share))

    _crossings(links, river, obstacles, stations, profile, view, clip_len, cfg)
    out = _to_json(links, river, stations, obstacles, clip_len, cfg)
    out["unattached_chains"] = fragments
    return out


CLIP_COLOURS_FIRST = next(iter(CLIP_COLOURS))


def _cover(wires: dict[str, U8], colour: str) -> LazyMap:
    """Where another colour's wire lies over this one (0..1), window by window (the
    colours' maximum too: a whole-table one was 4 MB)."""
    wire = wires[colour]

    mine = colour in CLIP_COLOURS

    def make(r: slice, c: slice) -> F32:
        stack_max = wires[CLIP_COLOURS_FIRST][r, c].copy()
        for name in CLIP_COLOURS:
            np.maximum(stack_max, wires[name][r, c], out=stack_max)
        if mine:
            # the maximum is at least the colour's own, so the byte difference is the
            # float one (a whole number), and over 255 it lies in 0..1 already
            return np.asarray(cv2.subtract(stack_max, wire[r, c]).astype(np.float32) / 255.0, dtype=np.float32)
        return np.clip((stack_max.astype(np.float32) - wire[r, c].astype(np.float32)) / 255.0, 0.0, 1.0)
    return LazyMap(wire.shape, make)


def _spot_view(image: U8, fit: TableFit, profile: Any, cfg: RailwaysConfig, view: TopView) -> TopView | None:
    """The table viewed again divided by the local light (frame.top_view's spot_mm) when a
    lamp's spot outshines the markers' white somewhere: patches of the plain view clipped
    white in some channel, wider than spot_patch_mm (a card's printing, a white clip or
    a glint are narrower). None without one (about half the tables: not viewed twice).
    Why the whole table and not the spot alone: a crop changes the table's own colour
    (a median over table_window_mm) the cards are told from, and made phantom cards."""
    b, g, r = cv2.split(view.image)
    _, lit = cv2.threshold(cv2.max(cv2.max(b, g), r), 254, 255, cv2.THRESH_BINARY)
    del b, g, r
    k = max(3, int(round(cfg.spot_patch_mm * view.px_per_mm)) | 1)
    if cv2.countNonZero(lit) <= k * k:
        return None
    lit = cv2.morphologyEx(lit, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    if not cv2.countNonZero(lit):
        return None
    return top_view(image, fit, profile, cfg, spot_mm=cfg.station_spot_mm)


def _changed_wire(wire: U8, changed: U8) -> LazyMap:
    """The wire evidence where the table changed since the previous frame."""
    def make(r: slice, c: slice) -> F32:
        return np.asarray((wire[r, c].astype(np.float32) / 255.0) * changed[r, c].astype(np.float32),
                          dtype=np.float32)
    return LazyMap(wire.shape, make)


def _changed(view: TopView, previous: U8, fit: TableFit, profile: Any, cfg: RailwaysConfig) -> U8:
    """Pixels of the top view that differ from the previous frame's (dilated by a wire)."""
    before = top_view(previous, fit, profile, cfg)
    h = view.image.shape[0]
    m = np.empty(view.image.shape[:2], np.uint8)
    for y0 in range(0, h, BAND_ROWS):          # Lab band by band, never two whole-view Labs
        y1 = min(h, y0 + BAND_ROWS)
        d = cv2.absdiff(lab_rows(view, y0, y1), lab_rows(before, y0, y1)).max(axis=2)
        m[y0:y1] = d > 30
    del before
    return np.asarray(cv2.dilate(m, np.ones((5, 5), np.uint8)), dtype=np.uint8)


def _crossings(links: list[LinkReading], river: RiverReading | None, obstacles: list[Obstacle],
               stations: list[Station], profile: Any, view: TopView, clip_len: float,
               cfg: RailwaysConfig) -> None:
    width = clip_len * cfg.clip_width_ratio + clip_len * cfg.wire_ratio
    size = (profile.area_size_mm[0] + 2 * cfg.margin_mm, profile.area_size_mm[1] + 2 * cfg.margin_mm)
    fps = Footprints(view.origin_mm, size)
    foot = [fps.chain(lk.path_mm, width) for lk in links]
    river_fp = fps.chain(river.path_mm, width) if river is not None else None
    obs_fp = [fps.polygon(o.polygon_mm) for o in obstacles]
    st_fp = {s.id: fps.polygon(s.polygon_mm) for s in stations}
    cards = {s.id: s.polygon_mm for s in stations}
    clip_w = clip_len * cfg.clip_width_ratio
    near_st = {s.id: fps.polygon(grown(s.polygon_mm, cfg.shared_station_grow_mm)) for s in stations}
    # a link with an end at no station is left out of the others' lists (it keeps its
    # own): on the dev tables most such links are a texture's or a card rim's pieces
    # walked to one station (62% of false links, 5% of true ones), and one false entry
    # spoils a real link's list. So is a link whose own pixels name another colour than
    # its band's (dev: 70 false links, 17 true)
    listed = [(cfg.cross_unattached or "?" not in lk.stations) and (cfg.cross_other_colour or lk.colour_share > 0)
              for lk in links]
    for i, lk in enumerate(links):
        out: list[str] = []
        for j in range(len(links)):
            if j == i or not listed[j]:
                continue
            shared = [near_st[s] for s in set(lk.stations) & set(links[j].stations) if s in near_st]
            if touches(foot[i], foot[j], shared):
                out.append(f"link:{j}")
        if river_fp is not None and touches(foot[i], river_fp):
            out.append("river")
        for k, o in enumerate(obs_fp):
            if touches(foot[i], o):
                out.append(f"obstacle:{k}")
        for sid, m in st_fp.items():
            if sid in lk.stations:
                continue
            # a card is touched when the chain's clips overlap it clearly: the footprint
            # (a clip's width and a wire's) brushing it is the reader's path a few mm off
            # the chain, most often an end clip arriving at its own card beside another
            # (dev 2100-2139: 16 such entries on real links, none true; a link may not
            # cross a station, so each such entry refuses a legal link)
            if touches(foot[i], m) and _runs_into(lk.path_mm, cards[sid], cfg.station_overlap_mm - clip_w / 2):
                out.append(f"station:{sid}")
        if outside(foot[i], fps, profile.area_origin_mm, profile.area_size_mm):
            out.append("edge")
        lk.crosses = out


def _runs_into(path: F64, polygon: F64, depth_mm: float) -> bool:
    """Whether the path (sampled every mm) comes `depth_mm` inside the polygon."""
    poly = np.asarray(polygon, dtype=np.float32).reshape(-1, 1, 2)
    for x, y in sk.resample(np.asarray(path, dtype=np.float64), 1.0):
        if cv2.pointPolygonTest(poly, (float(x), float(y)), True) >= depth_mm:
            return True
    return False


def _r(v: float) -> float:
    return round(float(v), 1)


def _json_path(path: F64) -> list[list[float]]:
    """The path every 10 mm, and its very end (resampling alone drops up to 10 mm of it:
    where a link ends says which station it joins)."""
    pts = sk.resample(path, 10.0)
    if len(path) > 1 and len(pts) and float(np.hypot(*(path[-1] - pts[-1]))) > 0.5:
        pts = np.vstack([pts, path[-1:]])
    return [[_r(x), _r(y)] for x, y in pts]


def _to_json(links: list[LinkReading], river: RiverReading | None, stations: list[Station],
             obstacles: list[Obstacle], clip_len: float, cfg: RailwaysConfig) -> dict[str, Any]:
    return {
        "game": "railways",
        "links": [{
            "colour": lk.colour, "clips": lk.count.count, "confidence": round(lk.confidence, 3),
            "confident": lk.confidence >= cfg.confident,
            "path_mm": _json_path(lk.path_mm),
            "stations": lk.stations, "crosses": lk.crosses,
        } for lk in links],
        "river": None if river is None else {
            "clips": river.clips, "silver": river.silver, "confidence": round(river.confidence, 3),
            "path_mm": _json_path(river.path_mm),
            "silver_mm": [[_r(x), _r(y)] for x, y in river.silver_mm],
            "clip_length_source": river.clip_length_source,
        },
        "stations": [{
            "id": s.id, "type": s.type, "metropolis": s.metropolis,
            "centre_mm": [_r(s.centre_mm[0]), _r(s.centre_mm[1])],
            "polygon_mm": [[_r(x), _r(y)] for x, y in s.polygon_mm], "cubes": s.cubes,
            "player": s.player,
        } for s in stations],
        "obstacles": [{"material": o.material, "polygon_mm": [[_r(x), _r(y)] for x, y in o.polygon_mm]}
                      for o in obstacles],
        "clip_length_mm": round(clip_len, 2),
        "clip_pitch_mm": round(river.pitch_mm, 2) if river is not None else None,
    }


