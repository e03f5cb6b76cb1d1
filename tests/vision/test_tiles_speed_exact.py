"""Session 20's faster paths of the tile reader equal what they replace, number for
number, on seeded random input (a speed change must not move a reading by a bit)."""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.colour import BLACK_LEVEL, WHITE_LEVEL, ColourReference
from vision.tiles.crops import normalise_crop, normalise_crops, to_lab
from vision.tiles.face import _print_colour
from vision.tiles.grid import GridFit, Outline
from vision.tiles.pipeline import _bare_shares, _table_share


def test_bare_shares_equal_one_cell_at_a_time() -> None:
    """_bare_shares of many cells is _table_share of each cell's Outline.inside_mm."""
    rng = np.random.default_rng(20)
    near = rng.random((300, 310)) < 0.6
    for angle_deg, inset in ((0.0, 0.6), (9.7, 1.0), (-33.0, 0.5)):
        grid = GridFit(math.radians(angle_deg), 37.3, (41.2, 28.9), 1.0)
        cells = [(c, r) for c in range(-2, 9) for r in range(-1, 8)]
        want = []
        for c, r in cells:
            ctr = grid.cell_centre_mm(c, r)
            o = Outline(grid.pitch_mm, grid.angle_rad, 0.0, (float(ctr[0]), float(ctr[1])))
            want.append(_table_share(near, o.inside_mm(inset=inset), 1.5, (30.0, 30.0)))
        assert _bare_shares(near, grid, cells, 1.5, (30.0, 30.0), inset).tolist() == want


def _normalise_plain(crop: NDArray[np.uint8], reference: ColourReference,
                     centre_mm: NDArray[np.float64]) -> NDArray[np.float32]:
    """normalise_crop as it was written before it served a stack of crops."""
    white = reference.white_at(np.asarray(centre_mm, dtype=np.float64).reshape(1, 2))[0]
    rho = np.asarray(reference.rho, dtype=np.float64)
    span = (WHITE_LEVEL - BLACK_LEVEL) / 255.0
    gain = span / (white * (1.0 - rho))
    offset = BLACK_LEVEL / 255.0 - rho * span / (1.0 - rho)
    h, w = crop.shape[:2]
    out = crop.astype(np.float32).reshape(h, -1)
    out *= np.tile(gain.astype(np.float32), w)
    out += np.tile(offset.astype(np.float32), w)
    np.maximum(out, 0.0, out=out)
    np.minimum(out, 1.0, out=out)
    return out.reshape(crop.shape)


def test_crops_normalised_and_converted_at_once_equal_one_by_one() -> None:
    """normalise_crops and to_lab of a stack give each crop's own numbers, whatever the
    crop size (a frame's cells are read at 36 and 72 pixels)."""
    rng = np.random.default_rng(21)
    ref = ColourReference((), ((5.3, 0.02, -0.01, 1e-5), (5.4, -0.01, 0.02, 0.0), (5.2, 0.0, 0.0, 2e-5)),
                          (0.08, 0.1, 0.12), 100.0, "markers")
    for n in (36, 72, 13):
        crops = rng.integers(0, 256, (9, n, n, 3), dtype=np.uint8)
        ctrs = rng.uniform(0.0, 400.0, (9, 2))
        whites = np.concatenate([ref.white_at(c.reshape(1, 2)) for c in ctrs])
        got = normalise_crops(crops, ref, whites)
        labs = to_lab(got)
        for i in range(9):
            want = _normalise_plain(crops[i], ref, ctrs[i])
            assert np.array_equal(got[i], want)
            assert np.array_equal(normalise_crop(crops[i], ref, ctrs[i]), want)
            assert np.array_equal(labs[i], np.asarray(cv2.cvtColor(want, cv2.COLOR_BGR2LAB)))


def test_print_colour_converts_only_the_print() -> None:
    """_print_colour gives the colour the whole smoothed crop's Lab gives at the print."""
    rng = np.random.default_rng(22)
    for n in (36, 72):
        bgr = rng.random((n, n, 3), dtype=np.float32)
        mask = rng.random((n, n)) < 0.3
        face = np.array([60.0, 5.0, -3.0])
        smooth = np.asarray(cv2.GaussianBlur(bgr, (0, 0), 2.0), dtype=np.float32)
        lab = np.asarray(cv2.cvtColor(smooth, cv2.COLOR_BGR2LAB), dtype=np.float64)[mask]
        dist = np.linalg.norm(lab - face, axis=1)
        want = np.median(lab[dist >= np.percentile(dist, 75.0)], axis=0)
        assert np.array_equal(_print_colour(bgr, face, mask, 2.0), want)
