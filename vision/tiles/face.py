"""One cell seen straight on: its face colour, its symbol (mask, shape descriptor,
colour) and its outline.

Everything is measured against the cell's own face colour, so the reader needs no
idea of what the tiles look like: a symbol is whatever differs from the face.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.tiles.config import TilesConfig
from vision.tiles.robust import median1, median_cols, median_rows, norm_planes, percentile1

F32 = NDArray[np.float32]
F64 = NDArray[np.float64]

SPECK_SHARE = 0.001
"""A part of a print mask smaller than this share of the crop's pixels (1-5 pixels of
a 72-pixel crop) and at least SPECK_MIN_PX is a speck of noise, not print."""
SPECK_MIN_PX = 2


@dataclass(frozen=True)
class CellLook:
    face_lab: F64            # median colour of the face ring (CIELAB)
    face_spread: float       # median delta E of ring pixels from face_lab (texture)
    symbol_frac: float       # symbol area / inner area
    symbol_lab: F64          # symbol colour (CIELAB), meaningless without a symbol
    shape: F32               # shape descriptor (flattened grid of the symbol mask)
    angle_rad: float         # the tile's own rotation within the grid cell
    offset: tuple[float, float]   # symbol centroid offset from the cell centre (pitches)
    contrast: float          # typical delta E of the symbol against the face
    faint: bool = False      # found only at faint_symbol_de (a pale print under glare)
    pale: "CellLook | None" = None   # a blank face's print at noise level (see analyse_cell)
    detail: bool = True      # False: shape and symbol_lab left blank (analyse_cell's detail)
    face_dark: F64 | None = None   # median colour of the face ring's darker fifth (CIELAB)

    @property
    def has_symbol(self) -> bool:
        return self.symbol_frac > 0.0

    @property
    def off_middle(self) -> float:
        """How far the symbol lies from its cell's middle, in pitches: a print far from
        it is a tile laid off its cell, or the grid fitted off the tiles."""
        return math.hypot(*self.offset)


@dataclass(frozen=True)
class CellGeometry:
    """Precomputed per-cell-size masks (one crop size serves every cell of a frame)."""

    size: int
    cheb: F32          # Chebyshev distance from the cell centre, in pitches
    radius: F32        # Euclidean distance from the cell centre, in pitches
    side: NDArray[np.int8]   # which side's sector a pixel is in: 0 left, 1 right, 2 top, 3 bottom
    # the masks and counts below, each made on first use (a frame's every cell asks the same)
    _made: dict[tuple[str, float, float], Any] = field(default_factory=dict, compare=False, repr=False)

    @staticmethod
    def make(size: int) -> "CellGeometry":
        """The geometry of a size x size crop, made once per size (its masks are read only)."""
        return _geometry(size)

    def _once(self, key: tuple[str, float, float], make: Callable[[], Any]) -> Any:
        if key not in self._made:
            self._made[key] = make()
        return self._made[key]

    def band(self, lo: float, hi: float) -> NDArray[np.bool_]:
        """lo <= cheb <= hi: a square ring (the face ring)."""
        out: NDArray[np.bool_] = self._once(("band", lo, hi), lambda: (self.cheb >= lo) & (self.cheb <= hi))
        return out

    def band_radius(self, lo: float, hi: float) -> F32:
        """radius over band(lo, hi)."""
        out: F32 = self._once(("band_radius", lo, hi), lambda: self.radius[self.band(lo, hi)])
        return out

    def band_side(self, lo: float, hi: float) -> NDArray[np.int8]:
        """side over band(lo, hi)."""
        out: NDArray[np.int8] = self._once(("band_side", lo, hi), lambda: self.side[self.band(lo, hi)])
        return out

    def within(self, r: float) -> NDArray[np.bool_]:
        """cheb < r: the square inside a ring."""
        out: NDArray[np.bool_] = self._once(("within", r, 0.0), lambda: self.cheb < r)
        return out

    def count_within(self, r: float) -> int:
        """np.count_nonzero(within(r))."""
        out: int = self._once(("count_within", r, 0.0), lambda: int(np.count_nonzero(self.within(r))))
        return out

    def beyond(self, r: float) -> NDArray[np.bool_]:
        """cheb >= r: the square ring from r out."""
        out: NDArray[np.bool_] = self._once(("beyond", r, 0.0), lambda: self.cheb >= r)
        return out

    def near(self, r: float) -> NDArray[np.bool_]:
        """radius < r: the disc about the centre."""
        out: NDArray[np.bool_] = self._once(("near", r, 0.0), lambda: self.radius < r)
        return out


@functools.lru_cache(maxsize=8)
def _geometry(size: int) -> CellGeometry:
    c = (size - 1) / 2.0
    ys, xs = np.mgrid[0:size, 0:size].astype(np.float32)
    cheb = np.maximum(np.abs(xs - c), np.abs(ys - c)) / float(size)
    rad = np.hypot(xs - c, ys - c) / float(size)
    dx, dy = xs - c, ys - c
    side = np.where(np.abs(dx) >= np.abs(dy), np.where(dx < 0, 0, 1), np.where(dy < 0, 2, 3))
    return CellGeometry(size, cheb.astype(np.float32), rad.astype(np.float32), side.astype(np.int8))


def face_colour(px: F64, radius: F32, majority: float = TilesConfig.face_majority,
                separation: float = TilesConfig.face_split_separation,
                side: NDArray[np.int8] | None = None,
                surround: float = TilesConfig.face_surround,
                table: F64 | None = None, table_de: float = TilesConfig.table_delta_e,
                table_reach: float = TilesConfig.face_table_reach,
                table_ratio: float = TilesConfig.face_table_ratio) -> F64:
    """The face colour of a ring that a big symbol may cover in part: split the ring in
    two colours, and the one lying further out (around the symbol) is the face.

    A face surrounds its print, so the outer colour is not taken when it is the bare
    table's (`table`: within `table_de`, or within twice that and half as far from it
    as the inner colour: a ring's dark felt and a dark print mix),
    missing (under `surround` of a side) from one of the ring's four sides (`side`, the
    sector of each ring pixel) while the inner colour holds all four: that is the table
    beside a tile laid off its cell (loop bench game 24: a brown ring's tile 0.2 of a cell
    off, whose dark felt on one side was taken for its face and the tile read face down).
    Without the table's colour, a back's two-colour design and a cup's rim were turned.

    A split counts only when the two colours lie `separation` times their own spread
    apart along the line joining them: sensor noise (large in a channel that a warm or
    dim light leaves weak) splits one colour into two halves too, and taking one half
    would move the face colour with the light."""
    # the same arithmetic as on the pixels' rows, on one plane per channel (robust.py)
    pt = np.ascontiguousarray(px.T)
    med = median_rows(pt)
    d = _dist(pt, med)
    if percentile1(d, 90.0) < 12.0:
        return np.asarray(med, dtype=np.float64)
    # two-means, seeded at the two ends of the main colour axis
    a = px[int(np.argmax(d))]
    b = px[int(np.argmax(_dist(pt, a)))]
    last: NDArray[np.bool_] | None = None
    for _ in range(6):
        near_a = _dist(pt, a) < _dist(pt, b)
        if near_a.all() or not near_a.any():
            return np.asarray(med, dtype=np.float64)
        if last is not None and np.array_equal(near_a, last):
            break       # the same split gives the same two medians: every later round is this one
        a, b = median_rows(pt[:, near_a]), median_rows(pt[:, ~near_a])
        last = near_a
    gap = float(np.linalg.norm(a - b))
    if gap < 15.0:
        return np.asarray(med, dtype=np.float64)
    along = (px - a) @ ((b - a) / gap)
    if gap < separation * _pooled_spread(along, near_a):
        return np.asarray(med, dtype=np.float64)
    share_a = float(np.mean(near_a))
    if abs(share_a - 0.5) > majority:
        # one colour covers most of the ring: the face (a printed border line or a
        # neighbour's edge is thin)
        return np.asarray(a if share_a > 0.5 else b, dtype=np.float64)
    out_a = float(radius[near_a].mean()) > float(radius[~near_a].mean())
    if side is not None and table is not None:
        outer = near_a if out_a else ~near_a
        out_c, in_c = (a, b) if out_a else (b, a)
        to_in = float(np.linalg.norm(in_c - table))
        to_out = float(np.linalg.norm(out_c - table))
        if to_out < min(table_reach * table_de, max(table_de, table_ratio * to_in)) and table_de <= to_in \
                and _sides_held(outer, side, surround) < 4 and _sides_held(~outer, side, surround) == 4:
            out_a = not out_a
    return np.asarray(a if out_a else b, dtype=np.float64)


def _sides_held(mask: NDArray[np.bool_], side: NDArray[np.int8], share: float) -> int:
    """On how many of the ring's four sides `mask` covers at least `share`."""
    return sum(1 for s in range(4) if float(mask[side == s].mean()) >= share)


