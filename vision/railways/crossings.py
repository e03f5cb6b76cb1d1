"""What each link touches or crosses: other links, the River, obstacles, stations other
than its ends, the edge of the play area, from footprints rasterised at 1 mm.

Why footprints: a link touches what its clips touch, so each chain is widened to a
clip's width around its centre line; two footprints that share a pixel touch.
"""

from __future__ import annotations

from typing import Any
import cv2
import numpy as np
from numpy.typing import NDArray

F64 = NDArray[Any]
U8 = NDArray[Any]


class Footprints:
    """Rasterised footprints on a 1 px/mm grid over the read area."""

    def __init__(self, origin_mm: tuple[float, float], size_mm: tuple[float, float]) -> None:
        self.origin = np.asarray(origin_mm, dtype=np.float64)
        self.shape = (int(np.ceil(size_mm[1])) + 1, int(np.ceil(size_mm[0])) + 1)

    def _px(self, pts_mm: F64) -> NDArray[np.int32]:
        out: NDArray[np.int32] = np.round(np.asarray(pts_mm).reshape(-1, 2) - self.origin).astype(np.int32)
        return out

    def chain(self, path_mm: F64, width_mm: float) -> U8:
        m = np.zeros(self.shape, np.uint8)
        cv2.polylines(m, [self._px(path_mm).reshape(-1, 1, 2)], False, (1,), max(1, int(round(width_mm))))
        return m

    def polygon(self, poly_mm: F64) -> U8:
        m = np.zeros(self.shape, np.uint8)
        cv2.fillPoly(m, [self._px(poly_mm).reshape(-1, 1, 2)], (1,))
        return m


def touches(a: U8, b: U8) -> bool:
    return bool(np.any(a & b))


def outside(fp: U8, fps: Footprints, area_origin: tuple[float, float], area_size: tuple[float, float]) -> bool:
    x0, y0 = np.round(np.asarray(area_origin) - fps.origin).astype(int)
    inside = np.zeros(fps.shape, np.uint8)
    inside[max(0, y0):y0 + int(area_size[1]), max(0, x0):x0 + int(area_size[0])] = 1
    return bool(np.any(fp & (1 - inside)))
