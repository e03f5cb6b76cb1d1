"""One camera frame -> a colour-normalised top-down view of the play area, and the colour
membership maps every later stage reads.

Why top-down at 0.5 mm: a clip wire is about 1 mm, so two samples across it; the whole
1 m table is then 2000 x 2000 pixels, cheaper than the camera frame itself. Lens
distortion is undone in the same single remap, with the map computed on a coarse grid
(the distortion is smooth) to keep it fast.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.colour import (BLACK_LEVEL, WHITE_LEVEL, ColourReference, _DECODE_LUT, _ENCODE_LUT,
                                _ENCODE_STEPS, measure_reference, srgb_decode, white_grid)
from calibration.geometry import TableFit, _apply_h, distort_points
from calibration.profile import TableProfile
from vision.railways.config import RailwaysConfig

U8 = NDArray[Any]
F32 = NDArray[Any]
F64 = NDArray[Any]


@dataclass
class TopView:
    """The normalised top-down image and how its pixels map to table millimetres."""

    image: U8                       # BGR, normalised (paper white ~235)
    lab: U8                         # its Lab (empty when only small_lab was kept)
    origin_mm: tuple[float, float]
    px_per_mm: float
    small_lab: U8 | None = None     # Lab at 1 px/mm (INTER_AREA), for the big things

    def to_px(self, pts_mm: NDArray[Any]) -> NDArray[np.float64]:
        p = np.asarray(pts_mm, dtype=np.float64).reshape(-1, 2)
        return np.asarray((p - np.asarray(self.origin_mm)) * self.px_per_mm - 0.5, dtype=np.float64)

    def to_mm(self, pts_px: NDArray[Any]) -> NDArray[np.float64]:
        p = np.asarray(pts_px, dtype=np.float64).reshape(-1, 2)
        return np.asarray((p + 0.5) / self.px_per_mm + np.asarray(self.origin_mm), dtype=np.float64)


BAND_ROWS = 128         # rows of the top view made at a time (keeps float temporaries small)
MIX_ROWS = 16           # rows of wire evidence made at a time (seven colours' float temporaries each)


def _coarse_maps(fit: TableFit, origin_mm: tuple[float, float], size_px: tuple[int, int],
                 px_per_mm: float, step: int) -> tuple[F64, F64]:
    """Camera px of the output px on a coarse grid: sample (j, k) is output px (k*step, j*step)."""
    w, h = size_px
    gx = np.arange(0, w + step, step, dtype=np.float64)
    gy = np.arange(0, h + step, step, dtype=np.float64)
    xs, ys = np.meshgrid(gx, gy)
    mm = np.stack([(xs.ravel() + 0.5) / px_per_mm + origin_mm[0],
                   (ys.ravel() + 0.5) / px_per_mm + origin_mm[1]], axis=1)
    ideal = _apply_h(fit.table_to_image, mm)
    src = distort_points(ideal, fit.lens) if fit.lens is not None else ideal
    return (np.asarray(src[:, 0].reshape(len(gy), len(gx)), dtype=np.float64),
            np.asarray(src[:, 1].reshape(len(gy), len(gx)), dtype=np.float64))


class _BandMaps:
    """cv2.remap maps (output px -> camera px) for any band of output rows: exact on the
    coarse grid, interpolated between (the distortion is smooth). Each band resizes only
    the coarse rows it reads, so it gets the very numbers the whole-table maps would have
    (the same resize coefficients and shift), without the two whole-table float maps."""

    def __init__(self, fit: TableFit, origin_mm: tuple[float, float], size_px: tuple[int, int],
                 px_per_mm: float, step: int = 16) -> None:
        cx, cy = _coarse_maps(fit, origin_mm, size_px, px_per_mm, step)
        self.cx: F32 = cx.astype(np.float32)
        self.cy: F32 = cy.astype(np.float32)
        self.w = size_px[0]
        self.step = step
        self.full_w = cx.shape[1] * step
        # resize puts coarse sample k at (k + 0.5) * step - 0.5; shift so sample k sits at k * step
        self.off = (step - 1) / 2.0

    def _coarse_rows(self, y0: int, y1: int) -> tuple[int, int]:
        """The coarse rows that output rows y0..y1-1 read (with one spare on each side, so
        the resize's edge clamping only happens where the whole map's does)."""
        r_lo = math.floor(y0 + self.off)
        r_hi = math.floor(y1 - 1 + self.off) + 1
        j0 = max(0, math.floor((r_lo + 0.5) / self.step - 0.5) - 1)
        j1 = min(self.cx.shape[0], math.floor((r_hi + 0.5) / self.step - 0.5) + 3)
        return j0, j1

    def band(self, y0: int, y1: int) -> tuple[F32, F32]:
        j0, j1 = self._coarse_rows(y0, y1)
        sy = self.off + y0 - j0 * self.step
        m = np.array([[1, 0, self.off], [0, 1, sy]], dtype=np.float32)
        ix, iy = math.floor(self.off), math.floor(sy)
        out = []
        for coarse in (self.cx, self.cy):
            part = cv2.resize(coarse[j0:j1], (self.full_w, (j1 - j0) * self.step),
                              interpolation=cv2.INTER_LINEAR)
            if (self.off - ix == 0.5 and sy - iy == 0.5 and 0 <= iy and iy + 1 + (y1 - y0) <= part.shape[0]
                    and ix + 1 + self.w <= part.shape[1]):
                # a shift by half a pixel each way: warpAffine's bilinear weights are all a
                # quarter, summed in this order (its bytes: a test pins them), without its
                # per-pixel coordinate work (a third of the top view's time). A quarter is a
                # power of two, so each term's scaling is exact and commutes with the
                # rounding of each sum: the sum scaled once at the end is the same floats
                h_out = y1 - y0
                acc = part[iy:iy + h_out, ix:ix + self.w] + part[iy:iy + h_out, ix + 1:ix + 1 + self.w]
                acc += part[iy + 1:iy + 1 + h_out, ix:ix + self.w]
                acc += part[iy + 1:iy + 1 + h_out, ix + 1:ix + 1 + self.w]
                acc *= np.float32(0.25)
                out.append(acc)
            else:
                out.append(np.asarray(cv2.warpAffine(part, m, (self.w, y1 - y0),
                                                     flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                                     borderMode=cv2.BORDER_REPLICATE), dtype=np.float32))
        return out[0], out[1]


def remap_maps(fit: TableFit, origin_mm: tuple[float, float], size_px: tuple[int, int],
               px_per_mm: float, step: int = 16) -> tuple[F32, F32]:
    """cv2.remap maps (output px -> camera px) for the whole output, exact on a coarse grid."""
    return _BandMaps(fit, origin_mm, size_px, px_per_mm, step).band(0, size_px[1])


def top_view(image: U8, fit: TableFit, profile: TableProfile, cfg: RailwaysConfig,
             band_rows: int = BAND_ROWS, keep_lab: bool = False, spot_mm: float = 0.0) -> TopView:
    """Rectify the play area (plus a margin) and normalise its colour from the markers.

    Made band by band and channel by channel: no whole-view float image ever exists
    except one channel of the white map (see normalise_in_place), and the bytes are
    those of calibration.colour.normalise_rectified on the whole view. keep_lab: the
    whole view's Lab, made band by band for small_lab anyway, is kept too (TopView.lab).
    spot_mm > 0: where the table outshines the markers' white, divided by the local light
    instead of clipped (normalise_in_place)."""
    ox = profile.area_origin_mm[0] - cfg.margin_mm
    oy = profile.area_origin_mm[1] - cfg.margin_mm
    sw = profile.area_size_mm[0] + 2 * cfg.margin_mm
    sh = profile.area_size_mm[1] + 2 * cfg.margin_mm
    w, h = int(round(sw * cfg.px_per_mm)), int(round(sh * cfg.px_per_mm))
    # the light first (its markers sampled on crops round their rings)
    try:
        ref: ColourReference | None = measure_reference(image, fit, profile)
    except (ValueError, cv2.error):
        ref = None              # as before: no usable reference leaves the view as seen
    maps = _BandMaps(fit, (ox, oy), (w, h), cfg.px_per_mm)
    norm = np.empty((h, w, 3), np.uint8)
    for y0 in range(0, h, band_rows):
        y1 = min(h, y0 + band_rows)
        mx, my = maps.band(y0, y1)
        norm[y0:y1] = cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    del maps
    if ref is not None:
        normalise_in_place(norm, ref, (ox, oy), cfg.px_per_mm, band_rows, spot_mm)
    f = int(round(cfg.px_per_mm))
    # the 1 px/mm Lab straight from each band (INTER_AREA by a whole factor averages f x f
    # blocks, so bands of whole blocks give the very same bytes) instead of a whole-view Lab
    if abs(cfg.px_per_mm - f) < 1e-9 and f >= 1 and h % f == 0 and w % f == 0 and band_rows % f == 0:
        small = np.empty((h // f, w // f, 3), np.uint8)
        full = np.empty((h, w, 3), np.uint8) if keep_lab else _NO_LAB
        for y0 in range(0, h, band_rows):
            y1 = min(h, y0 + band_rows)
            lab = cv2.cvtColor(norm[y0:y1], cv2.COLOR_BGR2Lab)
            if keep_lab:
                full[y0:y1] = lab
            small[y0 // f:y1 // f] = cv2.resize(lab, (w // f, (y1 - y0) // f), interpolation=cv2.INTER_AREA)
        return TopView(norm, full, (ox, oy), cfg.px_per_mm, small)
    lab = np.asarray(cv2.cvtColor(norm, cv2.COLOR_BGR2Lab), dtype=np.uint8)
    small = np.asarray(cv2.resize(lab, None, fx=1.0 / cfg.px_per_mm, fy=1.0 / cfg.px_per_mm,
                                  interpolation=cv2.INTER_AREA), dtype=np.uint8)
    return TopView(norm, lab, (ox, oy), cfg.px_per_mm, small)


def normalise_in_place(view: U8, ref: ColourReference, origin_mm: tuple[float, float], px_per_mm: float,
                       band_rows: int = BAND_ROWS, spot_mm: float = 0.0) -> None:
    """calibration.colour.normalise_rectified(view, ref, origin_mm, px_per_mm), written
    back into `view`, one channel and one band of rows at a time.

    Why not normalise_rectified itself: it holds about ten whole-view float images at
    once (340 MB for a 2000 x 2000 view). Its correction is per pixel and per channel
    (linear light: v * gain + offset from the white map), so doing it channel by channel
    with the same float32 operations gives the same bytes (a test pins this) with one
    whole-view float channel of the white map alive.

    spot_mm > 0: where some channel comes out brighter than the markers' white (a lamp's
    spot the markers at the corners do not see), the pixels there are divided by the
    brightest channel of the brightest surface within about spot_mm instead of each
    channel clipped alone. Clipped alone, a Starting City's pale lilac in the spot comes
    out paper white with the table's white round it, and the card is lost (as are the
    orange and green of cards on a lit Gigantopolis board). A view where nothing clips
    keeps its bytes; one more whole-view float map is made first."""
    h, w = view.shape[:2]
    s = 1.0 / px_per_mm
    to_table = np.array([[s, 0, origin_mm[0] + 0.5 * s], [0, s, origin_mm[1] + 0.5 * s], [0, 0, 1]],
                        dtype=np.float64)
    coarse = white_grid(ref, to_table, (h, w))
    rho = np.asarray(ref.rho_lin if ref.rho_lin is not None else srgb_decode(np.asarray(ref.rho)),
                     dtype=np.float32)
    wt, bt = (float(v) for v in srgb_decode(np.array([WHITE_LEVEL, BLACK_LEVEL]) / 255.0))
    span = np.float32(wt - bt)
    one_minus = (1.0 - rho).astype(np.float32)
    offset = (bt - rho * span / (1.0 - rho)).astype(np.float32)
    steps = np.float32(_ENCODE_STEPS)
    dec = _DECODE_LUT.reshape(1, 256)
    rows = min(band_rows, h)
    # one band's buffers, reused: cv2.LUT gives the decode table's very floats, and the
    # float to int32 assignment truncates as astype does
    gain_buf = np.empty((rows, w), np.float32)
    out_buf = np.empty((rows, w), np.float32)
    idx_buf = np.empty((rows, w), np.int32)
    white = np.empty((h, w), np.float32)           # one channel's white map, made in place for each

    def linear(c: int) -> Iterator[tuple[int, int, NDArray[np.float32]]]:
        """Channel c band by band: (first row, end row, the band corrected in linear light)."""
        got = cv2.resize(np.ascontiguousarray(coarse[..., c]), (w, h), dst=white, interpolation=cv2.INTER_LINEAR)
        if not np.shares_memory(got, white):
            white[...] = got
        for y0 in range(0, h, band_rows):
            y1 = min(h, y0 + band_rows)
            gain, out = gain_buf[:y1 - y0], out_buf[:y1 - y0]
            np.multiply(white[y0:y1], one_minus[c], out=gain)
            np.divide(span, gain, out=gain)                 # span / (white * (1 - rho))
            cv2.LUT(cv2.extractChannel(view[y0:y1], c), dec, dst=out)
            out *= gain
            out += offset[c]
            yield y0, y1, out

    peak: NDArray[np.float32] | None = None
    if spot_mm > 0:
        peak = np.ones((h, w), np.float32)        # max(1, the brightest channel), linear light
        for c in range(3):
            for y0, y1, out in linear(c):
                np.maximum(peak[y0:y1], out, out=peak[y0:y1])
        if float(peak.max()) > 1.0:
            _spot_divisor(peak, white, px_per_mm, spot_mm)
        else:
            peak = None                           # nothing clips: the plain correction
    for c in range(3):
        for y0, y1, out in linear(c):
            idx = idx_buf[:y1 - y0]
            band = view[y0:y1]
            if peak is not None:
                out /= peak[y0:y1]
            out *= steps
            out += np.float32(0.5)
            np.maximum(out, np.float32(0.0), out=out)      # np.clip(out, 0, _ENCODE_STEPS), in two passes
            np.minimum(out, np.float32(_ENCODE_STEPS), out=out)
            idx[...] = out
            got_c = cv2.insertChannel(np.take(_ENCODE_LUT, idx), band, c)   # in place (the band's rows are contiguous)
            if not np.shares_memory(got_c, view):
                view[y0:y1, :, c] = got_c[..., c]
    del white, peak


def _spot_divisor(peak: NDArray[np.float32], spare: NDArray[np.float32], px_per_mm: float,
                  window_mm: float) -> None:
    """Turn `peak` (each pixel's brightest channel, at least 1) in place into its divisor:
    the brightest surface within about window_mm, smoothed, and at least the pixel's own.
    Why not the pixel's own alone: that lifts every pixel of the spot to white's level,
    so a card's body and its darker art come out alike; one divisor for the surfaces
    round a point keeps their contrast. `spare` is a whole-view float buffer to use."""
    h, w = peak.shape
    f = max(1, int(round(4.0 * px_per_mm)))          # 4 mm blocks, each the brightest round it
    got = cv2.dilate(peak, cv2.getStructuringElement(cv2.MORPH_RECT, (f, f)), dst=spare)
    blocks = np.ascontiguousarray(got[f // 2::f, f // 2::f])
    k = max(3, int(round(window_mm / 4.0)) | 1)
    near = cv2.dilate(blocks, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    smooth = cv2.GaussianBlur(near, (0, 0), k / 4.0)
    got = cv2.resize(smooth, (w, h), dst=spare, interpolation=cv2.INTER_LINEAR)
    np.maximum(peak, got, out=peak)


_NO_LAB = np.zeros((0, 0, 3), np.uint8)


def lab_rows(view: TopView, y0: int, y1: int) -> U8:
    """Rows y0..y1-1 of the view's Lab, from the kept Lab or made again from the image."""
    if view.lab.size:
        return np.asarray(view.lab[y0:y1], dtype=np.uint8)
    return np.asarray(cv2.cvtColor(view.image[y0:y1], cv2.COLOR_BGR2Lab), dtype=np.uint8)


def lab_of(bgr: tuple[int, int, int]) -> NDArray[np.float32]:
    px = np.array([[list(bgr)]], dtype=np.uint8)
    return np.asarray(cv2.cvtColor(px, cv2.COLOR_BGR2Lab)[0, 0], dtype=np.float32)


def membership(lab: U8, bgr: tuple[int, int, int], sigma: float) -> U8:
    """How much each pixel looks like `bgr` (0..255), from its Lab distance."""
    ref = lab_of(bgr)
    d2 = np.zeros(lab.shape[:2], dtype=np.float32)
    for c, wgt in zip(range(3), (0.6, 1.0, 1.0)):   # lightness matters less than hue
        diff = lab[..., c].astype(np.float32) - ref[c]
        d2 += wgt * diff * diff
    out = np.exp(d2 * np.float32(-1.0 / (2 * sigma * sigma)))
    return np.asarray(out * 255.0, dtype=np.uint8)


def thin(member: U8, kernel_px: int) -> U8:
    """Membership of thin things only: the membership minus its opening (what a disc
    wider than a wire cannot fit into), so cards and table of the same colour vanish."""
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kernel_px, kernel_px))
    return np.asarray(cv2.morphologyEx(member, cv2.MORPH_TOPHAT, k), dtype=np.uint8)