def _dist(planes: F64, colour: F64) -> F64:
    """np.linalg.norm(px - colour, axis=1) of pixels given as channel planes (k, n)."""
    return np.asarray(norm_planes([planes[i] - colour[i] for i in range(len(planes))]), dtype=np.float64)


def _pooled_spread(along: F64, near_a: NDArray[np.bool_]) -> float:
    """Robust standard deviation of two clusters' positions along their axis, pooled."""
    out = []
    for sel in (near_a, ~near_a):
        v = along[sel]
        out.append(1.4826 * median1(np.abs(v - median1(v))) if v.size else 0.0)
    return float(np.sqrt(0.5 * (out[0] ** 2 + out[1] ** 2)))


def _local_angle(grey: F32, band: NDArray[np.bool_], limit_deg: float = 12.0) -> float:
    """The tile's own rotation from its outline (mod 90, within +-limit)."""
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.hypot(gx, gy)[band]
    if mag.size == 0:
        return 0.0
    thr = float(np.percentile(mag, 70.0))
    sel = mag > thr
    if not np.any(sel):
        return 0.0
    a4 = 4.0 * np.arctan2(gy[band][sel], gx[band][sel]).astype(np.float64)
    d = np.angle(np.exp(1j * a4))
    keep = np.abs(d) < math.radians(4 * limit_deg)
    if not np.any(keep):
        return 0.0
    w = mag[sel][keep].astype(np.float64)
    return float(np.angle(np.sum(w * np.exp(1j * d[keep]))) / 4.0)


