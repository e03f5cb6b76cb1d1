"""One camera frame -> a colour-normalised top-down view of the play area, and the colour
membership maps every later stage reads.

Why top-down at 0.5 mm: a clip wire is about 1 mm, so two samples across it; the whole
1 m table is then 2000 x 2000 pixels, cheaper than the camera frame itself. Lens
distortion is undone in the same single remap, with the map computed on a coarse grid
(the distortion is smooth) to keep it fast.
"""

from __future__ import annotations

from dataclasses import dataclass

from typing import Any
import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.colour import measure_reference, normalise_rectified
from calibration.geometry import TableFit, _apply_h, distort_points
from calibration.profile import TableProfile
from vision.railways.config import RailwaysConfig

U8 = NDArray[Any]
F32 = NDArray[Any]


@dataclass
class TopView:
    """The normalised top-down image and how its pixels map to table millimetres."""

    image: U8                       # BGR, normalised (paper white ~235)
    lab: U8
    origin_mm: tuple[float, float]
    px_per_mm: float

    def to_px(self, pts_mm: NDArray[Any]) -> NDArray[np.float64]:
        p = np.asarray(pts_mm, dtype=np.float64).reshape(-1, 2)
        return np.asarray((p - np.asarray(self.origin_mm)) * self.px_per_mm - 0.5, dtype=np.float64)

    def to_mm(self, pts_px: NDArray[Any]) -> NDArray[np.float64]:
        p = np.asarray(pts_px, dtype=np.float64).reshape(-1, 2)
        return np.asarray((p + 0.5) / self.px_per_mm + np.asarray(self.origin_mm), dtype=np.float64)


def remap_maps(fit: TableFit, origin_mm: tuple[float, float], size_px: tuple[int, int],
               px_per_mm: float, step: int = 16) -> tuple[F32, F32]:
    """cv2.remap maps (output px -> camera px), exact on a coarse grid, interpolated between."""
    w, h = size_px
    gx = np.arange(0, w + step, step, dtype=np.float64)
    gy = np.arange(0, h + step, step, dtype=np.float64)
    xs, ys = np.meshgrid(gx, gy)
    mm = np.stack([(xs.ravel() + 0.5) / px_per_mm + origin_mm[0],
                   (ys.ravel() + 0.5) / px_per_mm + origin_mm[1]], axis=1)
    ideal = _apply_h(fit.table_to_image, mm)
    src = distort_points(ideal, fit.lens) if fit.lens is not None else ideal
    mx: F32 = src[:, 0].reshape(len(gy), len(gx)).astype(np.float32)
    my: F32 = src[:, 1].reshape(len(gy), len(gx)).astype(np.float32)
    full_w, full_h = len(gx) * step, len(gy) * step
    mx = cv2.resize(mx, (full_w, full_h), interpolation=cv2.INTER_LINEAR)
    my = cv2.resize(my, (full_w, full_h), interpolation=cv2.INTER_LINEAR)
    # resize puts coarse sample k at (k + 0.5) * step - 0.5; shift so sample k sits at k * step
    off = (step - 1) / 2.0
    m = np.array([[1, 0, off], [0, 1, off]], dtype=np.float32)
    mx = cv2.warpAffine(mx, m, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                        borderMode=cv2.BORDER_REPLICATE)
    my = cv2.warpAffine(my, m, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                        borderMode=cv2.BORDER_REPLICATE)
    return mx, my


