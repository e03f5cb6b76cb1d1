"""Per-cell crops straight from the camera frame, one small warp per cell, normalised
for the frame's light.

Cropping from the original frame (not from the coarse top-down view) keeps the
camera's full detail for the symbol while costing only the crop's own pixels.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.colour import BLACK_LEVEL, WHITE_LEVEL, ColourReference
from calibration.geometry import TableFit
from vision.tiles.grid import GridFit

F32 = NDArray[np.float32]

GLARE_TOP = 99.5
"""The percentile of a glared crop's values that is scaled to 1 (see glared_crops)."""


def cell_crop(image: NDArray[np.uint8], fit: TableFit, grid: GridFit, col: int, row: int,
              size_px: int, span: float) -> NDArray[np.uint8]:
    """A size_px square crop of a cell (span pitches wide), axis-aligned with the grid."""
    corners_mm = grid.cell_corners_mm(col, row, span * grid.pitch_mm)
    src = fit.to_image(corners_mm).astype(np.float32)
    s = float(size_px)
    dst = np.array([[-0.5, -0.5], [s - 0.5, -0.5], [s - 0.5, s - 0.5], [-0.5, s - 0.5]],
                   dtype=np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    return np.asarray(cv2.warpPerspective(image, m, (size_px, size_px), flags=cv2.INTER_LINEAR,
                                          borderMode=cv2.BORDER_REPLICATE), dtype=np.uint8)


def normalise_crop(crop: NDArray[np.uint8], reference: ColourReference,
                   centre_mm: NDArray[np.float64], knee: float = 1.0) -> F32:
    """The crop as if lit by the reference white (float32 BGR 0..1), using the light
    at the cell's centre: paper white -> WHITE_LEVEL/255, ink black -> BLACK_LEVEL/255.
    Values above `knee` are bent under 1 (shoulder); at 1 they are clipped."""
    white = reference.white_at(np.asarray(centre_mm, dtype=np.float64).reshape(1, 2))
    out: F32 = normalise_crops(crop[None], reference, white, knee)[0]
    return out


def normalise_crops(crops: NDArray[np.uint8], reference: ColourReference, whites: NDArray[np.float64],
                    knee: float = 1.0, clip: bool = True) -> F32:
    """normalise_crop of k crops of one size at once (crops (k, h, w, 3), whites (k, 3):
    the reference white at each crop's centre). Each pixel gets the very arithmetic
    normalise_crop gives it; one pass over a frame's cells saves a call per cell."""
    rho = np.asarray(reference.rho, dtype=np.float64)
    span = (WHITE_LEVEL - BLACK_LEVEL) / 255.0
    gain = span / (np.asarray(whites, dtype=np.float64) * (1.0 - rho))
    offset = BLACK_LEVEL / 255.0 - rho * span / (1.0 - rho)
    # in place, min/max for clip (the same numbers: no NaN can arise here), and each
    # row's channel pattern laid out whole (numpy's inner loop three values long is slow)
    k, h, w = crops.shape[:3]
    out = crops.astype(np.float32).reshape(k, h, -1)
    out *= np.tile(gain.astype(np.float32), w)[:, None, :]
    out += np.tile(offset.astype(np.float32), w)
    np.maximum(out, 0.0, out=out)
    if clip:
        shoulder(out, knee)
    return out.reshape(crops.shape)


def shoulder(values: F32, knee: float) -> F32:
    """values (0..1 after normalisation, unclipped) bent smoothly under 1 above knee,
    in place: below the knee nothing changes, above it a lamp's spot still shows its
    steps (a clip would flatten the spot, a tile in it and the table round it, to 1)."""
    if knee >= 1.0:
        np.minimum(values, 1.0, out=values)
        return values
    top = np.float32(1.0 - knee)
    over = values > knee
    if np.any(over):
        x = values[over] - np.float32(knee)
        values[over] = np.float32(knee) + top * (1.0 - np.exp(-x / top))
    return values


def glared_crops(raw: F32, over_share: float) -> tuple[list[int], F32]:
    """Of normalised, not yet clipped crops (k, h, w, 3; normalise_crops with clip
    False), those lying in a lamp's spot brighter than the markers' white (more than
    over_share of their values above 1), and a copy of each scaled down so its
    GLARE_TOP percentile is 1 instead of clipped: the spot lifts a tile's face and print
    alike, and clipping both to 1 erases the print, where scaling keeps them apart."""
    if over_share <= 0.0 or len(raw) == 0:
        return [], np.zeros((0, *raw.shape[1:]), dtype=np.float32)
    flat = raw.reshape(len(raw), -1)
    share = np.count_nonzero(flat > 1.0, axis=1) / flat.shape[1]
    idx = [int(i) for i in np.flatnonzero(share > over_share)]
    out = raw[idx]
    for j, i in enumerate(idx):
        top = float(np.percentile(flat[i], GLARE_TOP))
        out[j] *= np.float32(1.0 / max(top, 1.0))
    np.minimum(out, 1.0, out=out)
    return idx, out


def to_lab(bgr01: F32) -> F32:
    """CIELAB (L 0..100) of a float BGR 0..1 image, as OpenCV defines it; a stack of
    crops (k, h, w, 3) is converted in one call, as one image of them one under another
    (OpenCV converts pixel by pixel: the same numbers as crop by crop)."""
    if bgr01.ndim == 4:
        k, h, w = bgr01.shape[:3]
        return to_lab(np.ascontiguousarray(bgr01).reshape(k * h, w, 3)).reshape(bgr01.shape)
    return np.asarray(cv2.cvtColor(bgr01, cv2.COLOR_BGR2LAB), dtype=np.float32)


@contextmanager
def one_thread() -> Iterator[None]:
    """OpenCV on one thread for a while (the previous count restored after): on a
    cell-sized crop its thread pool's hand-offs cost more CPU than the work itself
    (connectedComponents of a 72-pixel crop: 27 us on two threads, 13 on one). The
    numbers are the same on any count of threads (each call here is per pixel, or
    labels whose numbering the reader never uses)."""
    n = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        yield
    finally:
        cv2.setNumThreads(n)