def _central_parts(mask: NDArray[np.bool_], geo: CellGeometry, reach: float = 0.2,
                   rim: float = 0.37) -> NDArray[np.bool_]:
    """The parts of a mask that reach the cell's centre: the symbol, not a printed
    border or a neighbour's edge that a tile's offset brought into view. Specks (a
    few pixels alone) at the centre are no part: under a warm lamp the weak blue
    channel, amplified by the white balance, speckles a plain face, and a speck at the
    centre used to stand for the whole print, hiding the ring round it (seed 1's Town 77
    scene 0 of the calibration bench's colour section, under 2700 K)."""
    n, lab, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    if n <= 1:
        return mask
    keep = np.zeros(n, dtype=bool)
    keep[lab[geo.near(reach) & mask]] = True
    keep[0] = False
    speck = stats[:, cv2.CC_STAT_AREA] < max(SPECK_MIN_PX, SPECK_SHARE * geo.size * geo.size)
    if keep.any() and speck[keep].all():
        # only specks reach the centre: they are no print, and the symbol, if any, is an
        # outline round them, looked for with every speck out of the way. Otherwise the
        # specks stay (dropping them from every cell changed how a cutting mat's lines
        # read, loop bench game 5)
        speck[0] = False
        mask = mask & ~speck[lab]
        keep[:] = False
    if not keep.any():
        # an outlined symbol is a ring around the centre, not through it: the parts
        # bounding the centre's enclosed patch (a pale line's small gaps bridged), if
        # they stay clear of the cell's edge (a cutting mat's squares do not)
        closed = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        c = (geo.size - 1) // 2
        if closed[c, c] == 0:
            patch = np.zeros((geo.size + 2, geo.size + 2), np.uint8)
            cv2.floodFill(closed.copy(), patch, (c, c), (2,), flags=8 | cv2.FLOODFILL_MASK_ONLY | (1 << 8))
            inside = patch[1:-1, 1:-1] > 0
            edge = geo.beyond(rim)
            if not (inside & edge).any():
                bound = cv2.dilate(inside.astype(np.uint8), np.ones((7, 7), np.uint8)).astype(bool) & mask
                keep[lab[bound]] = True
                keep[0] = False
                if (keep[lab] & edge).any():
                    keep[:] = False
    return np.asarray(keep[lab], dtype=bool)


