"""The top-down table canvas every synthetic piece is drawn on, in table millimetres.

Why a canvas and not drawing straight into the camera frame: pieces are drawn once,
flat, in the table frame (exact geometry, easy for any game module to add a kind), and
the camera sees the whole canvas through ONE remap (camera.render_plane), which is where
perspective and lens distortion come from. The canvas holds linear-light albedo (float32
BGR 0..1) plus a height map (mm above the table) that the lighting pass turns into shadows.

Pixel convention: canvas pixel (i, j) has its centre at origin + ((i + 0.5), (j + 0.5)) /
px_per_mm, the same as calibration.geometry.rectify, so `to_px` returns coordinates in
which integers are pixel centres (what cv2.remap expects).

Edges are anti-aliased by supersampling each drawn shape inside its own bounding box
(SS x SS samples per canvas pixel, area-averaged), so drawing cost scales with the shape,
not the canvas.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import cv2
import numpy as np
from numpy.typing import ArrayLike, NDArray

from vision.synth.colour import Colour, lin, srgb_to_linear

F32 = NDArray[Any]   # float32 by convention (the cv2 stubs lose dtypes)
F64 = NDArray[Any]   # float64 by convention

SS = 4                     # supersampling per axis for coverage masks
_BIG_ROI = 1_000_000       # above this many canvas px, draw at 1x with LINE_AA (large fills)

_U8_TO_LINEAR = srgb_to_linear(np.arange(256, dtype=np.float32) / 255.0)

__all__ = ["TableCanvas", "Coverage", "lin", "rotated_rect", "circle_pts"]


@dataclass
class Coverage:
    """A shape's anti-aliased coverage (0..1) inside a canvas region starting at (x0, y0)."""

    x0: int
    y0: int
    alpha: F32

    @property
    def empty(self) -> bool:
        return self.alpha.size == 0

    def slices(self) -> tuple[slice, slice]:
        h, w = self.alpha.shape
        return slice(self.y0, self.y0 + h), slice(self.x0, self.x0 + w)


def rotated_rect(centre_mm: Sequence[float] | NDArray[Any], size_mm: Sequence[float], angle_deg: float,
                 corner_radius_mm: float = 0.0) -> F64:
    """Corners (TL, TR, BR, BL before rotation) of a rectangle turned by angle_deg
    (positive = clockwise on the table, since y points down); rounded when asked."""
    w, h = float(size_mm[0]), float(size_mm[1])
    r = max(0.0, min(corner_radius_mm, w / 2, h / 2))
    if r <= 0:
        local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    else:
        pts = []
        for cx, cy, a0 in ((w / 2 - r, h / 2 - r, 0), (-w / 2 + r, h / 2 - r, 90),
                           (-w / 2 + r, -h / 2 + r, 180), (w / 2 - r, -h / 2 + r, 270)):
            for k in range(7):
                a = math.radians(a0 + 90 * k / 6)
                pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
        local = np.array(pts)
    return transform(local, centre_mm, angle_deg)


def transform(local: ArrayLike, centre_mm: Sequence[float] | NDArray[Any], angle_deg: float,
              scale: float = 1.0) -> F64:
    """Local shape coordinates -> table mm: scale, turn by angle_deg, move to centre."""
    p = np.asarray(local, dtype=np.float64).reshape(-1, 2) * scale
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    rot = np.array([[c, -s], [s, c]])
    return np.asarray(p @ rot.T + np.asarray(centre_mm, dtype=np.float64)[:2], dtype=np.float64)


def circle_pts(centre_mm: Sequence[float] | NDArray[Any], radius_mm: float, n: int = 64,
               ry_mm: float | None = None, angle_deg: float = 0.0) -> F64:
    """A circle (or an ellipse with ry_mm) as a polygon."""
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    ry = radius_mm if ry_mm is None else ry_mm
    local = np.stack([radius_mm * np.cos(t), ry * np.sin(t)], axis=1)
    return transform(local, centre_mm, angle_deg)


