"""Chains found colour-blind, then named by colour.

Why not one mask per colour: a thin wire blurred by the lens is a mix of its colour and
the table's, so per-colour membership breaks a chain into specks (a black chain reads as
grey, a white one on a cream table as almost nothing), and each colour's specks were too
far apart to bridge. What every chain has, whatever its colour, is a band about a clip
wide that differs from the table under it. That band is found first, traced, and each
traced path then takes the colour whose wire evidence dominates along it.
"""

from __future__ import annotations

import math
from typing import Any, Iterable

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.railways.chains import LazyMap, sample, strip_grid
from vision.railways.config import RailwaysConfig
from vision.railways.frame import BAND_ROWS, TopView, box_area, lab_of
from vision.railways.stations import grown

U8 = NDArray[Any]
F32 = NDArray[Any]
F64 = NDArray[Any]


_ONES3 = np.ones((1, 3), np.float32)


def ink(image: U8, bg: U8, px_per_mm: float, band_rows: int = BAND_ROWS, image_lab: U8 | None = None) -> F32:
    """How far each millimetre differs from the table under it (mean Lab distance, at
    1 px/mm). The distance is taken at full resolution before averaging: a white clip's
    highlight and shadow would cancel if the colours were averaged first. image_lab: the
    image's Lab when the caller has it (the top view makes it anyway: cvtColor works pixel
    by pixel, so its rows are the bytes made here)."""
    f = int(round(px_per_mm))
    h, w = image.shape[:2]
    out = np.zeros((h // f, w // f), np.float32)
    step = band_rows - band_rows % f
    for y0 in range(0, h - h % f, step):
        y1 = min(h - h % f, y0 + step)
        # |Lab difference|^2 of 8-bit Lab is a whole number below 2^24: exact in float32
        # in any order (squares of the bytes' absdiff summed by cv2.transform)
        lab = (image_lab[y0:y1, :w - w % f] if image_lab is not None and image_lab.shape == image.shape
               else cv2.cvtColor(image[y0:y1, :w - w % f], cv2.COLOR_BGR2Lab))
        a = cv2.absdiff(lab, cv2.cvtColor(bg[y0:y1, :w - w % f], cv2.COLOR_BGR2Lab)).astype(np.float32)
        a *= a
        d = np.sqrt(cv2.transform(a, _ONES3).reshape(a.shape[:2]))
        out[y0 // f:y1 // f] = cv2.resize(d, ((w - w % f) // f, (y1 - y0) // f), interpolation=cv2.INTER_AREA)
    return out


def station_mask(shape: tuple[int, int], polygons_mm: Iterable[F64], origin_mm: tuple[float, float],
                 grow_mm: float) -> U8:
    """1 inside every station card (grown a little), at 1 px/mm: a card's printing is not
    wire, and a link's end clip inside its card is not needed to know where it ends."""
    m = np.zeros(shape, np.uint8)
    o = np.asarray(origin_mm, dtype=np.float64)
    for poly in polygons_mm:
        p = grown(poly, grow_mm)
        cv2.fillPoly(m, [np.round(p - o).astype(np.int32).reshape(-1, 1, 2)], (1,))
    return m


def ink_cut(ink_mm: F32, masked: U8, cfg: RailwaysConfig) -> F32:
    """The ink a cell needs to be a chain: ink_threshold, or ink_floor_factor times the
    table's own ink around it, whichever is higher. Why: sensor noise on a dark table and
    the texture of a mat (a ruled grid finer than the background's window) give the bare
    table an ink of 10-15 everywhere, so a fixed cut made the whole table band and its
    skeleton wandering false links."""
    floor = table_floor(ink_mm, masked, cfg.ink_floor_block_mm, cfg.ink_floor_percentile) \
        if cfg.ink_floor_factor > 0 else None
    if floor is None:
        return np.full(ink_mm.shape, cfg.ink_threshold, np.float32)
    return np.maximum(np.float32(cfg.ink_threshold), np.float32(cfg.ink_floor_factor) * floor)


GROUP_ROWS = 32         # rows copied at a time by rows_nanpercentile


def rows_nanpercentile(vals: F32, percentile: float) -> NDArray[Any]:
    """np.nanpercentile(vals, percentile, axis=1) of a 2-D float array, to the bit and in
    its dtype, without its per-row Python loop: the rows are taken in groups of as many
    values that are not NaN, each group one np.percentile (what nanpercentile runs row
    by row). An all-NaN row gives NaN, without a warning. Only rows with NaNs are sorted
    (32-row copies), the others go to np.percentile as they are."""
    vals = np.asarray(vals)
    cnt = np.count_nonzero(~np.isnan(vals), axis=1)
    # nanpercentile's result takes the dtype of its first row's (NaN of the input's dtype
    # for an all-NaN row, else np.percentile's)
    dtype = vals.dtype if len(cnt) == 0 or cnt[0] == 0 else np.result_type(vals.dtype, np.float64)
    out = np.full(len(cnt), np.nan, dtype=dtype)
    if _byte_rows_percentile(vals, cnt, percentile, out):
        return out
    full = vals.shape[1]
    for c in np.unique(cnt).tolist():
        if c == 0:
            continue
        rows = np.flatnonzero(cnt == c)
        for i in range(0, len(rows), GROUP_ROWS):      # a copy of GROUP_ROWS rows at a time
            part = vals[rows[i:i + GROUP_ROWS]]
            if c < full:
                part.sort(axis=1)                       # NaN sort last
            out[rows[i:i + GROUP_ROWS]] = np.percentile(part[:, :c], percentile, axis=1, overwrite_input=True)
    return out


def _byte_rows_percentile(vals: NDArray[Any], cnt: NDArray[Any], percentile: float, out: NDArray[Any]) -> bool:
    """rows_nanpercentile's answers written into `out` from each row's histogram, when
    every value that is not NaN is a whole number 0..255 (a density made from bytes) and
    each row's percentile falls on a value or halfway between two (the median); False,
    `out` untouched, otherwise. Same numbers: the values at the two ranks are the same
    however they are found, and a whole number or the half-sum of two below 256 is exact
    in any float, however np.percentile weighs them. Why: one histogram pass, where
    partitioning the 4096-value rows was most of the evidence band's table_floor."""
    if vals.ndim != 2 or vals.dtype.kind != "f" or vals.size == 0 or not cnt.any():
        return False
    c = cnt.astype(np.float64)
    virtual = (c - 1.0) * np.true_divide(np.float64(percentile), 100.0)    # np.percentile's index
    lo = np.floor(virtual)
    gamma = virtual - lo
    if not bool(np.all((gamma == 0.0) | (gamma == 0.5) | (cnt == 0))):
        return False
    first = vals[int(np.argmax(cnt > 0))]
    first = first[~np.isnan(first)]
    if not np.array_equal(first, np.floor(first)):         # most maps fail here, cheaply
        return False
    if not (0.0 <= float(np.nanmin(vals)) and float(np.nanmax(vals)) <= 255.0):
        return False
    rows = vals.shape[0]
    hist = np.empty((rows, 257), np.int64)
    for r0 in range(0, rows, GROUP_ROWS):          # a few rows' codes at a time (small transients)
        part = vals[r0:r0 + GROUP_ROWS]
        codes = np.where(np.isnan(part), part.dtype.type(256.0), part)
        if not np.array_equal(codes, np.floor(codes)):
            return False
        idx = codes.astype(np.intp)
        idx += (np.arange(len(part), dtype=np.intp) * 257)[:, None]
        hist[r0:r0 + len(part)] = np.bincount(idx.ravel(), minlength=len(part) * 257).reshape(len(part), 257)
    cum = np.cumsum(hist[:, :256], axis=1)
    lo_rank = np.minimum(lo, np.maximum(c - 1.0, 0.0)).astype(np.int64)
    hi_rank = np.minimum(lo_rank + 1, np.maximum(cnt - 1, 0))
    a = np.argmax(cum > lo_rank[:, None], axis=1).astype(np.float64)
    b = np.argmax(cum > hi_rank[:, None], axis=1).astype(np.float64)
    got = np.where(gamma == 0.0, a, (a + b) / 2.0)
    has = cnt > 0
    out[has] = got[has]
    return True


def table_floor(values: F32, masked: U8, block_mm: float, percentile: float) -> F32 | None:
    """What the bare table itself gives a map (1 px/mm), cell by cell: a low percentile of
    the cells off the cards in blocks (chains fill few cells of a block), smoothed over
    the neighbouring blocks; None when the map is too small for blocks."""
    h, w = values.shape
    b = max(4, int(round(block_mm)))
    if h < 2 * b or w < 2 * b:
        return None
    nh, nw = h // b, w // b
    # the blocks' cells as views, one copy of the values made (NaN on the cards) and sorted
    # in place: transients of a few map sizes, not six
    cells = values[:nh * b, :nw * b].reshape(nh, b, nw, b).transpose(0, 2, 1, 3)
    off = (masked[:nh * b, :nw * b].reshape(nh, b, nw, b).transpose(0, 2, 1, 3) == 0).reshape(nh, nw, b * b)
    vals = np.where(off.reshape(nh, nw, b, b), cells, np.nan).reshape(nh * nw, b * b)
    enough = off.mean(axis=2) >= 0.25
    del off
    vals[~enough.reshape(-1)] = np.nan
    floor = rows_nanpercentile(vals, percentile).reshape(nh, nw)   # blocks all card: NaN, filled below
    del vals
    if not np.isfinite(floor).any():
        return None
    floor = np.where(np.isfinite(floor), floor, np.nanmedian(floor)).astype(np.float32)
    floor = np.asarray(cv2.medianBlur(floor, 3), dtype=np.float32)     # a block full of chains is not the table
    full = np.empty((h, w), np.float32)       # resized into place, the border replicated by hand
    inner = full[:nh * b, :nw * b]
    got = cv2.resize(floor, (nw * b, nh * b), dst=inner, interpolation=cv2.INTER_LINEAR)
    if not np.shares_memory(got, full):         # an OpenCV that will not write into a view
        inner[...] = got
    full[:nh * b, nw * b:] = full[:nh * b, nw * b - 1:nw * b]
    full[nh * b:] = full[nh * b - 1:nh * b]
    return full


def chain_band(ink_mm: F32, masked: U8, cfg: RailwaysConfig) -> U8:
    """Where a chain lies (0/1, 1 px/mm): ink above the table's own, closed over a clip's
    loops, then opened by most of a clip's width so that printed lines and outline edges
    (thin, however strong) drop out while chains (about 9 mm wide) stay, necks and all."""
    m = ((ink_mm > ink_cut(ink_mm, masked, cfg)) & (masked == 0)).astype(np.uint8)
    kc = int(cfg.ink_close_mm) | 1
    close = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kc, kc))
    m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, close)
    ko = int(cfg.ink_open_mm) | 1
    disk = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (ko, ko))
    wide = cv2.morphologyEx(m, cv2.MORPH_OPEN, disk)
    if cfg.band_wide_min_mm2 > 0:
        # a wide part smaller than a clip is no chain: where a mat's ruled lines cross they
        # leave such specks, and giving back the ink next to them rebuilt the grid's lines
        n, lab, stats, _ = cv2.connectedComponentsWithStats(wide, connectivity=8)
        small = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] < cfg.band_wide_min_mm2)
        small = small[small > 0]
        if len(small):
            wide = np.where(np.isin(lab, small), 0, wide).astype(np.uint8)
    reach = disk
    if cfg.ink_floor_grow_mm > 0:
        # the raised cut finds the chains; near them their outline is drawn by the fixed
        # cut, so that a chain's faint sides and ends stay in its band
        m = ((ink_mm > cfg.ink_threshold) & (masked == 0)).astype(np.uint8)
        m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, close)
        g = ko + 2 * int(round(cfg.ink_floor_grow_mm))
        reach = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (g, g))
    # the narrow necks where a taut chain's clips link are given back: ink next to a wide
    # part belongs to it (a printed line far from any chain does not)
    m = np.asarray(cv2.bitwise_and(m, cv2.dilate(wide, reach)), dtype=np.uint8)
    m[masked > 0] = 0
    return np.asarray(m, dtype=np.uint8)