def shape_distances(a: NDArray[np.float32], b: NDArray[np.float32], angles: int,
                    max_shift: int) -> NDArray[np.float64]:
    """RMS difference of polar shape descriptors (rows of a and b), at the best turn
    within +-max_shift angle steps (tiles sit a few degrees off their grid)."""
    A = np.asarray(a, dtype=np.float64).reshape(len(a), angles, -1)
    B = np.asarray(b, dtype=np.float64).reshape(len(b), angles, -1)
    dim = A.shape[1] * A.shape[2]
    fa = A.reshape(len(a), -1)
    na = np.sum(fa * fa, axis=1)
    best = np.full((len(a), len(b)), np.inf)
    for s in range(-max_shift, max_shift + 1):
        fb = np.roll(B, s, axis=1).reshape(len(b), -1)
        d2 = na[:, None] + np.sum(fb * fb, axis=1)[None, :] - 2.0 * fa @ fb.T
        best = np.minimum(best, d2)
    return np.asarray(np.sqrt(np.maximum(best, 0.0) / dim), dtype=np.float64)


def _against_face(lab: F32, geo: CellGeometry, cfg: TilesConfig, table: F64 | None = None
                  ) -> tuple[F64, float, F64, F64, NDArray[np.bool_], float]:
    """A cell's face colour and noise, and each pixel's contrast from that face."""
    r0, r1 = cfg.face_ring
    ring_px = lab[geo.band(r0, r1)].astype(np.float64)
    face = face_colour(ring_px, geo.band_radius(r0, r1), cfg.face_majority, cfg.face_split_separation,
                       geo.band_side(r0, r1), cfg.face_surround, table, cfg.table_delta_e,
                       cfg.face_table_reach, cfg.face_table_ratio)
    de_ring = _dist(np.ascontiguousarray(ring_px.T), face)
    on_face = de_ring[de_ring < 20.0]
    spread = median1(on_face if on_face.size > 0.2 * de_ring.size else de_ring)
    return (face, spread) + _contrast(lab, face, geo, cfg)


def _contrast(lab: F32, face: F64, geo: CellGeometry,
              cfg: TilesConfig) -> tuple[F64, F64, NDArray[np.bool_], float]:
    """Each pixel's contrast from the face, and the inner area's near-highest contrast."""
    inner = geo.within(cfg.face_ring[1])
    lab64 = lab.astype(np.float64)
    d = np.asarray(norm_planes([lab64[..., i] - face[i] for i in range(lab64.shape[2])]), dtype=np.float64)
    return lab64, d, inner, percentile1(d[inner], 98.0)


def analyse_cell(bgr01: F32, lab: F32, geo: CellGeometry, cfg: TilesConfig, detail: bool = True,
                 table: F64 | None = None) -> CellLook:
    """Read one grid-aligned cell crop (float BGR 0..1 and its CIELAB). A blank look
    has no `pale` yet: with_pale adds it, for the few blank cells that are tiles.

    detail=False: a look that tells only whether and where a print lies (face colour
    and noise, has_symbol, faint, offset, contrast), its shape descriptor and
    symbol_lab left blank (zeros, the face's colour): the reads that place the lattice
    ask no more, and the print's shape and colour are most of a printed cell's cost.
    `table` (the bare table's Lab) lets the face ring tell the table beside a tile laid
    off its cell from the tile's face (face_colour)."""
    face, spread, lab64, d, inner, peak = _against_face(lab, geo, cfg, table)
    look = _analysed(bgr01, lab64, d, inner, peak, face, spread, geo, cfg, detail)
    return replace(look, face_dark=face_dark(lab, geo, cfg)) if detail else look


