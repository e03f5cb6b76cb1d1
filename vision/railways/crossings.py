"""What each link touches or crosses: other links, the River, obstacles, stations other
than its ends, the edge of the play area, from footprints rasterised at 1 mm.

Why footprints: a link touches what its clips touch, so each chain is widened to a
clip's width around its centre line; two footprints that share a pixel touch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

F64 = NDArray[Any]
U8 = NDArray[Any]


@dataclass(frozen=True)
class Footprint:
    """One footprint: a 0/1 mask of only its bounding box, placed at (x0, y0) on the 1 mm
    grid (a whole-table mask per link would cost 1 MB each)."""

    x0: int
    y0: int
    mask: U8


class Footprints:
    """Rasterised footprints on a 1 px/mm grid over the read area."""

    def __init__(self, origin_mm: tuple[float, float], size_mm: tuple[float, float]) -> None:
        self.origin = np.asarray(origin_mm, dtype=np.float64)
        self.shape = (int(np.ceil(size_mm[1])) + 1, int(np.ceil(size_mm[0])) + 1)

    def _px(self, pts_mm: F64) -> NDArray[np.int32]:
        out: NDArray[np.int32] = np.round(np.asarray(pts_mm).reshape(-1, 2) - self.origin).astype(np.int32)
        return out

    def _window(self, px: NDArray[np.int32], grow: int) -> tuple[int, int, int, int]:
        """The grid's part that a shape drawn through `px` (grown by `grow`) can reach."""
        h, w = self.shape
        x0 = int(min(max(0, int(px[:, 0].min()) - grow), w))
        y0 = int(min(max(0, int(px[:, 1].min()) - grow), h))
        x1 = int(max(min(w, int(px[:, 0].max()) + grow + 1), x0))
        y1 = int(max(min(h, int(px[:, 1].max()) + grow + 1), y0))
        return x0, y0, x1, y1

    def chain(self, path_mm: F64, width_mm: float) -> Footprint:
        px = self._px(path_mm)
        thick = max(1, int(round(width_mm)))
        x0, y0, x1, y1 = self._window(px, thick)
        m = np.zeros((y1 - y0, x1 - x0), np.uint8)
        if m.size:
            shifted = (px - np.array([x0, y0], dtype=np.int32)).reshape(-1, 1, 2)
            cv2.polylines(m, [shifted], False, (1,), thick)
        return Footprint(x0, y0, m)

    def polygon(self, poly_mm: F64) -> Footprint:
        px = self._px(poly_mm)
        x0, y0, x1, y1 = self._window(px, 1)
        m = np.zeros((y1 - y0, x1 - x0), np.uint8)
        if m.size:
            cv2.fillPoly(m, [(px - np.array([x0, y0], dtype=np.int32)).reshape(-1, 1, 2)], (1,))
        return Footprint(x0, y0, m)


def touches(a: Footprint, b: Footprint, holes: Sequence[Footprint] = ()) -> bool:
    """Whether two footprints share a pixel outside the holes. Why holes: two links into
    one station converge on it, and their footprints (a clip's width round a traced
    centre line) meet there though their clips mostly do not."""
    x0, y0 = max(a.x0, b.x0), max(a.y0, b.y0)
    x1 = min(a.x0 + a.mask.shape[1], b.x0 + b.mask.shape[1])
    y1 = min(a.y0 + a.mask.shape[0], b.y0 + b.mask.shape[0])
    if x1 <= x0 or y1 <= y0:
        return False
    both = a.mask[y0 - a.y0:y1 - a.y0, x0 - a.x0:x1 - a.x0] & b.mask[y0 - b.y0:y1 - b.y0, x0 - b.x0:x1 - b.x0]
    for h in holes:
        hx0, hy0 = max(x0, h.x0), max(y0, h.y0)
        hx1, hy1 = min(x1, h.x0 + h.mask.shape[1]), min(y1, h.y0 + h.mask.shape[0])
        if hx1 > hx0 and hy1 > hy0:
            both[hy0 - y0:hy1 - y0, hx0 - x0:hx1 - x0] &= 1 - h.mask[hy0 - h.y0:hy1 - h.y0, hx0 - h.x0:hx1 - h.x0]
    return bool(np.any(both))


def outside(fp: Footprint, fps: Footprints, area_origin: tuple[float, float], area_size: tuple[float, float]) -> bool:
    x0, y0 = np.round(np.asarray(area_origin) - fps.origin).astype(int)
    h, w = fp.mask.shape
    # the play area's rectangle (clipped to the grid as before), in the footprint's own pixels
    ax0, ay0 = max(0, int(x0)), max(0, int(y0))
    ax1 = min(fps.shape[1], int(x0) + int(area_size[0]))
    ay1 = min(fps.shape[0], int(y0) + int(area_size[1]))
    inside = np.zeros((h, w), np.uint8)
    inside[max(0, ay0 - fp.y0):max(0, ay1 - fp.y0), max(0, ax0 - fp.x0):max(0, ax1 - fp.x0)] = 1
    return bool(np.any(fp.mask & (1 - inside)))
