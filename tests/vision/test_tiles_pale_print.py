"""A thin outline blurred into a noisy face (vision.tiles.face CellLook.pale) turns a
blank tile with the fronts' face up (vision.tiles.pipeline._mark_face_down), and
nothing else."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.tiles.config import TilesConfig
from vision.tiles.crops import to_lab
from vision.tiles.face import CellGeometry, CellLook, analyse_cell, with_pale
from vision.tiles.pipeline import TileReading, _mark_face_down

FACE = (0.80, 0.82, 0.84)           # BGR 0..1, a pale front
INK = (0.69, 0.76, 0.69)            # a pale green outline, some 15 delta E off the face


def _crop(seed: int, outline: bool) -> NDArray[np.float32]:
    """A 72 px cell: pale face, optionally a 4 px hexagon outline, camera blur, and
    blotchy noise (some 5 delta E spread) from the seed."""
    rng = np.random.default_rng(seed)
    img = np.full((72, 72, 3), FACE, np.float32)
    if outline:
        a = np.linspace(0.0, 2.0 * np.pi, 7)[:-1]
        pts = np.stack([36 + 18 * np.cos(a), 36 + 18 * np.sin(a)], 1).astype(np.int32)
        mask = np.zeros((72, 72), np.uint8)
        cv2.polylines(mask, [pts], True, (1,), 4)
        img[mask > 0] = INK
    img = cv2.GaussianBlur(img, (0, 0), 1.2)
    noise = cv2.GaussianBlur(rng.normal(0.0, 1.0, (72, 72, 3)).astype(np.float32), (0, 0), 1.0) * 0.1
    return np.clip(img + noise, 0.0, 1.0).astype(np.float32)


def _look(crop: NDArray[np.float32]) -> CellLook:
    lab, geo, cfg = to_lab(crop), CellGeometry.make(72), TilesConfig()
    return with_pale(analyse_cell(crop, lab, geo, cfg), crop, lab, geo, cfg)


def test_a_thin_outline_under_noise_is_only_a_pale_print() -> None:
    """On six seeded noisy faces a pale outline is no print (three times the noise hides
    it) but is the pale look's print; the same faces without it have no pale print."""
    for seed in range(6):
        look = _look(_crop(seed, True))
        assert not look.has_symbol
        assert look.pale is not None and look.pale.has_symbol and look.pale.faint
        assert _look(_crop(seed, False)).pale is None


def test_the_pale_look_is_taken_only_when_asked() -> None:
    """analyse_cell leaves a blank look's pale print for with_pale (bare-table cells,
    most of the blank ones, never need it), and with_pale leaves a printed look alone."""
    crop = _crop(0, True)
    lab, geo, cfg = to_lab(crop), CellGeometry.make(72), TilesConfig()
    assert analyse_cell(crop, lab, geo, cfg).pale is None
    printed = CellLook(np.zeros(3), 1.0, 0.2, np.ones(3), np.zeros(8, np.float32), 0.0, (0.0, 0.0), 30.0)
    assert with_pale(printed, crop, lab, geo, cfg) is printed


def _tile(col: int, face: tuple[float, float, float], mark: tuple[float, float, float] | None,
          pale: bool = False) -> TileReading:
    if mark is not None and not pale:
        look = CellLook(np.array(face), 2.0, 0.3, np.array(mark), np.zeros(64 * 16, np.float32),
                        0.0, (0.0, 0.0), 40.0)
    else:
        faint = None
        if mark is not None:
            faint = CellLook(np.array(face), 6.0, 0.1, np.array(mark), np.ones(64 * 16, np.float32),
                             0.0, (0.0, 0.0), 12.0, True)
        look = CellLook(np.array(face), 6.0, 0.0, np.array(face), np.zeros(64 * 16, np.float32),
                        0.0, (0.0, 0.0), 0.0, False, faint)
    return TileReading(col, 0, (40.0 * col, 0.0), False, look)


def test_a_blank_tile_turns_up_only_with_the_fronts_face_and_a_pale_print() -> None:
    """Five fronts on one pale face; a blank tile of that face with a pale print is a
    front (marked pale, named by the print's colour); of that face without one, or of
    another face with one, it stays a back."""
    face = (80.0, 0.0, 8.0)
    fronts = [_tile(k, face, (60.0, 40.0 * (-1) ** k, 10.0 * k)) for k in range(5)]
    hidden = _tile(5, (78.0, -1.0, 9.0), (70.0, -20.0, 15.0), pale=True)
    blank = _tile(6, (78.0, -1.0, 9.0), None)
    back = _tile(7, (55.0, -30.0, 30.0), (70.0, -35.0, 35.0), pale=True)
    tiles = fronts + [hidden, blank, back]
    _mark_face_down(tiles, TilesConfig())
    assert [t.face_down for t in tiles] == [False] * 6 + [True, True]
    assert [t.pale for t in tiles] == [False] * 5 + [True, False, False]
    assert hidden.look.has_symbol and hidden.colour_lab is not None
    assert list(hidden.colour_lab) == [70.0, -20.0, 15.0]
