"""Fit the tile grid from the tiles themselves: orientation from the edge directions,
pitch from the autocorrelation of edge profiles, phase from folding them at that pitch.

The grid may be rotated against the table and the tiles may sit a little off their
cells, so nothing here assumes the table axes: only that tile outlines are the
strongest periodic straight edges in the play area.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.tiles.config import TilesConfig
from vision.tiles.robust import norm_planes

F32 = NDArray[np.float32]
F64 = NDArray[np.float64]


@dataclass(frozen=True)
class GridFit:
    """A square lattice in table millimetres: lattice line crossings (gaps between
    cells) at origin + pitch*(i*ux + j*uy); cell (col i, row j) is the square after it."""

    angle_rad: float          # rotation of the grid's column axis from the table's x axis
    pitch_mm: float
    origin_mm: tuple[float, float]   # a gap crossing, table mm
    strength: float           # how periodic the edges were (0 = no grid at all)

    @property
    def axes(self) -> tuple[F64, F64]:
        c, s = math.cos(self.angle_rad), math.sin(self.angle_rad)
        return np.array([c, s]), np.array([-s, c])

    def cell_centre_mm(self, col: float, row: float) -> F64:
        ux, uy = self.axes
        o = np.asarray(self.origin_mm, dtype=np.float64)
        return o + self.pitch_mm * ((col + 0.5) * ux + (row + 0.5) * uy)

    def cell_coords(self, pts_mm: F64) -> F64:
        """Table mm -> (col, row) in pitches from the origin, fractions kept."""
        ux, uy = self.axes
        d = np.asarray(pts_mm, dtype=np.float64).reshape(-1, 2) - np.asarray(self.origin_mm)
        return np.asarray(np.stack([d @ ux, d @ uy], axis=1) / self.pitch_mm, dtype=np.float64)

    def cell_of(self, pts_mm: F64) -> NDArray[np.int64]:
        """Table mm -> (col, row) of the cell containing each point."""
        return np.asarray(np.floor(self.cell_coords(pts_mm)), dtype=np.int64)

    def cell_corners_mm(self, col: float, row: float, side_mm: float | None = None) -> F64:
        """TL, TR, BR, BL corners of a cell-sized square (or `side_mm`) around a cell centre."""
        ux, uy = self.axes
        h = (self.pitch_mm if side_mm is None else side_mm) / 2.0
        c = self.cell_centre_mm(col, row)
        return np.array([c - h * ux - h * uy, c + h * ux - h * uy,
                         c + h * ux + h * uy, c - h * ux + h * uy])


def quarter_turn(theta: float) -> float:
    """theta folded into [-45, 45) degrees: a square lattice turned a quarter turn is the
    same lattice."""
    return (theta + math.pi / 4) % (math.pi / 2) - math.pi / 4


def gradients(gray: F32) -> tuple[F32, F32]:
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    return np.asarray(gx, np.float32), np.asarray(gy, np.float32)


def cornerness(gx: F32, gy: F32, window_px: float) -> F32:
    """Smaller eigenvalue of the local structure tensor, square-rooted: high where edges
    run in two directions (tiles, their corners and symbols), near zero along the
    one-directional grain or plank seams of a table."""
    jxx = np.asarray(cv2.GaussianBlur(gx * gx, (0, 0), window_px), np.float32)
    jyy = np.asarray(cv2.GaussianBlur(gy * gy, (0, 0), window_px), np.float32)
    jxy = np.asarray(cv2.GaussianBlur(gx * gy, (0, 0), window_px), np.float32)
    # half - sqrt(0.25 * (jxx - jyy) ** 2 + jxy ** 2), half = 0.5 * (jxx + jyy), worked
    # in place (the same float32 steps, a few full-view temporaries fewer)
    root = jxx - jyy
    root *= root
    root *= 0.25
    jxy *= jxy
    root += jxy
    np.sqrt(root, out=root)
    jxx += jyy
    jxx *= 0.5
    jxx -= root
    np.maximum(jxx, 0.0, out=jxx)
    return np.asarray(np.sqrt(jxx, out=jxx), dtype=np.float32)


def orientation(gx: F32, gy: F32, cfg: TilesConfig, weight: F32 | None = None) -> float:
    return orientations(gx, gy, cfg, weight, 1)[0]


def edge_weight(gx: F32, gy: F32, weight: F32 | None = None) -> F32:
    """Each pixel's gradient magnitude, times its weight (cornerness) when given."""
    return np.asarray(np.hypot(gx, gy) if weight is None else np.hypot(gx, gy) * weight, np.float32)


def orientations(gx: F32, gy: F32, cfg: TilesConfig, weight: F32 | None = None,
                 count: int = 3, mag: F32 | None = None) -> list[float]:
    """The dominant edge direction modulo 90 degrees, in (-45, 45] degrees (radians).

    Strong gradients vote with their magnitude in a histogram of angle mod 90; the
    peak is refined by a circular mean around it (tile jitter averages out). `mag`:
    edge_weight(gx, gy, weight), when the caller has it."""
    if mag is None:
        mag = edge_weight(gx, gy, weight)
    thr = float(np.percentile(mag, cfg.edge_percentile))
    sel = mag > max(thr, 1e-6)
    if not np.any(sel):
        return [0.0]
    ang = np.arctan2(gy[sel], gx[sel]).astype(np.float64)
    w = mag[sel].astype(np.float64)
    a4 = np.mod(ang * 4.0, 2 * math.pi)          # 4x angle: period 90 deg -> 360
    nb = 180
    hist = np.bincount((a4 / (2 * math.pi) * nb).astype(np.int64) % nb, weights=w, minlength=nb)
    k = np.array([1, 4, 6, 4, 1], dtype=np.float64)
    hs = np.convolve(np.concatenate([hist[-2:], hist, hist[:2]]), k, mode="valid")
    order = [i for i in np.argsort(-hs) if hs[i] >= hs[(i - 1) % nb] and hs[i] >= hs[(i + 1) % nb]]
    peaks: list[int] = []
    for i in order:
        if all(min(abs(int(i) - p), nb - abs(int(i) - p)) > 6 for p in peaks):
            peaks.append(int(i))
        if len(peaks) == count:
            break
    out = []
    for i in peaks:
        peak = (i + 0.5) / nb * 2 * math.pi
        x = a4 - peak
        lim = math.radians(4 * 2.0)
        # the exact wrapped difference only where a rough one is about near: the same
        # votes, in the same order, as wrapping every one
        rough = np.abs(x - 2 * math.pi * np.round(x / (2 * math.pi)))
        cand = np.flatnonzero(rough < lim + 1e-6)
        d = np.angle(np.exp(1j * x[cand]))
        near = np.abs(d) < lim
        mean4 = peak + float(np.angle(np.sum(w[cand][near] * np.exp(1j * d[near])))) if np.any(near) else peak
        theta = mean4 / 4.0
        out.append(float(quarter_turn(theta)))
    return out


