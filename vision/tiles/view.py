"""Top-down views of the table in any frame (table-aligned or grid-aligned), each one
warp of the camera frame, lens distortion removed in the same pass."""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.geometry import TableFit
from vision.tiles.grid import GridFit

F64 = NDArray[np.float64]


def warp_view(image: NDArray[np.uint8], fit: TableFit, out_to_table: F64,
              size: tuple[int, int]) -> NDArray[np.uint8]:
    """The view whose pixel (x, y) shows table point out_to_table @ (x, y, 1)."""
    m = fit.table_to_image @ out_to_table
    if fit.lens is None:
        return np.asarray(cv2.warpPerspective(image, m, size,
                                              flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                              borderMode=cv2.BORDER_REPLICATE), dtype=np.uint8)
    from calibration.lens import lens_for_size, source_map

    lens = lens_for_size(fit.lens, (image.shape[1], image.shape[0]))
    src = source_map(lens, m, size)
    return np.asarray(cv2.remap(image, src[..., 0], src[..., 1], cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE), dtype=np.uint8)


def table_view_matrix(origin_mm: tuple[float, float], px_per_mm: float) -> F64:
    """Output pixel -> table mm for a table-aligned view (pixel centres, like rectify)."""
    s = 1.0 / px_per_mm
    return np.array([[s, 0, origin_mm[0] + 0.5 * s], [0, s, origin_mm[1] + 0.5 * s], [0, 0, 1]])


def grid_view_matrix(grid: GridFit, col0: int, row0: int, px_per_cell: int) -> F64:
    """Output pixel -> table mm for a grid-aligned view whose pixel block
    [(c - col0) * n, (r - row0) * n] of size n = px_per_cell is cell (c, r)."""
    s = grid.pitch_mm / px_per_cell
    c, sn = math.cos(grid.angle_rad), math.sin(grid.angle_rad)
    ux, uy = np.array([c, sn]), np.array([-sn, c])
    o = np.asarray(grid.origin_mm) + grid.pitch_mm * (col0 * ux + row0 * uy)
    # pixel centre (x + 0.5) * s along ux, (y + 0.5) * s along uy
    t = o + 0.5 * s * (ux + uy)
    return np.array([[s * ux[0], s * uy[0], t[0]], [s * ux[1], s * uy[1], t[1]], [0, 0, 1]])