def face_dark(lab: F32, geo: CellGeometry, cfg: TilesConfig) -> F64:
    """The face ring's darker fifth (median colour of its pixels at or below the 20th
    percentile of lightness): a lamp's sheen along a glossy face only adds light, so
    where it lies across part of the ring this part still shows the face (loop game
    145: four dark fronts lifted 30 L by their sheen, a fifth without one called a back)."""
    r0, r1 = cfg.face_ring
    ring = lab[geo.band(r0, r1)].astype(np.float64)
    dark = ring[ring[:, 0] <= np.percentile(ring[:, 0], 20.0)]
    return np.asarray(np.median(dark, axis=0), dtype=np.float64)


def _analysed(bgr01: F32, lab64: F64, d: F64, inner: NDArray[np.bool_], peak: float, face: F64,
              spread: float, geo: CellGeometry, cfg: TilesConfig, detail: bool) -> CellLook:
    """analyse_cell's look from the face and each pixel's contrast against it."""
    faint = False
    thr = max(cfg.symbol_min_de, 0.5 * peak, 3.0 * spread)
    mask = _symbol_mask(d, inner, thr, geo, cfg)
    if mask is None:
        # a pale print washed out by glare: worth a second look at a lower contrast
        # (the pipeline only lets such a look turn a tile face up, never make a tile)
        thr = max(cfg.faint_symbol_de, 0.5 * peak, 3.0 * spread)
        mask = _symbol_mask(d, inner, thr, geo, cfg)
        faint = True
    if mask is None:
        na, nr = cfg.shape_angles, cfg.shape_radii
        return CellLook(face, spread, 0.0, face, np.zeros(na * nr, np.float32), 0.0, (0.0, 0.0), 0.0,
                        detail=detail)
    return _look(bgr01, lab64, d, face, spread, mask, geo, cfg, faint, detail)


def with_pale(look: CellLook, bgr01: F32, lab: F32, geo: CellGeometry, cfg: TilesConfig) -> CellLook:
    """A blank look with its last look added: a thin outline blurred into a noisy face
    sinks below three times the face's noise. This look only tells a front from a back
    of a blank tile whose face is the fronts' (pipeline._mark_face_down), so it may go
    nearer the noise. Kept apart from analyse_cell because most blank cells are bare
    table, and this look is as dear as a print's."""
    if look.has_symbol:
        return look
    face, spread = look.face_lab, look.face_spread
    lab64, d, inner, peak = _contrast(lab, face, geo, cfg)
    thr = max(cfg.faint_symbol_de, 0.5 * peak, cfg.pale_noise * spread)
    mask = _symbol_mask(d, inner, thr, geo, cfg)
    if mask is None:
        return look
    return replace(look, pale=_look(bgr01, lab64, d, face, spread, mask, geo, cfg, True))