@dataclass(frozen=True)
class StrongEdges:
    """The strongest edge pixels of a view (strong_edges): picked once, they serve
    refine_orientation at every candidate turn."""

    x_mm: F64
    y_mm: F64
    gx: F32
    gy: F32
    weight: F32


def strong_edges(gx: F32, gy: F32, weight: F32, px_per_mm: float, keep: float = 0.04,
                 mag: F32 | None = None) -> StrongEdges:
    """The `keep` share of pixels with the strongest weighted edges (mag: edge_weight(gx,
    gy, weight), when the caller has it), with their positions in view mm."""
    w = (edge_weight(gx, gy, weight) if mag is None else mag).ravel()
    n = w.size
    k = max(200, int(n * keep))
    idx = np.argpartition(w, n - k)[n - k:]
    h, wd = gx.shape
    ys, xs = np.divmod(idx, wd)
    return StrongEdges((xs + 0.5) / px_per_mm, (ys + 0.5) / px_per_mm,
                       gx.ravel()[idx], gy.ravel()[idx], weight.ravel()[idx])


def sharpness(e: StrongEdges, turns: list[float], binmm: float) -> list[float]:
    """How sharp the strong edges' profiles across both axes are at each turn (the sum
    of squared bins of each profile of the edges running along that axis). (One turn
    at a time: binning every turn in one bincount was slower.)"""
    out = []
    for t in turns:
        c, s_ = math.cos(t), math.sin(t)
        gu, gv = np.abs(e.gx * c + e.gy * s_) * e.weight, np.abs(-e.gx * s_ + e.gy * c) * e.weight
        u = e.x_mm * c + e.y_mm * s_
        v = -e.x_mm * s_ + e.y_mm * c
        hu = np.bincount(((u - u.min()) / binmm).astype(np.int64), weights=np.where(gu > 2 * gv, gu, 0))
        hv = np.bincount(((v - v.min()) / binmm).astype(np.int64), weights=np.where(gv > 2 * gu, gv, 0))
        out.append(float(np.sum(hu * hu) + np.sum(hv * hv)))
    return out


def refine_orientation(gx: F32, gy: F32, weight: F32, theta0: float, px_per_mm: float,
                       span_deg: float = 4.0, step_deg: float = 0.5, keep: float = 0.04,
                       strong: StrongEdges | None = None) -> float:
    """The turn that makes the strongest edges project into the sharpest profiles:
    edges of tiles jittered a few degrees each still line up best at the grid's mean
    turn, which a histogram of edge angles blurs (table grain adds a peak of its own).
    `strong`: strong_edges(gx, gy, weight, px_per_mm, keep), when the caller has it."""
    e = strong if strong is not None else strong_edges(gx, gy, weight, px_per_mm, keep)
    binmm = 1.0 / px_per_mm

    def best(ts: list[float]) -> float:
        vals = sharpness(e, ts, binmm)
        return ts[max(range(len(ts)), key=lambda i: vals[i])]

    steps = np.radians(np.arange(-span_deg, span_deg + 1e-9, step_deg))
    best_t = best([theta0 + float(d) for d in steps])
    fine = np.radians([-0.5 * step_deg, 0.0, 0.5 * step_deg])
    best_t = best([best_t + float(d) for d in fine])
    return best_t


def _profiles(gx: F32, gy: F32, weight: F32, theta: float, px_per_mm: float,
              origin_mm: tuple[float, float]) -> tuple[F64, F64, float, float, float]:
    """Edge energy of lines along each grid axis, binned by position across them."""
    h, w = gx.shape
    c, s = math.cos(theta), math.sin(theta)
    gu = gx * c + gy * s
    gv = -gx * s + gy * c
    au, av = np.abs(gu) * weight, np.abs(gv) * weight
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    X = origin_mm[0] + (xs + 0.5) / px_per_mm
    Y = origin_mm[1] + (ys + 0.5) / px_per_mm
    u = X * c + Y * s
    v = -X * s + Y * c
    binmm = 1.0 / px_per_mm
    u0, v0 = float(u.min()), float(v.min())
    iu = ((u - u0) / binmm).astype(np.int64).ravel()
    iv = ((v - v0) / binmm).astype(np.int64).ravel()
    wu = np.where(au > 2 * av, au, 0).ravel().astype(np.float64)
    wv = np.where(av > 2 * au, av, 0).ravel().astype(np.float64)
    pu = np.bincount(iu, weights=wu)
    pv = np.bincount(iv, weights=wv)
    # each bin holds a different number of pixels near the rotated area's corners
    nu = np.bincount(iu, minlength=len(pu)).astype(np.float64)
    nv = np.bincount(iv, minlength=len(pv)).astype(np.float64)
    pu = pu / np.maximum(nu, 1.0) * float(np.median(nu[nu > 0]))
    pv = pv / np.maximum(nv, 1.0) * float(np.median(nv[nv > 0]))
    return pu, pv, u0, v0, binmm


def line_profiles(gray: F32, theta: float, px_per_mm: float, origin_mm: tuple[float, float],
                  line_mm: float, long_mm: float = 75.0) -> tuple[F64, F64, float, float, float]:
    """Profiles of long straight edges only, across each grid axis.

    The view is turned into the grid frame; an edge survives a morphological opening
    along its own direction only if it runs at least line_mm straight, which keeps the
    tiles' outlines and drops symbol curves, grain flecks and most printed detail."""
    h, w = gray.shape
    c, s = math.cos(theta), math.sin(theta)
    corners = np.array([[origin_mm[0], origin_mm[1]], [origin_mm[0] + w / px_per_mm, origin_mm[1]],
                        [origin_mm[0], origin_mm[1] + h / px_per_mm],
                        [origin_mm[0] + w / px_per_mm, origin_mm[1] + h / px_per_mm]])
    us = corners[:, 0] * c + corners[:, 1] * s
    vs = -corners[:, 0] * s + corners[:, 1] * c
    u0, v0 = float(us.min()), float(vs.min())
    ow = int(math.ceil((us.max() - u0) * px_per_mm))
    oh = int(math.ceil((vs.max() - v0) * px_per_mm))
    p = px_per_mm
    # rotated pixel (i, j) -> (u, v) -> table (X, Y) -> source pixel
    m = np.array([[c, -s, (u0 * c - v0 * s - origin_mm[0]) * p + 0.5 * (c - s) - 0.5],
                  [s, c, (u0 * s + v0 * c - origin_mm[1]) * p + 0.5 * (s + c) - 0.5]])
    rot = cv2.warpAffine(gray, m, (ow, oh), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=(-1.0,))
    valid = np.asarray(cv2.erode((rot >= 0).astype(np.uint8), np.ones((5, 5), np.uint8)), np.float32)
    rot = np.asarray(rot, np.float32)
    np.maximum(rot, 0, out=rot)     # np.where(rot >= 0, rot, 0): finite values
    # |Sobel| * valid, in place
    gx: F32 = np.asarray(cv2.Sobel(rot, cv2.CV_32F, 1, 0, ksize=3), np.float32)
    gy: F32 = np.asarray(cv2.Sobel(rot, cv2.CV_32F, 0, 1, ksize=3), np.float32)
    for g in (gx, gy):
        np.abs(g, out=g)
        g *= valid
    n = max(3, int(round(line_mm * px_per_mm)))
    gx = np.asarray(cv2.blur(gx, (5, 1)), np.float32)
    gy = np.asarray(cv2.blur(gy, (1, 5)), np.float32)
    # runs longer than any tile are printed lines (a cutting mat), not tile outlines
    n_long = max(n + 2, int(round(long_mm * px_per_mm)))
    gx = np.asarray(cv2.morphologyEx(gx, cv2.MORPH_OPEN, np.ones((n, 1), np.uint8))
                    - cv2.morphologyEx(gx, cv2.MORPH_OPEN, np.ones((n_long, 1), np.uint8)), np.float32)
    # (the horizontal runs opened along the columns of the transposed view: OpenCV opens
    # along columns at about half the cost, and a min or max is exact either way round)
    gyt = np.asarray(cv2.transpose(gy), np.float32)
    gyt = np.asarray(cv2.morphologyEx(gyt, cv2.MORPH_OPEN, np.ones((n, 1), np.uint8))
                     - cv2.morphologyEx(gyt, cv2.MORPH_OPEN, np.ones((n_long, 1), np.uint8)), np.float32)
    gy = np.asarray(cv2.transpose(gyt), np.float32)
    pu = gx.sum(axis=0).astype(np.float64)
    pv = gy.sum(axis=1).astype(np.float64)
    return pu, pv, u0, v0, 1.0 / px_per_mm