class TableCanvas:
    """A rectangle of the table seen from straight above: albedo + height map."""

    def __init__(self, origin_mm: Sequence[float], size_mm: Sequence[float], px_per_mm: float,
                 background: Colour | None = (0.5, 0.5, 0.5)) -> None:
        if px_per_mm <= 0:
            raise ValueError(f"px_per_mm must be positive, got {px_per_mm}")
        self.origin_mm = (float(origin_mm[0]), float(origin_mm[1]))
        self.px_per_mm = float(px_per_mm)
        self.width = max(1, int(math.ceil(float(size_mm[0]) * self.px_per_mm)))
        self.height = max(1, int(math.ceil(float(size_mm[1]) * self.px_per_mm)))
        self.size_mm = (self.width / self.px_per_mm, self.height / self.px_per_mm)
        self.image: F32 = np.empty((self.height, self.width, 3), dtype=np.float32)
        if background is not None:      # None: the caller overwrites every pixel anyway
            self.image[:] = np.asarray(background, dtype=np.float32)
        self.height_map: F32 = np.zeros((self.height, self.width), dtype=np.float32)
        # things held above the table (hands, arms): (coverage, height mm) for their shadows
        self.floating: list[tuple[Coverage, float]] = []
        # where such things were drawn (lifted): they are lit, never in their own shadow
        self.floating_drawn: list[Coverage] = []
        # where the canvas shows the floor beyond the table (1) rather than the table (0),
        # at any resolution covering the whole canvas (it steers the illumination only)
        self.floor_alpha: F32 | None = None
        # the camera's lens centre (x, y, height mm) when known: lets raised things be
        # drawn where the camera sees them (parallax), see lift()
        self.eye: tuple[float, float, float] | None = None

    def lift(self, pts_mm: ArrayLike, height_mm: float) -> F64:
        """Where points height_mm above the table appear on the table plane from the
        camera (scaled away from the point below the lens by H / (H - h)). Identity
        without a known eye. Draw a raised face at lift(face, h) for true parallax."""
        p = np.asarray(pts_mm, dtype=np.float64).reshape(-1, 2)
        if self.eye is None or height_mm <= 0:
            return p
        ex, ey, eh = self.eye
        k = eh / max(eh - height_mm, 1.0)
        return np.asarray((p - np.array([ex, ey])) * k + np.array([ex, ey]), dtype=np.float64)

    def prism(self, base_mm: ArrayLike, bottom_mm: float, top_mm: float, side_colour: Colour) -> Coverage:
        """The visible side walls of an upright prism (tile, cube, cup): the hull of its
        footprint at bottom_mm and at top_mm as the camera sees them."""
        lo = self.lift(base_mm, bottom_mm)
        hi = self.lift(base_mm, top_mm)
        hull = cv2.convexHull(np.vstack([lo, hi]).astype(np.float32)).reshape(-1, 2)
        cov = self.coverage([hull])
        self.blend(cov, side_colour, top_mm)
        return cov

    # ----- coordinates -------------------------------------------------------------
    def to_px(self, pts_mm: ArrayLike) -> F64:
        """Table mm (Nx2) -> canvas pixel coordinates (integers are pixel centres)."""
        p = np.asarray(pts_mm, dtype=np.float64).reshape(-1, 2)
        return np.asarray((p - np.asarray(self.origin_mm)) * self.px_per_mm - 0.5, dtype=np.float64)

    def to_mm(self, pts_px: ArrayLike) -> F64:
        """Canvas pixel coordinates (Nx2) -> table mm."""
        p = np.asarray(pts_px, dtype=np.float64).reshape(-1, 2)
        return np.asarray((p + 0.5) / self.px_per_mm + np.asarray(self.origin_mm), dtype=np.float64)

    def mm_grid(self, step: int = 1) -> tuple[F32, F32]:
        """Table x and y (mm) of every `step`-th canvas pixel centre, for procedural textures."""
        xs = (np.arange(0, self.width, step, dtype=np.float32) + 0.5) / self.px_per_mm + self.origin_mm[0]
        ys = (np.arange(0, self.height, step, dtype=np.float32) + 0.5) / self.px_per_mm + self.origin_mm[1]
        gx, gy = np.meshgrid(xs, ys)
        return gx.astype(np.float32), gy.astype(np.float32)

    # ----- coverage ----------------------------------------------------------------
    def _roi(self, pts_px: F64, pad: float) -> tuple[int, int, int, int] | None:
        x0 = max(0, int(math.floor(float(pts_px[:, 0].min()) - pad)) - 1)
        y0 = max(0, int(math.floor(float(pts_px[:, 1].min()) - pad)) - 1)
        x1 = min(self.width, int(math.ceil(float(pts_px[:, 0].max()) + pad)) + 2)
        y1 = min(self.height, int(math.ceil(float(pts_px[:, 1].max()) + pad)) + 2)
        if x1 <= x0 or y1 <= y0:
            return None
        return x0, y0, x1, y1

    def _empty(self) -> Coverage:
        return Coverage(0, 0, np.zeros((0, 0), dtype=np.float32))

    def coverage(self, polygons_mm: Sequence[ArrayLike], holes_mm: Sequence[ArrayLike] = (),
                 stroke_mm: float | None = None, closed: bool = True) -> Coverage:
        """Anti-aliased coverage of the union of `polygons_mm` minus the union of `holes_mm`;
        with stroke_mm, the polygons are stroked as lines of that width instead of filled."""
        polys = [self.to_px(p) for p in polygons_mm if len(np.asarray(p).reshape(-1, 2)) > 0]
        if not polys:
            return self._empty()
        pad = 0.0 if stroke_mm is None else stroke_mm * self.px_per_mm / 2 + 1
        roi = self._roi(np.vstack(polys), pad)
        if roi is None:
            return self._empty()
        x0, y0, x1, y1 = roi
        w, h = x1 - x0, y1 - y0
        # supersampling costs ss^2 per pixel: full for piece-sized shapes, less for big ones
        ss = SS if w * h <= 250_000 else (2 if w * h <= _BIG_ROI else 1)
        line = cv2.LINE_AA if ss == 1 else cv2.LINE_8
        shift = 4

        def raster(ps: list[F64], stroke: float | None) -> NDArray[Any]:
            m = np.zeros((h * ss, w * ss), dtype=np.uint8)
            for p in ps:
                q = ((p - np.array([x0, y0])) + 0.5) * ss - 0.5
                qi = np.round(q * (1 << shift)).astype(np.int32).reshape(-1, 1, 2)
                if stroke is None:
                    cv2.fillPoly(m, [qi], (255,), line, shift)
                else:
                    th = max(1, int(round(stroke * self.px_per_mm * ss)))
                    cv2.polylines(m, [qi], closed, (255,), th, line, shift)
            return m

        mask = raster(polys, stroke_mm)
        if holes_mm:
            hp = [self.to_px(p) for p in holes_mm if len(np.asarray(p).reshape(-1, 2)) > 0]
            if hp:
                mask = cv2.bitwise_and(mask, cv2.bitwise_not(raster(hp, None)))
        if ss > 1:
            alpha = cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
        else:
            alpha = mask.astype(np.float32) / 255.0
        return Coverage(x0, y0, alpha)

    # ----- compositing -------------------------------------------------------------
    def blend(self, cov: Coverage, colour: Colour | F32, height_mm: float | None = None,
              opacity: float = 1.0) -> None:
        """Paint `colour` (a linear BGR triple, or an HxWx3 array the size of the coverage)
        where the coverage is; raise the height map to height_mm where the shape covers
        more than half a pixel (the height map keeps the maximum: later pieces lie on top)."""
        if cov.empty:
            return
        sy, sx = cov.slices()
        roi = self.image[sy, sx]
        col = np.asarray(colour, dtype=np.float32)
        if cov.alpha.size > 200_000:
            # long thin shapes (arms, lines) cover little of their box: touch only their pixels
            nz = np.flatnonzero(cov.alpha)
            if len(nz) < cov.alpha.size // 2:
                ys, xs = np.unravel_index(nz, cov.alpha.shape)
                a1 = (cov.alpha[ys, xs] * float(opacity))[:, None]
                px = roi[ys, xs]
                c1 = col if col.ndim == 1 else col[ys, xs]
                roi[ys, xs] = px + a1 * (c1 - px)
                if height_mm is not None:
                    hm = self.height_map[sy, sx]
                    sel = cov.alpha[ys, xs] > 0.5
                    hm[ys[sel], xs[sel]] = np.maximum(hm[ys[sel], xs[sel]], np.float32(height_mm))
                return
        a = (cov.alpha * float(opacity))[..., None]
        roi *= 1.0 - a
        roi += a * col
        if height_mm is not None:
            hm = self.height_map[sy, sx]
            np.maximum(hm, np.where(cov.alpha > 0.5, np.float32(height_mm), np.float32(0)), out=hm)

    def add_floating(self, cov: Coverage, height_mm: float) -> None:
        """Register a shape held height_mm above the table: it casts a detached shadow."""
        if not cov.empty:
            self.floating.append((cov, float(height_mm)))

    def set_height(self, cov: Coverage, height_mm: float) -> None:
        """Force the height where the coverage is (e.g. a hole cut through a raised piece)."""
        if cov.empty:
            return
        sy, sx = cov.slices()
        hm = self.height_map[sy, sx]
        hm[cov.alpha > 0.5] = np.float32(height_mm)

    def fill_polygon(self, pts_mm: ArrayLike, colour_bgr: Colour, height_mm: float | None = 0.0,
                     holes_mm: Sequence[ArrayLike] = (), opacity: float = 1.0) -> Coverage:
        """Fill a polygon (table mm) with a linear BGR colour; returns its coverage."""
        cov = self.coverage([pts_mm], holes_mm)
        self.blend(cov, colour_bgr, height_mm, opacity)
        return cov

    def polyline(self, pts_mm: ArrayLike, width_mm: float, colour: Colour,
                 height_mm: float | None = 0.0, closed: bool = False, opacity: float = 1.0) -> Coverage:
        """A stroked line through pts_mm, width_mm wide, round joins (wire, rims, text rules)."""
        cov = self.coverage([pts_mm], stroke_mm=width_mm, closed=closed)
        self.blend(cov, colour, height_mm, opacity)
        return cov

    def circle(self, centre_mm: Sequence[float] | NDArray[Any], radius_mm: float, colour: Colour,
               height_mm: float | None = 0.0, width_mm: float | None = None,
               opacity: float = 1.0) -> Coverage:
        """A filled disc, or a ring of width_mm when given."""
        n = max(24, min(256, int(2 * math.pi * radius_mm * self.px_per_mm / 2)))
        pts = circle_pts(centre_mm, radius_mm, n)
        if width_mm is None:
            cov = self.coverage([pts])
        else:
            cov = self.coverage([pts], stroke_mm=width_mm, closed=True)
        self.blend(cov, colour, height_mm, opacity)
        return cov

    def paste(self, image: NDArray[np.generic], corners_mm: ArrayLike, height_mm: float | None = None,
              opacity: float = 1.0) -> Coverage:
        """Warp an image onto a quad (its TL, TR, BR, BL outer corners in table mm).

        uint8 images are sRGB (BGR, or BGRA whose alpha is respected, or grey); float
        images are already linear. Minification is area-filtered first so printed detail
        (markers, card text) does not alias."""
        src = np.asarray(image)
        if src.ndim == 2:
            src = np.repeat(src[..., None], 3, axis=2)
        if src.dtype == np.uint8:
            rgb: F32 = _U8_TO_LINEAR[src[..., :3]]
            alpha_src: F32 | None = src[..., 3].astype(np.float32) / 255.0 if src.shape[2] == 4 else None
        else:
            rgb = src[..., :3].astype(np.float32)
            alpha_src = src[..., 3].astype(np.float32) if src.shape[2] == 4 else None
        dst = self.to_px(corners_mm)
        cov = self.coverage([corners_mm])
        if cov.empty:
            return cov
        sh, sw = rgb.shape[:2]
        # pre-shrink with area filtering when the quad is much smaller than the image
        tw = max(float(np.linalg.norm(dst[1] - dst[0])), float(np.linalg.norm(dst[2] - dst[3])))
        th = max(float(np.linalg.norm(dst[3] - dst[0])), float(np.linalg.norm(dst[2] - dst[1])))
        fx, fy = tw / sw, th / sh
        if fx < 0.8 or fy < 0.8:
            nw, nh = max(2, int(round(sw * min(1.0, fx * 1.25)))), max(2, int(round(sh * min(1.0, fy * 1.25))))
            rgb = cv2.resize(rgb, (nw, nh), interpolation=cv2.INTER_AREA)
            if alpha_src is not None:
                alpha_src = cv2.resize(alpha_src, (nw, nh), interpolation=cv2.INTER_AREA)
            sh, sw = nh, nw
        src_pts = np.array([[-0.5, -0.5], [sw - 0.5, -0.5], [sw - 0.5, sh - 0.5], [-0.5, sh - 0.5]],
                           dtype=np.float32)
        h, w = cov.alpha.shape
        dst_roi = (dst - np.array([cov.x0, cov.y0])).astype(np.float32)
        m = cv2.getPerspectiveTransform(src_pts, dst_roi)
        warped = cv2.warpPerspective(rgb, m, (w, h), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_REPLICATE)
        alpha = cov.alpha
        if alpha_src is not None:
            wa = cv2.warpPerspective(alpha_src, m, (w, h), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=(0.0,))
            alpha = alpha * wa
        c2 = Coverage(cov.x0, cov.y0, alpha.astype(np.float32))
        self.blend(c2, warped, height_mm, opacity)
        return c2

    def darken(self, cov: Coverage, factor: float | F32) -> None:
        """Multiply the albedo under a coverage (edge shading, print wear, dirt)."""
        if cov.empty:
            return
        sy, sx = cov.slices()
        f = np.asarray(factor, dtype=np.float32)
        a = cov.alpha if f.ndim == 0 else cov.alpha * 1.0
        mult = 1.0 - a[..., None] * (1.0 - (f[..., None] if f.ndim == 2 else f))
        self.image[sy, sx] *= mult