def colour_costs(px_lab: F32, bg_lab: F32, refs: dict[str, tuple[int, int, int]],
                 cfg: RailwaysConfig) -> dict[str, float]:
    """How badly each colour explains the pixels (N x 3 Lab) that differ most from the
    table under them (N x 3): colour_costs_per_slice for one slice."""
    out = colour_costs_per_slice(np.asarray(px_lab)[None], np.asarray(bg_lab)[None], refs, cfg)
    return {k: float(v[0]) for k, v in out.items()}


def colour_costs_per_slice(px_lab: F32, bg_lab: F32, refs: dict[str, tuple[int, int, int]],
                           cfg: RailwaysConfig) -> dict[str, F64]:
    """Per slice (slices x pixels x Lab, with the table under each pixel): how badly each
    colour explains the slice's pixels that differ most from the table. Each such pixel
    should be a mix of the colour and the table, pixel = a * colour + (1 - a) * table with
    0 <= a <= 1; the cost is the mean squared distance from that line. The mix stops at
    the colour itself, so a black chain's dark core cannot pass for silver or grey. A
    colour too close to the table to mix visibly (a white chain on a white table) shows
    only as its shading: it explains any pixel that is no further than `blind_shading`
    from the table. Infinite for a slice with no pixel differing enough (`ink_threshold`).
    Why batched: the River's colour is weighed millimetre by millimetre along it."""
    d = np.asarray(px_lab, dtype=np.float64) - bg_lab
    n = np.sqrt(np.einsum("spk,spk->sp", d, d))
    if n.shape[1] == 0:
        return {k: np.full(n.shape[0], np.inf) for k in refs}
    cut = np.maximum(np.percentile(n, 100.0 * (1.0 - cfg.colour_top_share), axis=1), cfg.ink_threshold)
    keep = n >= cut[:, None]
    cnt = keep.sum(axis=1)
    # each colour's fit is worked only on the kept pixels (a third of them), then put back
    # among zeros and summed as the whole (r2 * keep) was: the same numbers in the same order
    bg = np.asarray(bg_lab)
    bk = bg[keep] if bg.shape[:2] == keep.shape else np.broadcast_to(bg, d.shape)[keep]
    dk, nk = d[keep], n[keep]
    part = np.zeros(n.shape, np.float64)
    out: dict[str, F64] = {}
    for name, bgr in refs.items():
        v = lab_of(bgr)[None, :] - bk
        vv = np.einsum("pk,pk->p", v, v)
        a = np.clip(np.einsum("pk,pk->p", dk, v) / np.maximum(vv, 1e-6), 0.0, 1.0)
        r = dk - a[:, None] * v
        r2 = np.einsum("pk,pk->p", r, r)
        part[keep] = np.where(vv < cfg.blind_contrast ** 2, np.maximum(nk - cfg.blind_shading, 0.0) ** 2, r2)
        out[name] = np.where(cnt > 0, part.sum(axis=1) / np.maximum(cnt, 1), np.inf)
    return out