def _highpass(p: F64, sigma_bins: float) -> F64:
    k = max(3, int(sigma_bins * 3) * 2 + 1)
    base = cv2.GaussianBlur(p.reshape(1, -1).astype(np.float64), (k, 1), sigma_bins,
                            borderType=cv2.BORDER_REFLECT).ravel()
    return np.asarray(p - base, dtype=np.float64)


def _autocorr(p: F64) -> F64:
    n = len(p)
    f = np.fft.rfft(p, 2 * n)
    return np.asarray(np.fft.irfft(f * np.conj(f))[:n], dtype=np.float64)


def comb_period(p: F64, binmm: float, cfg: TilesConfig) -> float | None:
    """The period (bins) of a print finer than any tile (a cutting mat's ruled lines),
    when the profile repeats at it; None when nothing finer than a tile repeats."""
    if len(p) < 8 or float(np.dot(p, p)) <= 0.0:
        return None
    r = _autocorr(p)
    r = r / max(float(r[0]), 1e-12)
    lo = max(2, int(math.ceil(cfg.comb_min_mm / binmm)))
    hi = min(len(r) - 2, int(math.floor(cfg.min_pitch_mm / binmm)))
    if hi <= lo:
        return None
    k = lo + int(np.argmax(r[lo:hi + 1]))
    if r[k] < cfg.comb_strength or not (r[k] >= r[k - 1] and r[k] >= r[k + 1]):
        return None
    # a print repeats at every multiple of its period (a tile's symbol edges a quarter
    # of the pitch apart do not repeat at three quarters); refined on the far multiples,
    # since a small error in the period would grow along the table
    best = float(k)
    for m in range(2, 1 + int(cfg.comb_span_mm / binmm / k)):
        j0 = int(round(m * best))
        if j0 + 2 >= len(r):
            break
        j = j0 - 1 + int(np.argmax(r[j0 - 1:j0 + 2]))
        if m <= cfg.comb_repeats and r[j] < cfg.comb_strength:
            return None
        a, b, c = r[j - 1], r[j], r[j + 1]
        den = a - 2 * b + c
        frac = 0.5 * (a - c) / den if abs(den) > 1e-12 else 0.0
        best = (j + float(np.clip(frac, -0.5, 0.5))) / m
    return best


def decomb(p: F64, period: float) -> F64:
    """The profile less its copy one and two periods either way (their median): a print
    that repeats at `period` cancels, an edge that does not (a tile's) stays."""
    x = np.arange(len(p), dtype=np.float64)
    shifted = [np.interp(x + k * period, x, p, left=np.nan, right=np.nan) for k in (-2, -1, 1, 2)]
    med = np.nanmedian(np.stack(shifted), axis=0)
    return np.asarray(p - np.nan_to_num(med), dtype=np.float64)