def top_view(image: U8, fit: TableFit, profile: TableProfile, cfg: RailwaysConfig) -> TopView:
    """Rectify the play area (plus a margin) and normalise its colour from the markers."""
    ox = profile.area_origin_mm[0] - cfg.margin_mm
    oy = profile.area_origin_mm[1] - cfg.margin_mm
    sw = profile.area_size_mm[0] + 2 * cfg.margin_mm
    sh = profile.area_size_mm[1] + 2 * cfg.margin_mm
    w, h = int(round(sw * cfg.px_per_mm)), int(round(sh * cfg.px_per_mm))
    mx, my = remap_maps(fit, (ox, oy), (w, h), cfg.px_per_mm)
    rect = np.asarray(cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE),
                      dtype=np.uint8)
    del mx, my
    try:
        ref = measure_reference(image, fit, profile)
        norm = normalise_rectified(rect, ref, (ox, oy), cfg.px_per_mm)
    except (ValueError, cv2.error):
        norm = rect
    lab = np.asarray(cv2.cvtColor(norm, cv2.COLOR_BGR2Lab), dtype=np.uint8)
    return TopView(norm, lab, (ox, oy), cfg.px_per_mm)


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
    h, w = image.shape[:2]
    small = cv2.resize(image, (w // shrink, h // shrink), interpolation=cv2.INTER_AREA)
    out = _background(small, max(3, kernel_px // shrink) | 1)
    return np.asarray(cv2.resize(out, (w, h), interpolation=cv2.INTER_LINEAR), dtype=np.uint8)


def _background(image: U8, kernel_px: int) -> U8:
    k = cv2.getStructuringElement(cv2.MORPH_RECT, (kernel_px, kernel_px))
    closed = cv2.morphologyEx(image, cv2.MORPH_CLOSE, k)
    opened_closed = cv2.morphologyEx(closed, cv2.MORPH_OPEN, k)
    opened = cv2.morphologyEx(image, cv2.MORPH_OPEN, k)
    closed_opened = cv2.morphologyEx(opened, cv2.MORPH_CLOSE, k)
    return np.asarray(((opened_closed.astype(np.uint16) + closed_opened) // 2), dtype=np.uint8)


def mixing_evidence(image: U8, bg: U8, colours: dict[str, tuple[int, int, int]],
                    min_contrast: float = 22.0, residual: float = 0.45) -> tuple[dict[str, U8], dict[str, U8]]:
    """Per colour: how much of each pixel is a thin thing of that colour over the local
    background (0..255), and where that colour could not be seen at all because the
    background itself has that colour (0/1).

    Model: pixel = a * colour + (1 - a) * background (a wire partly covering a pixel), so
    a = ((pixel - bg) . (colour - bg)) / |colour - bg|^2; the fit's residual says whether
    the difference really points towards that colour."""
    h, w = image.shape[:2]
    diff = cv2.absdiff(image, bg).max(axis=2)
    cand = np.flatnonzero(diff.ravel() > 12)          # only pixels that differ from the background
    img = image.reshape(-1, 3)[cand].astype(np.float32)
    b = bg.reshape(-1, 3)[cand].astype(np.float32)
    bg_all = bg.reshape(-1, 3)
    d = img - b
    dd = np.einsum("ij,ij->i", d, d)
    ev: dict[str, U8] = {}
    blind: dict[str, U8] = {}
    best = np.zeros(len(cand), np.float32)
    scores: dict[str, NDArray[np.float32]] = {}
    for name, bgr in colours.items():
        ref = np.asarray(bgr, dtype=np.float32)
        v = ref[None, :] - b
        vv = np.einsum("ij,ij->i", v, v)
        dot = np.einsum("ij,ij->i", d, v)
        ok = vv > min_contrast * min_contrast
        vv_safe = np.where(ok, vv, 1.0)
        a = np.clip(dot / vv_safe, 0.0, 1.0)
        res2 = np.maximum(dd - dot * dot / vv_safe, 0.0)
        rel = np.sqrt(res2) / np.maximum(np.sqrt(dd), 1.0)
        sc = np.where(ok & (rel < residual), a * (1.0 - rel / residual), 0.0).astype(np.float32)
        scores[name] = sc
        # blind: the background itself has this colour (checked on a coarse grid)
        small = cv2.resize(bg, (w // 8, h // 8), interpolation=cv2.INTER_AREA).reshape(-1, 3).astype(np.float32)
        near = (np.sum((small - ref[None, :]) ** 2, axis=1) <= min_contrast * min_contrast)
        blind[name] = np.asarray(cv2.resize(near.reshape(h // 8, w // 8).astype(np.uint8), (w, h),
                                            interpolation=cv2.INTER_NEAREST), dtype=np.uint8)
        np.maximum(best, sc, out=best)
    del bg_all
    for name, sc in scores.items():
        keep = sc >= best - 1e-6
        full = np.zeros(h * w, np.uint8)
        full[cand] = np.clip(np.where(keep, sc, sc * 0.3) * 255.0, 0, 255).astype(np.uint8)
        ev[name] = full.reshape(h, w)
    return ev, blind