def lab_map(image: U8) -> LazyMap:
    """The Lab (float32, 3 channels) of a BGR image, made only where it is sampled."""
    def make(r: slice, c: slice) -> F32:
        return np.asarray(cv2.cvtColor(image[r, c], cv2.COLOR_BGR2Lab), dtype=np.float32)
    return LazyMap(image.shape, make)


def path_colour(view_lab: LazyMap, bg_lab: LazyMap, view: TopView, path_mm: F64, half_mm: float,
                refs: dict[str, tuple[int, int, int]], cfg: RailwaysConfig) -> tuple[str, float]:
    """The colour that best explains the chain's pixels along the path, and how sure
    (1 - best cost / second best cost)."""
    mx, my, _, _ = strip_grid(view, path_mm, half_mm)
    a = sample(view_lab, mx, my).reshape(-1, 3)
    b = sample(bg_lab, mx, my).reshape(-1, 3)
    costs = colour_costs(a, b, refs, cfg)
    order = sorted(costs, key=lambda k: costs[k])
    best, second = costs[order[0]], costs[order[1]] if len(order) > 1 else float("inf")
    sure = 1.0 - best / second if second > 0 and np.isfinite(second) else 0.0
    return order[0], float(sure)


def split_corners(path: F64, span_mm: float, max_turn_deg: float) -> list[F64]:
    """The path cut where it turns sharply: a chain bends (down to about a 5 cm radius)
    but never kinks, so a kink is two chains whose bands touch (two links leaving one
    station side by side), not one."""
    p = np.asarray(path, dtype=np.float64)
    if len(p) < 5:
        return [p]
    seg = np.hypot(*np.diff(p, axis=0).T)
    s = np.concatenate([[0.0], np.cumsum(seg)])
    if s[-1] < 3 * span_mm:
        return [p]
    lim = math.cos(math.radians(max_turn_deg))
    i_back = np.searchsorted(s, s - span_mm)
    i_fwd = np.minimum(np.searchsorted(s, s + span_mm), len(p) - 1)
    a = p - p[i_back]
    b = p[i_fwd] - p
    na = np.hypot(a[:, 0], a[:, 1])
    nb = np.hypot(b[:, 0], b[:, 1])
    ok = (s >= span_mm) & (s <= s[-1] - span_mm) & (na > 0.5 * span_mm) & (nb > 0.5 * span_mm)
    cosv = np.where(ok, np.einsum("ij,ij->i", a, b) / np.maximum(na * nb, 1e-9), 1.0)
    cuts: list[int] = []
    i = 0
    while i < len(p):
        if cosv[i] < lim:
            j = i
            while j + 1 < len(p) and cosv[j + 1] < lim:
                j += 1
            k = i + int(np.argmin(cosv[i:j + 1]))
            cuts.append(k)
            i = j + 1
        else:
            i += 1
    if not cuts:
        return [p]
    out: list[F64] = []
    prev = 0
    for k in cuts:
        if k - prev >= 2:
            out.append(p[prev:k + 1])
        prev = k
    if len(p) - prev >= 2:
        out.append(p[prev:])
    return out