def _fold_phase(p: F64, pitch_bins: float, smooth_bins: float) -> tuple[float, float]:
    """Phase (bins) where the profile's peaks line up at this pitch, and their contrast."""
    nb = max(8, int(round(pitch_bins * 4)))
    x = np.arange(len(p), dtype=np.float64)
    pos = np.mod(x / pitch_bins, 1.0)
    h = np.bincount((pos * nb).astype(np.int64) % nb, weights=np.maximum(p, 0), minlength=nb)
    sig = max(0.5, smooth_bins / pitch_bins * nb)
    k = max(3, int(sig * 3) * 2 + 1)
    ext = np.concatenate([h[-k:], h, h[:k]])
    hs = cv2.GaussianBlur(ext.reshape(1, -1), (k, 1), sig, borderType=cv2.BORDER_REFLECT).ravel()[k:-k]
    i = int(np.argmax(hs))
    half = hs[(i + nb // 2) % nb]
    return (i + 0.5) / nb * pitch_bins, float((hs[i] - half) / max(float(hs.sum()), 1e-9) * nb)


def table_near(lab: F32, px_per_mm: float, cfg: TilesConfig) -> NDArray[np.bool_] | None:
    """True on bare table: the commonest colour round the rim of a smoothed view, so fine
    print on it (a cutting mat's lines, grain) counts as table while tiles do not. None when no
    colour covers a fifth of the view (no clear table)."""
    h, w = lab.shape[:2]
    half = np.asarray(cv2.resize(lab, (max(1, w // 2), max(1, h // 2)), interpolation=cv2.INTER_AREA), np.float32)
    k = max(3, int(round(cfg.table_smooth_mm * px_per_mm / 2)) | 1)
    med = np.asarray(cv2.medianBlur(_lab8(half), k), np.uint8)
    sm = med.astype(np.float32)
    q = (med >> 3).astype(np.int64)      # sm // 8: sm holds whole numbers 0..255
    key = (q[..., 0] * 32 + q[..., 1]) * 32 + q[..., 2]
    # the table shows round the play area's rim: a crowded city of one face colour
    # covers more of the middle than the table does
    b = max(1, int(round(cfg.table_rim_mm * px_per_mm / 2)))
    rim = np.ones(key.shape, dtype=bool)
    rim[b:-b, b:-b] = False
    table = _mode_colour(key[rim])
    everywhere = _mode_colour(key.ravel())
    if float(np.linalg.norm(everywhere - table)) < cfg.table_match:
        table = everywhere      # the same colour, from more of the table
    near = np.asarray(norm_planes([sm[..., i] - table[i] for i in range(3)]) < cfg.table_match)
    near = _spread_smoothly(near, sm, px_per_mm / 2, cfg)
    if np.count_nonzero(near) < 0.2 * near.size:
        return None
    # specks of "not table" smaller than a tile are print or sheen on the table
    n, lbl, st, _ = cv2.connectedComponentsWithStats((~near).astype(np.uint8), connectivity=8)
    speck = st[:, cv2.CC_STAT_AREA] < (0.5 * cfg.min_pitch_mm * px_per_mm / 2) ** 2
    speck[0] = False
    near = near | speck[lbl]
    return np.asarray(cv2.resize(near.astype(np.uint8), (w, h), interpolation=cv2.INTER_NEAREST) > 0)


def _lab8(lab: F32) -> NDArray[np.uint8]:
    """Lab in OpenCV's 8-bit scale (L * 2.55, a and b + 128), clipped to 0..255. (Each
    row's channel pattern laid out whole, and min/max for clip: the same numbers.)"""
    h, w = lab.shape[:2]
    rows = lab.reshape(h, -1) * np.tile(np.array([2.55, 1, 1], np.float32), w)
    rows += np.tile(np.array([0, 128, 128], np.float32), w)
    np.maximum(rows, 0, out=rows)
    np.minimum(rows, 255, out=rows)
    return rows.reshape(lab.shape).astype(np.uint8)


def print_strokes(lab: F32, px_per_mm: float, cfg: TilesConfig) -> NDArray[np.bool_]:
    """True on a stroke of print: a place at least symbol_min_de (the least contrast of a
    tile's print) off the median colour round it (a table_smooth_mm window, the one
    table_near smooths print away with). Whatever the face under it, and so also an
    outlined symbol on a front of about the table's colour, which table_near counts as
    bare table all over; a filled symbol shows its rim. (The colour round a place is
    smooth: its median is taken at half the resolution, a quarter the work.)"""
    h, w = lab.shape[:2]
    sm8 = _lab8(lab)
    half = cv2.resize(sm8, (max(1, w // 2), max(1, h // 2)), interpolation=cv2.INTER_AREA)
    k = max(3, int(round(cfg.table_smooth_mm * px_per_mm / 2)) | 1)
    med = np.asarray(cv2.resize(cv2.medianBlur(half, k), (w, h), interpolation=cv2.INTER_LINEAR), np.float32)
    d = sm8.astype(np.float32) - med
    return np.asarray(norm_planes([d[..., 0] / 2.55, d[..., 1], d[..., 2]]) >= cfg.symbol_min_de)


def _mode_colour(key: NDArray[np.int64]) -> F32:
    """The centre of the commonest 8-level bin (see table_near's key)."""
    mode = int(np.argmax(np.bincount(key)))
    return np.asarray((np.array([mode // 1024, (mode // 32) % 32, mode % 32], np.float32) + 0.5) * 8, np.float32)


def _spread_smoothly(near: NDArray[np.bool_], sm: F32, px_per_mm: float, cfg: TilesConfig) -> NDArray[np.bool_]:
    """The table where a lamp's gradient or glare carries its colour far from the
    commonest one: grown out from the commonest colour, a place is table when its colour
    is that of the table around it (light falls off smoothly; a tile differs from the
    table beside it, however dark the lamp leaves both)."""
    if cfg.table_grow_rounds <= 0:
        return near
    # a mat's printed lines are no colour of their own: open and close them away first
    wide = np.ones((cfg.table_line_px, cfg.table_line_px), np.uint8)
    flat = np.asarray(cv2.morphologyEx(cv2.morphologyEx(sm, cv2.MORPH_OPEN, wide), cv2.MORPH_CLOSE, wide),
                      np.float32)
    cur = np.array(near, dtype=np.bool_)
    k = max(3, int(round(cfg.table_local_mm * px_per_mm)) | 1)
    # one plane per channel (a third the strided work of an interleaved image): the box
    # sums are exact (whole numbers), so each plane's blur is the interleaved one's
    planes = [np.ascontiguousarray(flat[..., i]) for i in range(flat.shape[2])]
    h, w = cur.shape
    r = k // 2
    # New table can only appear within r of the table that grew last round (elsewhere
    # every box mean is last round's): each round works on that box alone, its means
    # taken over the box and r more (or the view's own border), exact whole-number sums
    # as over the whole view.
    y0, y1, x0, x1 = 0, h, 0, w
    for _ in range(cfg.table_grow_rounds):
        wy0, wy1, wx0, wx1 = max(0, y0 - r), min(h, y1 + r), max(0, x0 - r), min(w, x1 + r)
        wt = cur[wy0:wy1, wx0:wx1].astype(np.float32)
        den = np.asarray(cv2.blur(wt, (k, k)), np.float32)
        inv = np.maximum(den, 1e-6)
        sub = (slice(y0 - wy0, y1 - wy0), slice(x0 - wx0, x1 - wx0))
        local = [(np.asarray(cv2.blur(p[wy0:wy1, wx0:wx1] * wt, (k, k)), np.float32) / inv)[sub] for p in planes]
        grown = (den[sub] > cfg.table_local_share) & (norm_planes([p[y0:y1, x0:x1] - q for p, q in zip(planes, local)])
                                                      < cfg.table_local_match)
        new = grown & ~cur[y0:y1, x0:x1]
        if not np.any(new):
            break
        cur[y0:y1, x0:x1] |= grown
        ys, xs = np.nonzero(new)
        y0, y1 = max(0, y0 + int(ys.min()) - r), min(h, y0 + int(ys.max()) + 1 + r)
        x0, x1 = max(0, x0 + int(xs.min()) - r), min(w, x0 + int(xs.max()) + 1 + r)
    return cur


def off_table(lab: F32, px_per_mm: float, cfg: TilesConfig, near: NDArray[np.bool_] | None = None) -> F32:
    """1 near anything that is not bare table (see table_near), 0 on it."""
    if near is None:
        near = table_near(lab, px_per_mm, cfg)
    if near is None or np.count_nonzero(~near) < (0.6 * cfg.max_pitch_mm * px_per_mm) ** 2:
        return np.ones(lab.shape[:2], np.float32)       # not a tile's worth off the table: do not mask
    grow = max(3, int(round(cfg.table_margin_mm * px_per_mm)) * 2 + 1)
    off = cv2.dilate((~near).astype(np.uint8), np.ones((grow, grow), np.uint8))
    return np.asarray(off, np.float32)


def _without_print(prof: tuple[F64, F64, float, float, float],
                   cfg: TilesConfig) -> tuple[F64, F64, float, float, float]:
    pu, pv, u0, v0, binmm = prof
    sig = 4.0 / binmm
    out = []
    for p in (pu, pv):
        period = comb_period(_highpass(p, sig), binmm, cfg)
        out.append(p if period is None else decomb(p, period))
    return out[0], out[1], u0, v0, binmm


def _pitch_peak(hu: F64, hv: F64, binmm: float, cfg: TilesConfig) -> tuple[float, float] | None:
    """The lattice pitch (bins) of a pair of high-passed line profiles and their
    autocorrelation there (0..2), or None when the view is too small to hold a tile."""
    ru, rv = _autocorr(hu), _autocorr(hv)
    n = min(len(ru), len(rv))
    r = ru[:n] / max(ru[0], 1e-9) + rv[:n] / max(rv[0], 1e-9)
    lo = int(math.floor(cfg.min_pitch_mm / binmm))
    hi = min(n - 2, int(math.ceil(cfg.max_pitch_mm / binmm)))
    if hi <= lo + 2:
        return None
    seg = r[lo:hi + 1]
    best = float(seg.max())
    # the smallest strong peak: a lattice also correlates at twice its pitch
    peaks = [k + lo for k in range(1, len(seg) - 1)
             if seg[k] >= seg[k - 1] and seg[k] >= seg[k + 1] and seg[k] >= 0.75 * best]
    i = peaks[0] if peaks else int(np.argmax(seg)) + lo
    # parabolic sub-bin refinement
    a, b, c = r[i - 1], r[i], r[i + 1]
    den = a - 2 * b + c
    frac = 0.5 * (a - c) / den if abs(den) > 1e-12 else 0.0
    return i + float(np.clip(frac, -0.5, 0.5)), float(r[i])


def _peaks(hu: F64, hv: F64, binmm: float, cfg: TilesConfig) -> list[tuple[float, float]]:
    """Every local peak (bins, sub-bin refined) of the pair's autocorrelation between the
    least and greatest pitch, with its height (0..2), at least cfg.pitch_candidate."""
    ru, rv = _autocorr(hu), _autocorr(hv)
    n = min(len(ru), len(rv))
    r = ru[:n] / max(ru[0], 1e-9) + rv[:n] / max(rv[0], 1e-9)
    lo = int(math.floor(cfg.min_pitch_mm / binmm))
    hi = min(n - 2, int(math.ceil(cfg.max_pitch_mm / binmm)))
    out = []
    for i in range(max(lo, 1), hi + 1):
        if r[i] >= r[i - 1] and r[i] >= r[i + 1] and r[i] >= cfg.pitch_candidate:
            a, b, c = r[i - 1], r[i], r[i + 1]
            den = a - 2 * b + c
            frac = 0.5 * (a - c) / den if abs(den) > 1e-12 else 0.0
            out.append((i + float(np.clip(frac, -0.5, 0.5)), float(r[i])))
    return out


def _lattice(theta: float, hu: F64, hv: F64, u0: float, v0: float, binmm: float,
             pitch_bins: float) -> GridFit:
    """The lattice at this turn and pitch whose lines fall on the profiles' peaks."""
    smooth = 1.5 / binmm
    phu, su = _fold_phase(hu, pitch_bins, smooth)
    phv, sv = _fold_phase(hv, pitch_bins, smooth)
    u_org = u0 + phu * binmm
    v_org = v0 + phv * binmm
    c_, s_ = math.cos(theta), math.sin(theta)
    ox = u_org * c_ - v_org * s_
    oy = u_org * s_ + v_org * c_
    return GridFit(theta, float(pitch_bins * binmm), (float(ox), float(oy)), float(min(su, sv)))


def half_shifts(g: GridFit) -> list[GridFit]:
    """The lattice and its copy moved half a pitch along both axes (cell centres onto
    line crossings): a profile's strongest edges may be a symbol's, putting the lattice
    lines through the tiles' middles while pitch and turn are right. (A shift along one
    axis alone lets a too-wide lattice centre a few tiles by chance.)"""
    ux, uy = g.axes
    p = np.asarray(g.origin_mm, dtype=np.float64) + 0.5 * g.pitch_mm * (ux + uy)
    return [g, GridFit(g.angle_rad, g.pitch_mm, (float(p[0]), float(p[1])), g.strength)]


def fit_grid(gray: F32, px_per_mm: float, origin_mm: tuple[float, float],
             cfg: TilesConfig, lab: F32 | None = None, near: NDArray[np.bool_] | None = None,
             judge: Callable[[GridFit], tuple[float, GridFit]] | None = None,
             crowded: Callable[[GridFit], bool] | None = None) -> GridFit:
    """The lattice of the tiles in a top-down grey view whose pixel (0, 0) starts at
    table point origin_mm, px_per_mm pixels per millimetre (`near`: table_near of `lab`,
    when the caller has it).

    First the turn with the most periodic straight-edge energy and its smallest strong
    autocorrelation peak. Where that lattice holds many tiles (`crowded`), `judge` (how
    tile-like the cells of a lattice look, higher better, and the lattice of that pitch
    and turn it judged so) picks among every peak of every candidate turn: the edges of
    big symbols, a mat's print or tile sides a symbol's width apart repeat too, often
    more strongly than the tiles' pitch. Each candidate is judged as the profiles place
    it and refitted to the middles of the pieces of print (print_middles; the refit
    rated and taken on the terms of TilesConfig.phase_pieces), since the judge wants
    each symbol mid-cell, and a profile's peak a few percent off the pitch, or its phase
    set by a mat's lines, misses that. (A few tiles give the judge too little to go on:
    their outlines decide, see pipeline._sparse_grid.)"""
    off: F32 | None = None
    if lab is not None:
        off = off_table(lab, px_per_mm, cfg, near)
        gray = np.asarray(gray * off + float(np.median(gray)) * (1 - off), np.float32)
    gx, gy = gradients(gray)
    weight = cornerness(gx, gy, cfg.corner_window_mm * px_per_mm)
    # each candidate turn scored by its straight-edge energy times how periodic it is
    # at its pitch: a mat's bold lines carry energy, the tiles' lattice repeats
    pick: tuple[float, GridFit] | None = None
    turns: list[tuple[float, F64, F64, float, float, float]] = []
    mag = edge_weight(gx, gy, weight)
    strong = strong_edges(gx, gy, weight, px_per_mm, mag=mag)

    def profiled(t: float) -> bool:
        # the turn refined and its edge profiles added to `turns` (False: a turn already there)
        t = refine_orientation(gx, gy, weight, t, px_per_mm, strong=strong)
        t = quarter_turn(t)
        if any(abs(quarter_turn(t - u[0])) < cfg.same_turn_rad for u in turns):
            return False    # two histogram peaks refined to one turn: its profiles are the same
        pu, pv, u0, v0, binmm = _without_print(line_profiles(gray, t, px_per_mm, origin_mm, cfg.line_mm), cfg)
        sig = 4.0 / binmm
        turns.append((t, _highpass(pu, sig), _highpass(pv, sig), u0, v0, binmm))
        return True

    for t in orientations(gx, gy, cfg, weight, 3, mag):
        if not profiled(t):
            continue
        t, hu, hv, u0, v0, binmm = turns[-1]
        e = float(np.sum(hu ** 2) + np.sum(hv ** 2))
        found = _pitch_peak(hu, hv, binmm, cfg)
        if found is None:
            continue
        score = e * max(found[1], 0.0)
        if pick is None or score > pick[0]:
            pick = (score, _lattice(t, hu, hv, u0, v0, binmm, found[0]))
    if pick is None:
        return GridFit(0.0, cfg.min_pitch_mm, origin_mm, 0.0)
    if judge is None or (crowded is not None and not crowded(pick[1])):
        return pick[1]
    middles: list[F64] = []
    if lab is not None:
        strokes = print_strokes(lab, px_per_mm, cfg)
        if off is not None:
            strokes &= off > 0
        middles = [m for join, least in cfg.phase_pieces
                   if len(m := print_middles(strokes, px_per_mm, origin_mm, cfg, join, least)) >= cfg.phase_prints]

    def lattices(k: int, pb: float) -> list[GridFit]:
        # the lattice with its lines on the profiles' strongest edges, and that lattice
        # refitted to each set of the prints' middles: a mat's lines, or bold ones about
        # the tiles' pitch apart, pull the edges' phase off the tiles, and a tenth of a
        # pitch off puts every far tile on its cell's rim
        t, hu, hv, u0, v0, binmm = turns[k]
        g = _lattice(t, hu, hv, u0, v0, binmm, pb)
        refits = [(refine_grid(g, m), m) for m in middles]
        return [g] + [r for r, m in refits if held_cells(r, m, cfg) >= cfg.phase_cells]

    edges: list[tuple[float, GridFit]] = []
    centred: list[tuple[float, GridFit]] = []

    def judged(ks: range) -> tuple[float, GridFit] | None:
        for k in ks:
            t, hu, hv, u0, v0, binmm = turns[k]
            for pb, _ in _peaks(hu, hv, binmm, cfg):
                first, *rest = (judge(g) for g in lattices(k, pb))
                edges.append(first)
                centred.extend(rest)
        if not edges:
            return None
        top = max(edges, key=lambda r: r[0])
        # the prints' pieces include whatever else is printed off the table (a hand's
        # fingers beside three tiles tipped a near tie): a refitted lattice must clearly win
        if centred and (c := max(centred, key=lambda r: r[0]))[0] > cfg.phase_margin * top[0]:
            top = c
        return top

    got = first = judged(range(len(turns)))
    if got is not None and got[0] < cfg.search_below and cfg.more_turns > 3:
        # rated low: the tiles' turn may lie below a mat's lines and the symbols' edges
        # in the histogram (city 6006: the tiles' 16 degrees came fourth, city 6019's
        # seventh); the next turns are profiled and judged too
        n = len(turns)
        for t in orientations(gx, gy, cfg, weight, cfg.more_turns, mag)[3:]:
            profiled(t)
        got = judged(range(n, len(turns)))
    if got is None:
        return pick[1]
    best = got
    if best[0] <= 0.0:
        return pick[1]
    if off is not None and best[0] < cfg.search_below:
        # searched about from the best few lattices of distinct turn or pitch: a turn a
        # degree off with a pitch 1.4% long rates below a mat's lattice until searched
        # (city 6019: 45.6 mm at -13.5 degrees against the tiles' 45.0 at -12.4)
        starts: list[tuple[float, GridFit]] = []
        for r in sorted(edges + centred, key=lambda r: -r[0]):
            if len(starts) == cfg.search_starts:
                break
            if all(_distinct(r[1], q[1]) for q in starts):
                starts.append(r)
        # (each start searched once: the first three turns' best is often one of them)
        searched = [(r, _searched(r, judge, off, px_per_mm, origin_mm, cfg)) for r in starts]
        about = max((s for _, s in searched), key=lambda r: r[0])
        if about[0] > cfg.search_margin * best[0]:
            best = about
        if best[0] < cfg.search_below and first is not None and first[0] > 0.0:
            # the wider look found nothing convincing: a hand's or a cup's edges offer
            # lattices too (loop game 24, frame 6: the city read 16 rows off), so the
            # first three turns' best stands, searched about from itself alone
            best = next((s for r, s in searched if r is first), None) \
                or _searched(first, judge, off, px_per_mm, origin_mm, cfg)
    return best[1]


def _distinct(a: GridFit, b: GridFit) -> bool:
    """Two lattices the search would not reach one from the other: turned 2 degrees or
    more apart, or pitches 8% or more apart."""
    turn = abs(quarter_turn(a.angle_rad - b.angle_rad))
    return turn >= math.radians(2.0) or abs(a.pitch_mm / b.pitch_mm - 1.0) >= 0.08


def _searched(best: tuple[float, GridFit], judge: Callable[[GridFit], tuple[float, GridFit]],
              off: F32, px_per_mm: float, origin_mm: tuple[float, float],
              cfg: TilesConfig) -> tuple[float, GridFit]:
    """The judged lattice scaled and turned a little about the middle of what lies off
    the table, each at four quarter-pitch shifts there (the judge tries the half shifts
    itself), kept where the judge rates it clearly higher. When each tile lies turned a
    few degrees its own way, every peak of the edge profiles can miss the tiles' pitch
    by a few percent and their turn by a degree (city 5346: every peak 31-32 mm and 1.2
    degrees off, tiles 33.5 mm apart: the true lattice rates 2.0, the best peak 0.96),
    and a few percent off puts the far tiles on their cells' corners."""
    ys, xs = np.nonzero(off > 0.5)
    if len(xs) == 0:
        return best
    pivot = np.array([origin_mm[0] + (float(np.mean(xs)) + 0.5) / px_per_mm,
                      origin_mm[1] + (float(np.mean(ys)) + 0.5) / px_per_mm])

    def about(g: GridFit, at: F64, turn: float, scale: float) -> GridFit:
        # g turned and scaled so the pivot lies at `at` (col, row in pitches) of it
        moved = replace(g, angle_rad=g.angle_rad + turn, pitch_mm=g.pitch_mm * scale)
        ux, uy = moved.axes
        o = pivot - moved.pitch_mm * (at[0] * ux + at[1] * uy)
        return replace(moved, origin_mm=(float(o[0]), float(o[1])))

    top = best
    for turn_deg, scales in cfg.search_steps:
        base = top[1]
        here = base.cell_coords(pivot)[0]     # the pivot's place in its cell, kept
        for t, f in ([(math.radians(x), 1.0) for x in turn_deg] + [(0.0, 1.0 + x) for x in scales]):
            for du, dv in ((0.0, 0.0), (0.25, 0.0), (0.0, 0.25), (0.25, 0.25)):
                r = judge(about(base, here + (du, dv), t, f))
                if r[0] > top[0]:
                    top = r
    return top if top[0] > cfg.search_margin * best[0] else best


def widest_print_mm(cfg: TilesConfig) -> float:
    """The widest a tile's print can be (mm): the inner square of the face ring of the
    largest tile."""
    return 2.0 * cfg.face_ring[0] * cfg.max_pitch_mm


def mid_offsets(coords: F64) -> F64:
    """How far points at these cell coordinates (GridFit.cell_coords) lie from their
    cells' middles along each axis (pitches, 0 to 0.5)."""
    return np.asarray(np.abs(coords - np.floor(coords) - 0.5), dtype=np.float64)


def held_cells(g: GridFit, middles: F64, cfg: TilesConfig) -> int:
    """How many cells of g hold a print's middle near their own (within phase_mid of a
    pitch along each axis)."""
    q = g.cell_coords(middles)
    near = np.all(mid_offsets(q) < cfg.phase_mid, axis=1)
    return len({(int(a), int(b)) for a, b in np.floor(q[near])})


def print_middles(strokes: NDArray[np.bool_], px_per_mm: float, origin_mm: tuple[float, float],
                  cfg: TilesConfig, join_mm: float, least_mm: float) -> F64:
    """The middles (table mm) of the pieces of print (print_strokes off the bare table),
    closed over join_mm (0: as they are), each at least least_mm across and no wider than
    a tile's face: a tile's symbol sits in the middle of its face, so they mark the
    cells' middles whatever the edges say."""
    mask = np.asarray(strokes, np.uint8)
    if join_mm > 0:
        k = max(3, int(round(join_mm * px_per_mm)) | 1)
        mask = np.asarray(cv2.morphologyEx(mask, cv2.MORPH_CLOSE,
                                           cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))), np.uint8)
    n, _, st, cen = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        return np.zeros((0, 2))
    ext = np.maximum(st[1:, cv2.CC_STAT_WIDTH], st[1:, cv2.CC_STAT_HEIGHT]) / px_per_mm
    keep = (ext >= least_mm) & (ext <= widest_print_mm(cfg))
    c = cen[1:][keep]
    return np.asarray((c + 0.5) / px_per_mm + np.asarray(origin_mm), dtype=np.float64)


def refine_grid(grid: GridFit, points_mm: F64, rounds: int = 3, sides: bool = False,
                diagonals: bool = False) -> GridFit:
    """The lattice fitted to the tiles' own centres (each within a few mm of its cell).

    Pitch and turn first from the vectors between neighbouring tiles (no cell indices
    needed, so a coarse pitch off by 10% is still corrected), then cell indices by
    rounding, then a least-squares similarity fit over every tile. `sides`: where side
    neighbours are under two thirds of the pairs, the diagonal ones are left out (the
    points are whole tiles' centres, so a pair's direction says which it is).
    `diagonals`: a pair about 45 degrees off the lattice and 1.2-1.6 pitches apart is
    taken for a cell's diagonal (the points are whole tiles on about this lattice)."""
    pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
    if len(pts) < 2:
        if len(pts) == 1:   # one tile: keep pitch and turn, centre the lattice on it
            ux, uy = grid.axes
            o = pts[0] - 0.5 * grid.pitch_mm * (ux + uy)
            return GridFit(grid.angle_rad, grid.pitch_mm, (float(o[0]), float(o[1])), grid.strength)
        return grid
    theta, pitch = grid.angle_rad, grid.pitch_mm
    d = pts[:, None, :] - pts[None, :, :]
    dist = np.linalg.norm(d, axis=2)
    near = (dist > 0.6 * pitch) & (dist < (1.6 if diagonals else 1.4) * pitch)
    if np.any(near):
        vec = d[near]
        c, s = math.cos(theta), math.sin(theta)
        u = vec[:, 0] * c + vec[:, 1] * s
        v = -vec[:, 0] * s + vec[:, 1] * c
        ang = np.arctan2(v, u)
        # fold the four neighbour directions onto one
        ang4 = np.mod(ang + math.pi / 4, math.pi / 2) - math.pi / 4
        side = np.abs(ang4) < math.radians(25.0)
        if diagonals:
            u, v, ang4, side = _as_sides(u, v, ang4, side, pitch)
        if sides and 3 * np.count_nonzero(side) < 2 * len(side) and np.any(side):
            # diagonal neighbours (1.41 pitches, folded to about 45 degrees) fall in the
            # band where the lattice is a little wide; among few tiles, most of them
            # diagonal, their median turned the lattice 45 degrees (city 5299: eight
            # tiles centred in their cells moved to 38.9 mm and 23 degrees). Where side
            # neighbours are most of the pairs their median holds as it is.
            u, v, ang4 = u[side], v[side], ang4[side]
        pitch = float(np.median(np.hypot(u, v)))
        theta = theta + float(np.median(ang4))
    for _ in range(rounds):
        c, s = math.cos(theta), math.sin(theta)
        q = np.stack([pts[:, 0] * c + pts[:, 1] * s, -pts[:, 0] * s + pts[:, 1] * c], 1) / pitch
        ph = np.angle(np.mean(np.exp(2j * math.pi * (q - 0.5)), axis=0)) / (2 * math.pi)
        idx = np.round(q - 0.5 - ph)       # cell index of every tile
        # p = o + a * (i + .5) - b * (j + .5), p_y = o_y + b * (i + .5) + a * (j + .5)
        i, j = idx[:, 0] + 0.5, idx[:, 1] + 0.5
        n = len(pts)
        A = np.zeros((2 * n, 4))
        A[:n, 0], A[:n, 2], A[:n, 3] = 1.0, i, -j
        A[n:, 1], A[n:, 2], A[n:, 3] = 1.0, j, i
        rhs = np.concatenate([pts[:, 0], pts[:, 1]])
        sol, *_ = np.linalg.lstsq(A, rhs, rcond=None)
        ox, oy, a, b = (float(x) for x in sol)
        pitch = math.hypot(a, b)
        theta = math.atan2(b, a)
    theta = quarter_turn(theta)
    # re-anchor the origin at a lattice crossing near the old one (indices are relative)
    g = GridFit(theta, pitch, (ox, oy), grid.strength)
    return g


def _as_sides(u: F64, v: F64, ang4: F64, side: NDArray[np.bool_],
              pitch: float) -> tuple[F64, F64, F64, NDArray[np.bool_]]:
    """Neighbour vectors (along and across the lattice, their folded turn, whether a side
    pair) with each diagonal pair (about 45 degrees off, longer than 1.2 pitches) made
    the side it spans: 1.41 times shorter, turned 45 degrees back. Taken for sides,
    three tiles in a V (only diagonal pairs) turned a lattice 45 degrees and stretched it
    by 1.41 (fresh loop game 496: a T of four tiles, one not read on a look)."""
    length = np.hypot(u, v)
    diagonal = ~side & (length > 1.2 * pitch)
    kept = diagonal | (length < 1.4 * pitch)
    ang4 = np.where(diagonal, np.mod(ang4, math.pi / 2) - math.pi / 4, ang4)
    u = np.where(diagonal, length / math.sqrt(2.0), u)
    v = np.where(diagonal, 0.0, v)
    return u[kept], v[kept], ang4[kept], side[kept]


@dataclass(frozen=True)
class Outline:
    """A square of edges that may be one tile's cut edge (see tile_outline)."""

    side_mm: float
    angle_rad: float
    strength: float
    centre_mm: tuple[float, float]

    def inside_mm(self, n: int = 7, inset: float = 0.8) -> F64:
        """n x n points spread over the square's middle `inset` part, table mm."""
        c, s = math.cos(self.angle_rad), math.sin(self.angle_rad)
        f = (np.arange(n) + 0.5) / n - 0.5
        a, b = np.meshgrid(f * inset * self.side_mm, f * inset * self.side_mm)
        return np.stack([self.centre_mm[0] + a * c - b * s, self.centre_mm[1] + a * s + b * c], -1).reshape(-1, 2)


def tile_outline(gray: F32, px_per_mm: float, origin_mm: tuple[float, float],
                 centre_mm: F64, theta0: float, cfg: TilesConfig, shift_mm: float,
                 beyond_mm: float = 0.0) -> list[Outline]:
    """Squares of edges around a point that may be its tile's outline, outermost first.

    A few tiles on a table give the lattice little to fit (edge autocorrelation locks
    on symbol edges or a mat's print), but each tile's outline is a square of edges:
    in a band through the point along each axis, a pair of edges symmetric about the
    tile's centre (within shift_mm of the point), the same distance apart both ways. The outermost such pair is the
    cut edge (a shadow or the tile's visible thickness shows on one side only, a
    symbol or a printed frame lies inside), unless it is a square of a mat's print or
    of several tiles (the caller checks what fills it). The point may be a piece of a
    symbol well off the tile's centre (a lattice that cut the tile up).

    beyond_mm: only squares wider than this (a print's extent) are looked for, and
    their edges are weighed against each other, not against the print's: a face of
    the table's colour shows its cut edge only as a faint shadow line beside a
    symbol's strong edges."""
    p = px_per_mm
    half = int(math.ceil(0.6 * cfg.max_pitch_mm * p + shift_mm * p))
    size = 2 * half + 1
    cx = (float(centre_mm[0]) - origin_mm[0]) * p - 0.5
    cy = (float(centre_mm[1]) - origin_mm[1]) * p - 0.5
    band = max(2, int(round(cfg.outline_band_mm * p)))
    span, step = cfg.outline_turn_deg, 1.5

    def turned(d: float) -> tuple[float, float, F64, F64, NDArray[np.float64]]:
        t = theta0 + math.radians(d)
        m = cv2.getRotationMatrix2D((cx, cy), math.degrees(t), 1.0)
        m[0, 2] += half - cx
        m[1, 2] += half - cy
        patch = np.asarray(cv2.warpAffine(gray, m, (size, size), flags=cv2.INTER_LINEAR,
                                          borderMode=cv2.BORDER_REPLICATE), np.float32)
        ax = np.abs(np.asarray(cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3), np.float32))
        ay = np.abs(np.asarray(cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3), np.float32))
        pu = ax[half - band:half + band + 1].sum(axis=0).astype(np.float64)
        pv = ay[:, half - band:half + band + 1].sum(axis=1).astype(np.float64)
        return float(np.sum(pu * pu) + np.sum(pv * pv)), t, pu, pv, np.asarray(m, np.float64)

    near = [float(d) for d in np.arange(-span, span + 1e-9, step)]
    looks = [turned(d) for d in near]
    k = max(range(len(looks)), key=lambda i: looks[i][0])
    if k in (0, len(looks) - 1):
        # sharpest at the end of the search: the tile is turned further from the
        # lattice than a hand's jitter (a lone pioneer, whose lattice came from its
        # symbol's edges), so the rest of the quarter turn is searched too
        # (coarsely, then about the best: this look is as dear as the near search)
        far = [float(d) for d in np.arange(span + step, 90.0 - span - 0.5 * step, 3.0 * step)]
        coarse = [turned(d) for d in far]
        j = max(range(len(coarse)), key=lambda i: coarse[i][0])
        looks += coarse + [turned(far[j] + e) for e in (-step, step)]
        k = max(range(len(looks)), key=lambda i: looks[i][0])
    _, theta, pu, pv, mat = looks[k]
    shift = int(round(shift_mm * p))
    lo = max(int(math.floor(0.45 * cfg.min_pitch_mm * p)), int(math.ceil(0.5 * beyond_mm * p)))
    hi = min(half - shift - 1, int(math.ceil(0.5 * cfg.max_pitch_mm * p)))
    if hi - lo < 2:
        return []
    ks = np.arange(lo, hi + 1)
    found: list[list[tuple[float, float, int]]] = []
    for prof in (pu, pv):
        prof = np.convolve(prof, [0.25, 0.5, 0.25], mode="same")
        q = np.zeros(hi + 1)
        at = np.zeros(hi + 1, dtype=np.int64)
        for c in range(-shift, shift + 1):
            v = np.sqrt(prof[half + c + ks] * prof[half + c - ks])
            better = v > q[lo:]
            q[lo:] = np.where(better, v, q[lo:])
            at[lo:] = np.where(better, c, at[lo:])
        top = float(q.max())
        if beyond_mm > 0.0:
            # a stronger edge inside (the print's) falls off into the range: only the
            # range's own peaks count
            inner = [float(q[k]) for k in range(lo + 1, hi) if q[k] >= q[k - 1] and q[k] >= q[k + 1]]
            top = max(inner, default=0.0)
        if top < cfg.outline_min_step * 4.0 * (2 * band + 1):   # a Sobel step of that height
            found.append([])
            continue
        pk = []
        for k in range(lo + 1, hi):
            if q[k] >= q[k - 1] and q[k] >= q[k + 1] and q[k] >= cfg.outline_peak * top:
                a_, b_, c_ = q[k - 1], q[k], q[k + 1]
                den = a_ - 2 * b_ + c_
                frac = 0.5 * (a_ - c_) / den if abs(den) > 1e-12 else 0.0
                pk.append((2.0 * (k + float(np.clip(frac, -0.5, 0.5))) / p, float(q[k]) / top, int(at[k])))
        found.append(pk)
    # a tile is square: pairs of sides that agree across both axes, outermost first
    pairs = sorted(((0.5 * (su + sv), wu * wv, cu, cv) for su, wu, cu in found[0] for sv, wv, cv in found[1]
                    if abs(su - sv) <= cfg.outline_agree * max(su, sv)), reverse=True)
    inv = cv2.invertAffineTransform(mat)
    out = []
    for side, w, cu, cv in pairs:
        src = inv @ np.array([half + cu, half + cv, 1.0])
        out.append(Outline(side, theta, w, (origin_mm[0] + (float(src[0]) + 0.5) / p,
                                            origin_mm[1] + (float(src[1]) + 0.5) / p)))
    return out
