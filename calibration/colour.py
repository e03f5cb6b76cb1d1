"""Per-frame colour normalisation from the printed markers, so a reading taught under
one lamp still holds under another: the markers' white quiet zone and black border
are the same paper and ink in every frame, hence a free white/black reference.

Model: light is multiplicative (colour temperature and brightness scale each channel;
a lamp's gradient scales it differently across the table). In the camera's gamma
encoded values that stays multiplicative (v = L**(1/g) keeps products), so one gain per
channel per place, interpolated across the table from the markers, undoes the light:

    out = (v - black(x, y)) / (white(x, y) - black(x, y)) * (WHITE - BLACK) + BLACK

with black = rho * white (ink reflects a fixed fraction rho of what paper reflects).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.geometry import TableFit
from calibration.profile import TableProfile

FloatArray = NDArray[np.float64]

# Where white paper and black ink land after normalisation (8-bit, gamma encoded).
WHITE_LEVEL = 235.0
BLACK_LEVEL = 25.0
# Sampling rings in marker-size units around the marker centre (half side = 0.5).
# The black border module spans 1/3..1/2; the quiet zone starts at 1/2.
BLACK_RING = (0.37, 0.46)
WHITE_RING = (0.55, 0.64)
CLIP_LEVEL = 250.0


@dataclass(frozen=True)
class MarkerSample:
    """Median white (quiet zone) and black (border) of one marker, BGR 0..255."""

    marker_id: int
    centre_mm: tuple[float, float]
    white: tuple[float, float, float]
    black: tuple[float, float, float]


@dataclass(frozen=True)
class ColourReference:
    """The light of one frame: a white surface over the table and the ink ratio.

    `coeffs` are per channel least-squares coefficients of log(white) over the
    basis chosen by the number of markers (1, x, y, xy / plane / constant), in
    table millimetres scaled by `scale_mm`. `source` says where it came from.
    """

    samples: tuple[MarkerSample, ...]
    coeffs: tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]]
    rho: tuple[float, float, float]
    scale_mm: float
    source: str                       # "markers" or "percentile"
    clipped: bool = False             # a white sample is at the sensor's ceiling
    # the same surface and ink ratio in linear light (sRGB decoded), which is where
    # light really multiplies; normalise() works there
    coeffs_lin: tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]] | None = None
    rho_lin: tuple[float, float, float] | None = None

    def white_at(self, pts_mm: FloatArray) -> FloatArray:
        """White level (BGR, 0..255, gamma encoded) at table points Nx2.

        At most the sensor's ceiling: where paper is brighter than the sensor reaches,
        so is every light print, and they read at the ceiling; dividing by the ceiling
        keeps them white (dividing by the true, higher white would grey them)."""
        return np.minimum(_surface(self.coeffs, self.scale_mm, pts_mm), 255.0)

    def white_lin_at(self, pts_mm: FloatArray) -> FloatArray:
        """White level in linear light (0..1) at table points Nx2, at most the ceiling."""
        if self.coeffs_lin is None:
            return np.asarray(srgb_decode(self.white_at(pts_mm) / 255.0), dtype=np.float64)
        return np.minimum(_surface(self.coeffs_lin, self.scale_mm, pts_mm), 1.0)


def _surface(coeffs: tuple[tuple[float, ...], ...], scale_mm: float, pts_mm: FloatArray) -> FloatArray:
    basis = _basis(np.asarray(pts_mm, dtype=np.float64).reshape(-1, 2) / scale_mm, len(coeffs[0]))
    logs = np.stack([basis @ np.asarray(c) for c in coeffs], axis=1)
    return np.asarray(np.exp(logs), dtype=np.float64)


def srgb_decode(v: NDArray[np.floating[Any]] | float) -> NDArray[np.float64]:
    """sRGB encoded 0..1 -> linear light 0..1 (the camera's output curve, inverted)."""
    a = np.asarray(v, dtype=np.float64)
    return np.asarray(np.where(a <= 0.04045, a / 12.92, ((a + 0.055) / 1.055) ** 2.4), dtype=np.float64)


def srgb_encode(v: NDArray[np.floating[Any]] | float) -> NDArray[np.float64]:
    a = np.clip(np.asarray(v, dtype=np.float64), 0.0, 1.0)
    return np.asarray(np.where(a <= 0.0031308, a * 12.92, 1.055 * a ** (1 / 2.4) - 0.055), dtype=np.float64)


_DECODE_LUT = srgb_decode(np.arange(256) / 255.0).astype(np.float32)
_ENCODE_STEPS = 4096
_ENCODE_LUT = np.clip(np.round(255.0 * srgb_encode(np.arange(_ENCODE_STEPS + 1) / _ENCODE_STEPS)),
                      0, 255).astype(np.uint8)


def _basis(p: FloatArray, n: int) -> FloatArray:
    x, y = p[:, 0], p[:, 1]
    cols = [np.ones_like(x), x, y, x * y][:n]
    return np.stack(cols, axis=1)


def _ring_points(centre: tuple[float, float], size: float, ring: tuple[float, float],
                 per_side: int = 24, layers: int = 3) -> FloatArray:
    """Points on concentric square rings around a marker centre, in table mm."""
    pts: list[FloatArray] = []
    for r in np.linspace(ring[0], ring[1], layers):
        h = r * size
        t = np.linspace(-h, h, per_side, endpoint=False)
        side = [np.stack([t, np.full_like(t, -h)], 1), np.stack([np.full_like(t, h), t], 1),
                np.stack([-t, np.full_like(t, h)], 1), np.stack([np.full_like(t, -h), -t], 1)]
        pts.extend(side)
    return np.vstack(pts) + np.asarray(centre, dtype=np.float64)


def _sample(image: NDArray[np.uint8], pts_px: FloatArray) -> FloatArray | None:
    h, w = image.shape[:2]
    ok = ((pts_px[:, 0] >= 0) & (pts_px[:, 0] <= w - 1) & (pts_px[:, 1] >= 0)
          & (pts_px[:, 1] <= h - 1))
    if ok.sum() < 0.6 * len(pts_px):
        return None
    p = np.rint(pts_px[ok]).astype(np.int64)
    vals = image[p[:, 1], p[:, 0]].reshape(-1, image.shape[2] if image.ndim == 3 else 1)
    return np.asarray(np.median(vals.astype(np.float64), axis=0), dtype=np.float64)


def sample_markers_whole(image: NDArray[np.uint8], fit: TableFit,
                         profile: TableProfile) -> list[MarkerSample]:
    """White and black of every seen marker, sampled in table mm through the fit on a
    blurred copy of the whole frame (the definition sample_markers keeps)."""
    img = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    blurred = np.asarray(cv2.GaussianBlur(img, (3, 3), 0), dtype=np.uint8)
    out: list[MarkerSample] = []
    for mid in fit.markers_seen:
        m = profile.marker(mid)
        if m is None:
            continue
        white = _sample(blurred, fit.to_image(_ring_points(m.centre_mm, m.size_mm, WHITE_RING)))
        black = _sample(blurred, fit.to_image(_ring_points(m.centre_mm, m.size_mm, BLACK_RING)))
        if white is None or black is None:
            continue
        if np.any(white - black < 12.0):   # no contrast: covered, glared or not a marker
            continue
        out.append(MarkerSample(mid, m.centre_mm, (float(white[0]), float(white[1]), float(white[2])),
                                (float(black[0]), float(black[1]), float(black[2]))))
    return out


@dataclass(frozen=True)
class _CropFit(TableFit):
    """The fit of a crop of the frame whose corner is `corner` (frame px)."""

    corner: tuple[int, int] = (0, 0)

    def to_image(self, pts_mm: NDArray[Any] | Any) -> NDArray[np.float64]:
        return np.asarray(super().to_image(pts_mm) - np.asarray(self.corner, dtype=np.float64), dtype=np.float64)


def sample_markers(image: NDArray[np.uint8], fit: TableFit,
                   profile: TableProfile) -> list[MarkerSample]:
    """sample_markers_whole(image, fit, profile), each marker sampled on a crop round its
    rings instead of a blurred copy of the whole frame (36 MB and most of a look's colour
    cost at 4608 px).

    Same bytes (a test pins it): the crop holds every pixel the rings read and one more
    round them (the 3x3 blur's), reaching the frame's edge wherever a ring point lies off
    the frame (so the in-frame test is the same), and starts on even pixels (points shift
    by whole even numbers, exact in float64, and round half to even alike)."""
    h, w = image.shape[:2]
    out: list[MarkerSample] = []
    for mid in fit.markers_seen:
        m = profile.marker(mid)
        if m is None:
            continue
        pts = np.vstack([fit.to_image(_ring_points(m.centre_mm, m.size_mm, ring)) for ring in (WHITE_RING, BLACK_RING)])
        pts = pts[np.isfinite(pts).all(axis=1)]
        if len(pts) == 0:
            continue
        lo, hi = np.rint(pts.min(axis=0)), np.rint(pts.max(axis=0))
        x0 = max(0, min(w, int(lo[0]) - 1)) & ~1
        y0 = max(0, min(h, int(lo[1]) - 1)) & ~1
        x1 = max(0, min(w, int(hi[0]) + 2))
        y1 = max(0, min(h, int(hi[1]) + 2))
        if x1 - x0 < 1 or y1 - y0 < 1:
            continue                # every point off the frame: the whole frame finds too few too
        crop_fit = _CropFit(fit.image_to_table, (mid,), fit.rms_mm, fit.source, fit.lens, (x0, y0))
        out += sample_markers_whole(image[y0:y1, x0:x1], crop_fit, profile)
    return out


def _log_surface(basis: FloatArray, logs: FloatArray, ok: NDArray[np.bool_]) -> list[tuple[float, ...]]:
    """Per-channel coefficients of log(white) over `basis` (markers x terms).

    With every sample usable each channel gets its own surface (a room lit by a
    window and a lamp may change colour across the table). When a channel is at the
    sensor's ceiling at some markers (a warm lamp on a locked white balance clips red
    first), the light is taken as one colour with one spatial shape: the shape comes
    from every unclipped value, each channel's level from its own unclipped values (the
    ceiling when it has none). With nothing below the ceiling the clipped whites are
    fitted as they are."""
    n, nb = basis.shape
    if ok.all() or not ok.any():
        out = []
        for c in range(3):
            sol, *_ = np.linalg.lstsq(basis, logs[:, c], rcond=None)
            out.append(tuple(float(v) for v in sol))
        return out
    # unknowns: the shape's non-constant terms, then one level per channel
    rows, rhs = [], []
    for i in range(n):
        for c in range(3):
            if ok[i, c]:
                level = np.zeros(3)
                level[c] = 1.0
                rows.append(np.concatenate([basis[i, 1:], level]))
                rhs.append(logs[i, c])
    a = np.array(rows, dtype=np.float64).reshape(-1, nb - 1 + 3)
    have = np.array([bool(ok[:, c].any()) for c in range(3)])
    cols = np.concatenate([np.ones(nb - 1, dtype=bool), have])
    sol = np.zeros(nb - 1 + 3)
    if len(rhs):
        # a shape needs more values than unknowns; else only the levels
        use = cols if len(rhs) > int(cols.sum()) else np.concatenate([np.zeros(nb - 1, dtype=bool), have])
        sol[use], *_ = np.linalg.lstsq(a[:, use], np.array(rhs), rcond=None)
    levels = sol[nb - 1:]
    shape = basis[:, 1:] @ sol[:nb - 1]
    for c in range(3):
        if not have[c]:
            # at the ceiling at every marker: at least the ceiling everywhere (white_at
            # then reads it as the ceiling)
            levels[c] = float(np.max(logs[:, c]) - np.min(shape))
    return [tuple([float(levels[c])] + [float(v) for v in sol[:nb - 1]]) for c in range(3)]


def reference_from_samples(samples: Sequence[MarkerSample]) -> ColourReference:
    """Fit the white surface: bilinear with 4+ markers, a plane with 3, constant with 1-2;
    a white at the sensor's ceiling counts only through the other channels (see
    _log_surface), and the ink ratio is taken against the fitted white."""
    if not samples:
        raise ValueError("no marker samples")
    # a marker at the ceiling in every channel says nothing of the surface's shape
    # (unless all are: then the ceilings are all there is)
    usable = sum(1 for s in samples if min(s.white) < CLIP_LEVEL) or len(samples)
    nb = 4 if usable >= 4 else (3 if usable == 3 else 1)
    centres = np.array([s.centre_mm for s in samples], dtype=np.float64)
    scale = float(max(1.0, np.abs(centres).max()))
    basis = _basis(centres / scale, nb)
    whites = np.maximum(np.array([s.white for s in samples], dtype=np.float64), 1.0)
    blacks = np.array([s.black for s in samples], dtype=np.float64)
    ok = whites < CLIP_LEVEL
    wl = np.maximum(srgb_decode(whites / 255.0), 1e-4)
    bl = np.maximum(srgb_decode(np.clip(blacks, 0, 255) / 255.0), 1e-5)
    coeffs = _log_surface(basis, np.log(whites), ok)
    coeffs_lin = _log_surface(basis, np.log(wl), ok)
    wfit = np.stack([np.exp(basis @ np.asarray(c)) for c in coeffs], axis=1)
    wfit_lin = np.stack([np.exp(basis @ np.asarray(c)) for c in coeffs_lin], axis=1)
    rho = np.clip(np.median(blacks / wfit, axis=0), 0.0, 0.8)
    rho_lin = np.clip(np.median(bl / wfit_lin, axis=0), 0.0, 0.8)
    return ColourReference(tuple(samples), (coeffs[0], coeffs[1], coeffs[2]),
                           (float(rho[0]), float(rho[1]), float(rho[2])), scale, "markers",
                           bool(np.any(~ok)),
                           (coeffs_lin[0], coeffs_lin[1], coeffs_lin[2]),
                           (float(rho_lin[0]), float(rho_lin[1]), float(rho_lin[2])))


def reference_from_percentiles(image: NDArray[np.uint8]) -> ColourReference:
    """Fallback without markers: the brightest and darkest 1% stand in for paper and ink."""
    img = image.reshape(-1, image.shape[2] if image.ndim == 3 else 1).astype(np.float64)
    if img.shape[1] == 1:
        img = np.repeat(img, 3, axis=1)
    step = max(1, len(img) // 200_000)
    sub = img[::step]
    white = np.maximum(np.percentile(sub, 99.0, axis=0), 1.0)
    black = np.percentile(sub, 1.0, axis=0)
    rho = np.clip(black / white, 0.0, 0.8)
    coeffs = tuple((float(np.log(white[c])),) for c in range(3))
    return ColourReference((), (coeffs[0], coeffs[1], coeffs[2]),
                           (float(rho[0]), float(rho[1]), float(rho[2])), 1.0, "percentile",
                           bool(np.any(white >= CLIP_LEVEL)))


def measure_reference(image: NDArray[np.uint8], fit: TableFit,
                      profile: TableProfile) -> ColourReference:
    """The frame's light from its markers, or from its percentiles when none is usable."""
    return light_from_samples(sample_markers(image, fit, profile), image)


def light_from_samples(samples: Sequence[MarkerSample], image: NDArray[np.uint8]) -> ColourReference:
    """The frame's light from its markers' samples, or from its percentiles when none is usable."""
    # a white at the sensor's ceiling understates the light there: with three or more
    # unclipped markers left, they alone still give the surface's shape (a plane or
    # better) in every channel; with fewer, every marker's unclipped channels do
    unclipped = [s for s in samples if max(s.white) < CLIP_LEVEL]
    if 3 <= len(unclipped) < len(samples):
        ref = reference_from_samples(unclipped)
        return ColourReference(tuple(samples), ref.coeffs, ref.rho, ref.scale_mm, ref.source, True,
                               ref.coeffs_lin, ref.rho_lin)
    if samples:
        return reference_from_samples(samples)
    return reference_from_percentiles(image)


def _apply(image: NDArray[np.uint8], white_lin: NDArray[np.float32],
           reference: ColourReference) -> NDArray[np.uint8]:
    """In linear light: out = v * gain + offset, gain/offset from the white map (HxWx3),
    so paper white lands on WHITE_LEVEL and ink black on BLACK_LEVEL (8-bit, encoded)."""
    rho = np.asarray(reference.rho_lin if reference.rho_lin is not None else
                     srgb_decode(np.asarray(reference.rho)), dtype=np.float32)
    wt, bt = (float(v) for v in srgb_decode(np.array([WHITE_LEVEL, BLACK_LEVEL]) / 255.0))
    span = np.float32(wt - bt)
    gain = (span / (white_lin * (1.0 - rho))).astype(np.float32)
    offset = (bt - rho * span / (1.0 - rho)).astype(np.float32)
    img = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    lin = _DECODE_LUT[img]
    out = cv2.multiply(lin, gain)
    out = cv2.add(out, np.broadcast_to(offset, out.shape).astype(np.float32))
    idx = np.clip(out * np.float32(_ENCODE_STEPS) + np.float32(0.5), 0, _ENCODE_STEPS).astype(np.int32)
    return np.asarray(_ENCODE_LUT[idx], dtype=np.uint8)


def white_grid(reference: ColourReference, to_table: FloatArray, shape: tuple[int, int],
               grid: int = 24) -> NDArray[np.float32]:
    """The white surface (linear light) sampled on a coarse grid of at most grid x grid
    output pixels spanning an output of `shape`; `to_table` maps output pixel (x, y) to
    table mm (3x3 homography). Resized to full size it is the per-pixel white."""
    h, w = shape
    gx = min(grid, w)
    gy = min(grid, h)
    xs = np.linspace(0, w - 1, gx)
    ys = np.linspace(0, h - 1, gy)
    px = np.stack(np.meshgrid(xs, ys), axis=-1).reshape(-1, 2)
    ph = np.hstack([px, np.ones((len(px), 1))]) @ to_table.T
    mm = ph[:, :2] / ph[:, 2:3]
    return np.asarray(reference.white_lin_at(mm).reshape(gy, gx, 3), dtype=np.float32)


def _white_map(reference: ColourReference, to_table: FloatArray, shape: tuple[int, int],
               grid: int = 24) -> NDArray[np.float32]:
    """The white surface on a coarse grid of output pixels, resized to full size."""
    h, w = shape
    white = white_grid(reference, to_table, shape, grid)
    return np.asarray(cv2.resize(white, (w, h), interpolation=cv2.INTER_LINEAR), dtype=np.float32)


def normalise(image: NDArray[np.uint8], fit: TableFit, profile: TableProfile,
              reference: ColourReference | None = None) -> NDArray[np.uint8]:
    """The camera frame with paper white at WHITE_LEVEL and ink black at BLACK_LEVEL
    everywhere on the table, whatever the lamp (same size and geometry as the input)."""
    ref = reference if reference is not None else measure_reference(image, fit, profile)
    h, w = image.shape[:2]
    if ref.source == "percentile" or len(ref.coeffs[0]) == 1:
        white = np.broadcast_to(np.asarray(ref.white_lin_at(np.zeros((1, 2)))[0], dtype=np.float32),
                                (h, w, 3)).astype(np.float32)
        return _apply(image, white, ref)
    # The white surface is smooth: evaluating it through the homography on a coarse
    # grid (lens distortion ignored there) is well within its own accuracy.
    return _apply(image, _white_map(ref, fit.image_to_table, (h, w)), ref)


def normalise_rectified(rectified: NDArray[np.uint8], reference: ColourReference,
                        origin_mm: tuple[float, float], px_per_mm: float) -> NDArray[np.uint8]:
    """The same correction for a top-down view made by geometry.rectify with the same
    origin_mm and px_per_mm; measure `reference` on the camera frame first
    (measure_reference), since the markers are usually outside the play area."""
    s = 1.0 / px_per_mm
    to_table = np.array([[s, 0, origin_mm[0] + 0.5 * s], [0, s, origin_mm[1] + 0.5 * s], [0, 0, 1]],
                        dtype=np.float64)
    h, w = rectified.shape[:2]
    return _apply(rectified, _white_map(reference, to_table, (h, w)), reference)