def colour_bands(band: U8, wires: dict[str, U8], px_per_mm: float, cfg: RailwaysConfig,
                 masked: U8 | None = None, players: tuple[str, ...] = (),
                 blind: dict[str, U8] | None = None) -> dict[str, U8]:
    """The chain band split by colour (1 px/mm each): every band cell takes the colour
    whose wire evidence is densest around it. The band (found colour-blind) says where
    chains are; the evidence only has to say which colour wins locally, which it can do
    where it is far too faint and speckled to trace a chain on its own."""
    f = int(round(px_per_mm))
    k = max(3, int(round(cfg.colour_window_mm * px_per_mm)) | 1)
    h, w = band.shape
    names = list(wires)
    best = np.zeros((h, w), np.float32)
    label = np.full((h, w), -1, np.int16)
    pale: dict[str, F32] = {}
    pale_white: NDArray[np.bool_] | None = None
    dense: dict[str, U8] = {}
    for i, name in enumerate(names):
        m = wires[name]
        dens = box_area(m, k, f, (w, h))       # the whole map's box filter and INTER_AREA, band by band
        better = dens > best
        np.copyto(label, np.int16(i), where=better)
        np.maximum(best, dens, out=best)        # (densities are never negative zero or NaN)
        if name in ("white", "silver"):
            pale[name] = dens
            if len(pale) == 2:          # only where white's evidence is pale enough is kept (1 MB, not 8)
                pale_white = ((pale["white"] >= cfg.pale_white_min)
                              & (pale["white"] >= cfg.pale_white_share * pale["silver"]))
                pale = {}
        if name in players:
            dense[name] = np.clip(dens, 0, 255).astype(np.uint8)     # 8 bits: kept for every colour at once
        del dens, better
    on = (band > 0) & (best > 1.0)
    if masked is not None and cfg.evidence_band_factor > 0:
        on |= _evidence_band(dense, label, names, masked, cfg)
    if pale_white is not None and "blue" in names and cfg.pale_white_min > 0:
        # a white wire partly covering a dark pixel mixes to the same grey as silver does,
        # so silver wins most of a white chain on a dark table; silver clips are only ever
        # in the River, between its blue ones (what is left of a silver clip's middle is
        # too small to trace as a chain)
        iw, isv, ib = names.index("white"), names.index("silver"), names.index("blue")
        r = int(round(cfg.pale_river_reach_mm))
        near_blue = cv2.dilate(((label == ib) & on).astype(np.uint8),
                               cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1)))
        white = (label == isv) & (near_blue == 0) & pale_white
        label[white] = iw
        if blind is not None and cfg.blind_player_relabel:
            _blind_relabel(label, names, near_blue, blind, players)
    return {name: ((label == i) & on).astype(np.uint8) for i, name in enumerate(names)}