def _look(bgr01: F32, lab64: F64, d: F64, face: F64, spread: float, mask: NDArray[np.bool_],
          geo: CellGeometry, cfg: TilesConfig, faint: bool, detail: bool = True) -> CellLook:
    """The look of a cell whose print is `mask` (at contrast d from the face colour);
    without `detail`, only where the print lies (see analyse_cell)."""
    r1 = cfg.face_ring[1]
    inner = geo.within(r1)
    na, nr = cfg.shape_angles, cfg.shape_radii
    core = d[mask]
    frac = float(np.count_nonzero(mask)) / float(geo.count_within(r1))
    ys, xs = np.nonzero(mask)
    cx, cy = float(xs.mean()), float(ys.mean())
    size = geo.size
    c0 = (size - 1) / 2.0
    offset = ((cx - c0) / size, (cy - c0) / size)
    if not detail:
        return CellLook(face, spread, frac, face, np.zeros(na * nr, np.float32), 0.0, offset, median1(core),
                        faint, detail=False)
    # how far each pixel lies from the face towards the print's colour: a sheen or a
    # shadow across the face moves it a little along that axis (or across it), the
    # print all the way, so half-way is the print's edge whatever the contrast
    printed = lab64[mask]
    ink = median_cols(printed[core >= percentile1(core, 50.0)])
    axis = ink - face
    alpha = ((lab64 - face) @ axis) / max(float(axis @ axis), 1e-6)
    if cfg.shape_smooth_px > 0:
        # noise (strong in a channel that a warm or dim light leaves weak) frays the
        # outline pixel by pixel; the outline itself is smooth
        alpha = np.asarray(cv2.GaussianBlur(alpha.astype(np.float32), (0, 0), cfg.shape_smooth_px),
                           dtype=np.float64)
    half = _central_parts((alpha > 0.5) & inner, geo)
    shape_mask = half if np.count_nonzero(half) >= 0.5 * np.count_nonzero(mask) else mask
    sy, sx = np.nonzero(shape_mask)
    scx, scy = float(sx.mean()), float(sy.mean())
    # soft mask: 0 on the face, 1 well inside the symbol, a ramp across its edge
    soft = np.clip((alpha - 0.25) / 0.5, 0.0, 1.0).astype(np.float32)
    soft[~cv2.dilate(shape_mask.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)] = 0.0
    radius = cfg.shape_span * size
    if radius / nr > 1.5:
        soft = np.asarray(cv2.GaussianBlur(soft, (0, 0), 0.4 * radius / nr), dtype=np.float32)
    # polar samples around the centroid: rows = angle, columns = radius, so a turned
    # tile is a circular shift of rows (matched in shape_distances)
    desc = cv2.warpPolar(soft, (nr, na), (scx, scy), radius,
                         cv2.INTER_LINEAR | cv2.WARP_POLAR_LINEAR | cv2.WARP_FILL_OUTLIERS)
    ang = 0.0
    colour = _print_colour(bgr01, face, mask, cfg.colour_smooth_px)
    return CellLook(face, spread, frac, colour, np.asarray(desc, np.float32).ravel(), ang,
                    offset, median1(core), faint)


def _print_colour(bgr01: F32, face: F64, mask: NDArray[np.bool_], sigma: float) -> F64:
    """The print's colour: the median of its most distinct quarter, on the crop smoothed
    by sigma pixels. Each pixel's own value will not do: picking the pixels furthest
    from the face picks those that noise pushed away, and a thin line's pixels carry
    the chroma of the 2x2 blocks a camera's JPEG shares with the face around it, which a
    warm lamp's gain turns differently from a neutral one's; over a few camera pixels
    both average out the same under every light."""
    if sigma > 0:
        smooth = np.asarray(cv2.GaussianBlur(bgr01, (0, 0), sigma), dtype=np.float32)
    else:
        smooth = bgr01
    # the print's pixels alone to Lab, as a column of pixels (OpenCV converts pixel by
    # pixel: the numbers the whole crop's conversion has there)
    px = np.ascontiguousarray(smooth[mask]).reshape(-1, 1, 3)
    lab = np.asarray(cv2.cvtColor(px, cv2.COLOR_BGR2LAB), dtype=np.float64).reshape(-1, 3)
    lt = np.ascontiguousarray(lab.T)
    dist = _dist(lt, face)
    return median_rows(lt[:, dist >= percentile1(dist, 75.0)])


def _symbol_mask(d: F64, inner: NDArray[np.bool_], thr: float, geo: CellGeometry,
                 cfg: TilesConfig) -> NDArray[np.bool_] | None:
    """The symbol's pixels at contrast thr, or None when there is no print."""
    mask = (d > thr) & inner
    n_inner = float(geo.count_within(cfg.face_ring[1]))
    if float(np.count_nonzero(mask)) / n_inner < cfg.symbol_min_area:
        return None
    mask = _central_parts(mask, geo)
    frac = float(np.count_nonzero(mask)) / n_inner
    if not np.any(mask) or frac < cfg.symbol_min_core:
        # specks left in the centre (a mat's line crossing, grain) are no print
        return None
    rim = mask & geo.beyond(cfg.face_ring[1] - cfg.symbol_rim)
    if frac < cfg.symbol_thin and len(np.unique(geo.side[rim])) == 4:
        # thin lines running out of the cell on all four sides: a cutting mat's grid,
        # not a print (a big printed symbol may reach the edges, but it is not thin)
        return None
    return mask