def large(member: U8, kernel_px: int) -> U8:
    """Membership of large areas only (cards, tiles): the opening."""
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kernel_px, kernel_px))
    return np.asarray(cv2.morphologyEx(member, cv2.MORPH_OPEN, k), dtype=np.uint8)


def background(image: U8, kernel_px: int, shrink: int = 2) -> U8:
    """The image with every thin structure (dark or bright, any colour) removed: per
    channel a closing then an opening with a square wider than a whole chain, done at
    1/shrink size (the background is smooth) and brought back to full size."""
    return backgrounds(image, kernel_px, shrink)[0]


def backgrounds(image: U8, kernel_px: int, shrink: int = 2, textured: bool = False) -> tuple[U8, U8 | None]:
    """background(), and with textured=True also the background that holds on a textured
    table (textured_background), from the same closings and openings."""
    h, w = image.shape[:2]
    plain, tex = small_backgrounds(image, kernel_px, shrink, textured)
    return upsized(plain, (w, h)), (upsized(tex, (w, h)) if tex is not None else None)


def small_backgrounds(image: U8, kernel_px: int, shrink: int = 2,
                      textured: bool = False) -> tuple[U8, U8 | None]:
    """backgrounds() before they are brought to full size (upsized): so that the
    caller need never hold both full-size ones at once."""
    h, w = image.shape[:2]
    small = cv2.resize(image, (w // shrink, h // shrink), interpolation=cv2.INTER_AREA)
    k = max(3, kernel_px // shrink) | 1
    return _background(small, k, textured)


def upsized(m: U8, size: tuple[int, int]) -> U8:
    """A small background at full size (w, h)."""
    return np.asarray(cv2.resize(m, size, interpolation=cv2.INTER_LINEAR), dtype=np.uint8)


def upsized_window(small: U8, size: tuple[int, int]) -> Callable[[slice, slice], U8] | None:
    """upsized(small, size)[rows, cols] made from the few rows and columns of `small` it
    reads (a LazyMap's make), or None unless size is exactly twice small's. Why exact: a
    2x INTER_LINEAR upsizing weighs the same two neighbours with the same weights
    wherever it starts on an even pixel, so a crop of small with one spare pixel round it,
    upsized, holds the whole upsizing's bytes (a test pins this)."""
    w, h = size
    sh, sw = small.shape[:2]
    if (w, h) != (2 * sw, 2 * sh):
        return None

    def make(r: slice, c: slice) -> U8:
        y0, y1, _ = r.indices(h)
        x0, x1, _ = c.indices(w)
        if y1 <= y0 or x1 <= x0:
            return np.zeros((max(0, y1 - y0), max(0, x1 - x0)) + small.shape[2:], np.uint8)
        sy0, sx0 = max(0, y0 // 2 - 1), max(0, x0 // 2 - 1)
        sy1, sx1 = min(sh, (y1 + 1) // 2 + 1), min(sw, (x1 + 1) // 2 + 1)
        crop = cv2.resize(small[sy0:sy1, sx0:sx1], (2 * (sx1 - sx0), 2 * (sy1 - sy0)),
                          interpolation=cv2.INTER_LINEAR)
        return np.asarray(crop[y0 - 2 * sy0:y1 - 2 * sy0, x0 - 2 * sx0:x1 - 2 * sx0], dtype=np.uint8)
    return make


def _background(image: U8, kernel_px: int, textured: bool = False) -> tuple[U8, U8 | None]:
    k = cv2.getStructuringElement(cv2.MORPH_RECT, (kernel_px, kernel_px))
    opened_closed = cv2.morphologyEx(cv2.morphologyEx(image, cv2.MORPH_CLOSE, k), cv2.MORPH_OPEN, k)
    closed_opened = cv2.morphologyEx(cv2.morphologyEx(image, cv2.MORPH_OPEN, k), cv2.MORPH_CLOSE, k)
    total: NDArray[np.uint16] = opened_closed.astype(np.uint16)    # (a + b) // 2 in 16 bits, in place
    np.add(total, closed_opened, out=total)
    total //= 2
    mean = total.astype(np.uint8)
    del total
    if not textured:
        return mean, None
    return mean, _textured(image, kernel_px, opened_closed, closed_opened, mean)


def _textured(image: U8, kernel_px: int, opened_closed: U8, closed_opened: U8, mean: U8) -> U8:
    """The background of a textured table. Where thin bright and thin dark things
    alternate closer than the window (a cutting mat's 10 mm grid, strong grain, sensor
    noise on a dark table), the closing sees only the bright ones and the opening only the
    dark ones, so their mean lies halfway and the whole table differs from its
    "background". There the median over a window well wider than a chain is the table
    (its lines and a chain's wire are the minority); elsewhere the two agree and their
    mean is kept. Why only for finding chains (trace.ink), not for the wire evidence: the
    clip counter's detector was trained on the evidence over the plain background."""
    apart = cv2.absdiff(opened_closed, closed_opened)
    if apart.ndim == 3:
        # the channels' maximum (cv2.max of the planes: numpy's max over a 3-long axis was
        # a fifth of the background's time)
        planes = cv2.split(apart)
        top = planes[0]
        for pl in planes[1:]:
            top = cv2.max(top, pl)
        apart = top
    lo, hi = TEXTURE_APART
    if not (apart > lo).any():                  # the weight (below) is 0 everywhere
        return mean
    med = cv2.medianBlur(image, int(kernel_px * TEXTURE_MEDIAN_SCALE) | 1)   # a chain fills under half of it
    # blended in 8 bits (float copies of the view cost 30 MB each at 4608x2592), the
    # weights made band by band (the blend is per pixel)
    out = np.empty_like(mean)
    for y0 in range(0, apart.shape[0], BAND_ROWS):
        y1 = min(apart.shape[0], y0 + BAND_ROWS)
        wt = np.clip((apart[y0:y1].astype(np.float32) - lo) / (hi - lo), 0.0, 1.0)
        out[y0:y1] = cv2.blendLinear(mean[y0:y1], med[y0:y1], 1.0 - wt, wt)
    return np.asarray(out, dtype=np.uint8)


TEXTURE_APART = (12.0, 24.0)   # closing-opening disagreement (0..255) from which the median takes over
TEXTURE_MEDIAN_SCALE = 2.5    # the median window, in closing windows: a blurred chain filling a window is no table


def mixing_evidence(image: U8, bg: U8 | Callable[[int, int], U8], colours: dict[str, tuple[int, int, int]],
                    min_contrast: float = 22.0, residual: float | Mapping[str, float] = 0.45,
                    band_rows: int = MIX_ROWS) -> tuple[dict[str, U8], dict[str, U8]]:
    """Per colour: how much of each pixel is a thin thing of that colour over the local
    background (0..255), and where that colour could not be seen at all because the
    background itself has that colour (0/1, at 1/BLIND_SHRINK of the size: see blind_full).

    Model: pixel = a * colour + (1 - a) * background (a wire partly covering a pixel), so
    a = ((pixel - bg) . (colour - bg)) / |colour - bg|^2; the fit's residual says whether
    the difference really points towards that colour (within `residual`, a sine: one for
    every colour or one per colour). Every pixel is on its own, so the
    float work is done a band of rows at a time. bg: the background, or what makes its
    rows y0..y1-1 (so that no full-size background need exist: upsized_window)."""
    h, w = image.shape[:2]
    rows_of: Callable[[int, int], U8] = bg if callable(bg) else (lambda y0, y1: bg[y0:y1])
    res = ({name: float(residual[name]) for name in colours} if isinstance(residual, Mapping)
           else {name: float(residual) for name in colours})
    ev: dict[str, U8] = {name: np.zeros((h, w), np.uint8) for name in colours}
    refs = {name: np.asarray(bgr, dtype=np.float32) for name, bgr in colours.items()}
    f = BLIND_SHRINK
    # the coarse background by whole blocks of each band (INTER_AREA by a whole factor
    # averages f x f blocks) when the sizes allow, else from the whole background after
    by_band = h % f == 0 and w % f == 0 and band_rows % f == 0
    coarse: U8 = np.empty((h // f, w // f, 3), np.uint8)
    for y0 in range(0, h, band_rows):
        y1 = min(h, y0 + band_rows)
        bg_rows = rows_of(y0, y1)
        _mix_band(image[y0:y1], bg_rows, refs, min_contrast, res,
                  {name: m[y0:y1] for name, m in ev.items()})
        if by_band:
            coarse[y0 // f:y1 // f] = cv2.resize(bg_rows, (w // f, (y1 - y0) // f), interpolation=cv2.INTER_AREA)
    if not by_band:
        coarse = np.asarray(cv2.resize(rows_of(0, h), (w // f, h // f), interpolation=cv2.INTER_AREA), dtype=np.uint8)
    # blind: the background itself has this colour (checked on a coarse grid)
    small = coarse.reshape(-1, 3).astype(np.float32)
    blind: dict[str, U8] = {}
    for name, ref in refs.items():
        near = (np.sum((small - ref[None, :]) ** 2, axis=1) <= min_contrast * min_contrast)
        blind[name] = near.reshape(h // BLIND_SHRINK, w // BLIND_SHRINK).astype(np.uint8)
    return ev, blind


BLIND_SHRINK = 8


def blind_full(blind_small: U8, size: tuple[int, int]) -> U8:
    """A blind map at the top view's size (w, h), as mixing_evidence made it at 1/8."""
    return np.asarray(cv2.resize(blind_small, size, interpolation=cv2.INTER_NEAREST), dtype=np.uint8)


def blind_window(blind_small: U8, size: tuple[int, int]) -> Callable[[slice, slice], F32]:
    """blind_full(blind_small, size)[rows, cols] as float32, made for the window alone
    (LazyMap's make): the nearest-neighbour index of every output row and column is taken
    from cv2.resize itself, so the window is the whole-size map's to the byte."""
    w, h = size
    sh, sw = blind_small.shape[:2]
    xi = np.asarray(cv2.resize(np.arange(sw, dtype=np.int32)[None, :], (w, 1),
                               interpolation=cv2.INTER_NEAREST), dtype=np.int32)[0]
    yi = np.asarray(cv2.resize(np.arange(sh, dtype=np.int32)[:, None], (1, h),
                               interpolation=cv2.INTER_NEAREST), dtype=np.int32)[:, 0]

    def make(r: slice, c: slice) -> F32:
        return np.asarray(blind_small[yi[r][:, None], xi[c][None, :]], dtype=np.float32)
    return make


def box_area(m: U8, k: int, f: int, size: tuple[int, int], band_rows: int = BAND_ROWS) -> F32:
    """cv2.resize(cv2.boxFilter(m, CV_32F, (k, k))[:h*f, :w*f], (w, h), INTER_AREA) for
    size (w, h), made band by band: a uint8 box sum is a whole number whatever rows are
    around it, so with k // 2 rows of the map on each side of a band (the map's own edge
    where it ends) every band gets the whole map's values, and INTER_AREA by a whole
    factor averages f x f blocks, which whole-block bands keep. Why: the whole-map float
    box filter is 16 MB at 2 px/mm, for a 4 MB result."""
    w, h = size
    out = np.empty((h, w), np.float32)
    r = k // 2
    rows = max(1, band_rows // f)
    full_h = m.shape[0]
    for y0 in range(0, h, rows):
        y1 = min(h, y0 + rows)
        a, b = y0 * f, y1 * f
        lo, hi = max(0, a - r), min(full_h, b + r)
        box = cv2.boxFilter(m[lo:hi], cv2.CV_32F, (k, k))
        out[y0:y1] = cv2.resize(box[a - lo:b - lo, :w * f], (w, y1 - y0), interpolation=cv2.INTER_AREA)
    return out


def _mix_band(image: U8, bg: U8, refs: dict[str, NDArray[np.float32]], min_contrast: float,
              residual: Mapping[str, float], out: dict[str, U8]) -> None:
    """mixing_evidence's evidence for one band of rows, written into `out` (views).

    Worked on channel planes with buffers reused across the colours: the same float32
    operations in the same order as the pixel-row form (d.d is (d0 d0 + d1 d1) + d2 d2,
    einsum's order). Per colour, the fit is worked only on the pixels whose difference d
    from the background points towards the colour's v within an angle: dot > 0 and
    dot^2 > cos2 d.d v.v. Why that loses nothing: a pixel's distance from the mix line
    is at least |d| sin(angle), so a fit (rel < residual) needs sin(angle) < residual;
    cos2 = 1 - (residual + MIX_MARGIN)^2 allows a wider angle than that (30 degrees for
    0.45, against 27), far beyond float rounding, and with dot <= 0 the score is a * .. = 0.
    Every other pixel thus scores 0, as the whole computation gives it, and the chosen
    ones go through the very same operations (a test pins the bytes). About a third
    less time on a textured table, where most pixels differ from the background."""
    ip, bp = cv2.split(image), cv2.split(bg)
    diff = cv2.max(cv2.max(cv2.absdiff(ip[0], bp[0]), cv2.absdiff(ip[1], bp[1])), cv2.absdiff(ip[2], bp[2]))
    cand = np.flatnonzero(diff.ravel() > 12)          # only pixels that differ from the background
    if len(cand) == 0:
        return
    b = [p.ravel()[cand].astype(np.float32) for p in bp]
    d = [p.ravel()[cand].astype(np.float32) for p in ip]
    for c in range(3):
        d[c] -= b[c]
    n = len(cand)
    t = np.empty(n, np.float32)

    def dot3(x: list[F32], y: list[F32], res: F32) -> F32:
        np.multiply(x[0], y[0], out=res)
        for c in (1, 2):
            np.multiply(x[c], y[c], out=t)
            res += t
        return res
    dd = dot3(d, d, np.empty(n, np.float32))
    d_len = np.maximum(np.sqrt(dd), 1.0)
    cone: dict[float, F32] = {}       # dd cos2 per residual (colours share most)
    best = np.zeros(n, np.float32)
    scores: dict[str, tuple[NDArray[np.intp], NDArray[np.float32]]] = {}
    lim2 = np.float32(min_contrast * min_contrast)
    v = [np.empty(n, np.float32) for _ in range(3)]
    vv, dot, lhs = np.empty(n, np.float32), np.empty(n, np.float32), np.empty(n, np.float32)
    ok, sel = np.empty(n, bool), np.empty(n, bool)
    for name, ref in refs.items():
        rs = residual[name]
        if rs not in cone:
            cone[rs] = dd * np.float32(max(0.0, 1.0 - (rs + MIX_MARGIN) ** 2))
        dd_cos = cone[rs]
        for c in range(3):
            np.subtract(ref[c], b[c], out=v[c])
        dot3(v, v, vv)
        dot3(d, v, dot)
        # the pixels that may fit: the colour far enough from the background, the
        # difference towards it and within the angle
        np.greater(vv, lim2, out=ok)
        np.greater(dot, 0.0, out=sel)
        sel &= ok
        np.multiply(dot, dot, out=lhs)
        np.multiply(dd_cos, vv, out=t)
        sel &= lhs > t
        idx = np.flatnonzero(sel)
        if len(idx) == 0:
            continue
        vv_s, dot_s, dd_s, dl_s = vv[idx], dot[idx], dd[idx], d_len[idx]
        a = vv_s.copy()                                # (ok everywhere here)
        np.divide(dot_s, a, out=a)
        np.clip(a, 0.0, 1.0, out=a)
        # the distance from the mix line stopped at the colour itself: a pixel beyond it
        # (darker than a grey, brighter than a cream) is not that colour at full strength
        # (res2 = max(dd - 2 a dot + a a vv, 0); rel = sqrt(res2) / d_len)
        ts = np.multiply(a, 2.0)
        ts *= dot_s
        np.subtract(dd_s, ts, out=ts)
        u = np.multiply(a, a)
        u *= vv_s
        ts += u
        np.maximum(ts, 0.0, out=ts)
        np.sqrt(ts, out=ts)
        ts /= dl_s
        m = np.less(ts, rs)
        np.divide(ts, rs, out=u)
        np.subtract(1.0, u, out=u)
        u *= a
        sc = np.where(m, u, np.float32(0.0))           # a (1 - rel / residual) where it fits
        scores[name] = (idx, sc)
        best[idx] = np.maximum(best[idx], sc)
    best -= 1e-6
    for name, (idx, sc) in scores.items():
        keep = np.greater_equal(sc, best[idx])
        u = np.multiply(sc, 0.3)
        np.copyto(u, sc, where=keep)
        u *= 255.0
        np.clip(u, 0, 255, out=u)
        out[name].reshape(-1)[cand[idx]] = u.astype(np.uint8)


MIX_MARGIN = 0.05    # how much wider than a fit's angle the pixels worked per colour reach (sin, see _mix_band)