def table_near(bg: U8, colours: dict[str, tuple[int, int, int]], players: tuple[str, ...],
               contrast: float) -> dict[str, U8]:
    """Per player colour, where the table (its background, BGR) is nearer that colour than
    any other player's and within `contrast` of it (0/1, the background's size)."""
    # squared distances in whole numbers: each channel's (byte - ref)^2 looked up from a
    # 256-entry table (int32; the sums stay below 2^18), the nearest player kept in order
    # (a later one only when strictly nearer, as before)
    chans = cv2.split(bg)
    best = np.full(bg.shape[:2], np.iinfo(np.int32).max, np.int32)
    near = np.full(bg.shape[:2], -1, np.int8)
    d2 = np.empty(bg.shape[:2], np.int32)
    better = np.empty(bg.shape[:2], bool)
    levels = np.arange(256, dtype=np.int32)
    for i, p in enumerate(players):
        for c, (chan, ref) in enumerate(zip(chans, colours[p])):
            table = ((levels - int(ref)) ** 2).astype(np.int32).reshape(1, 256)
            sq: NDArray[np.int32] = np.asarray(cv2.LUT(chan, table), dtype=np.int32)
            if c == 0:
                d2[...] = sq
            else:
                np.add(d2, sq, out=d2)
        np.less(d2, best, out=better)
        np.copyto(near, np.int8(i), where=better)
        np.minimum(best, d2, out=best)
    near[best > contrast * contrast] = -1
    return {p: (near == i).astype(np.uint8) for i, p in enumerate(players)}


def _blind_relabel(label: NDArray[Any], names: list[str], near_blue: U8, blind: dict[str, U8],
                   players: tuple[str, ...]) -> None:
    """Band cells silver wins away from the River, where the table itself is near a
    player's colour (blind: mixing_evidence's blind map or table_near), take that colour
    (in place). Why: a chain of about the table's own colour (a white chain on a pale mat,
    a black one on a dark mat) gives its colour little or no evidence; what shows is its
    shading or its highlights, a grey that silver explains. Silver clips are only ever in
    the River, between its blue ones."""
    h, w = label.shape
    isv = names.index("silver")
    free = (label == isv) & (near_blue == 0)
    if not free.any():
        return
    for name in players:
        if name not in blind or name not in names or not blind[name].any():
            continue
        m = blind[name]
        here = (m if m.shape == (h, w) else cv2.resize(m, (w, h), interpolation=cv2.INTER_NEAREST)) > 0
        take = free & here
        label[take] = names.index(name)
        free &= ~take


def _evidence_band(dense: dict[str, U8], label: NDArray[Any], names: list[str], masked: U8,
                   cfg: RailwaysConfig) -> NDArray[np.bool_]:
    """Band cells the colour-blind ink missed but a player colour's own wire evidence
    shows: where that colour wins and its density stands well above what the bare table
    gives it (table_floor). Why: a dark green chain on a dark blue ruled mat differs from
    the mat no more than the mat's lines do (ink), but only the chain is green."""
    out = np.zeros(label.shape, bool)
    ko = int(cfg.evidence_open_mm) | 1
    disk = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (ko, ko))
    for name, dens8 in dense.items():
        dens = dens8.astype(np.float32)
        floor = table_floor(dens, masked, cfg.evidence_floor_block_mm, cfg.evidence_floor_percentile)
        if floor is None:
            continue
        floor *= np.float32(cfg.evidence_band_factor)       # the cut, made in place
        cut = np.maximum(np.float32(cfg.evidence_band_min), floor, out=floor)
        add = ((dens > cut) & (label == names.index(name)) & (masked == 0)).astype(np.uint8)
        # a chain's density spreads over its width and the window (about 16 mm), a thin
        # printed line's or an edge's over the window alone
        add = cv2.morphologyEx(add, cv2.MORPH_OPEN, disk)
        out |= add > 0
    return out
