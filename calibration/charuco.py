"""The ChArUco lens board: one definition shared by the printed sheet, the detector and
the synthetic renderer. Its markers use a different dictionary (5x5) from the table's
corner markers (4x4), so the board can never be mistaken for a table corner."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import cv2
import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
WIN_FRAC = 0.1  # of the corner spacing: the window must stay clear of the markers


@dataclass(frozen=True)
class CharucoSpec:
    """Squares across and down, their printed size, and the marker dictionary.

    9 x 6 squares of 28 mm (252 x 168 mm) fit A4 or Letter landscape with margins;
    the intrinsics do not depend on the printed size, only the layout matters."""

    squares_x: int = 9
    squares_y: int = 6
    square_mm: float = 28.0
    marker_mm: float = 21.0
    dictionary: str = "DICT_5X5_100"

    @property
    def size_mm(self) -> tuple[float, float]:
        return (self.squares_x * self.square_mm, self.squares_y * self.square_mm)

    def to_dict(self) -> dict[str, Any]:
        return {"squares_x": self.squares_x, "squares_y": self.squares_y,
                "square_mm": self.square_mm, "marker_mm": self.marker_mm,
                "dictionary": self.dictionary}

    @staticmethod
    def from_dict(d: Mapping[str, Any]) -> "CharucoSpec":
        base = CharucoSpec()
        return CharucoSpec(int(d.get("squares_x", base.squares_x)), int(d.get("squares_y", base.squares_y)),
                           float(d.get("square_mm", base.square_mm)), float(d.get("marker_mm", base.marker_mm)),
                           str(d.get("dictionary", base.dictionary)))

    def scaled(self, square_mm: float) -> "CharucoSpec":
        """The same layout printed with a different square size (bigger paper)."""
        return CharucoSpec(self.squares_x, self.squares_y, square_mm,
                           square_mm * self.marker_mm / self.square_mm, self.dictionary)


DEFAULT_BOARD = CharucoSpec()


def make_board(spec: CharucoSpec = DEFAULT_BOARD) -> cv2.aruco.CharucoBoard:
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, spec.dictionary))
    return cv2.aruco.CharucoBoard((spec.squares_x, spec.squares_y), spec.square_mm, spec.marker_mm, d)


def board_image(spec: CharucoSpec, px_per_mm: float) -> NDArray[np.uint8]:
    """The board as a grey image at px_per_mm with no margin (square 0 at the top-left)."""
    w = int(round(spec.size_mm[0] * px_per_mm))
    h = int(round(spec.size_mm[1] * px_per_mm))
    return np.asarray(make_board(spec).generateImage((w, h), marginSize=0, borderBits=1), dtype=np.uint8)


def corner_positions_mm(spec: CharucoSpec = DEFAULT_BOARD) -> FloatArray:
    """Inner chessboard corners (id order) in board mm, origin at the board's top-left."""
    return np.asarray(make_board(spec).getChessboardCorners(), dtype=np.float64)[:, :2]


def detect_charuco(image: NDArray[np.uint8], spec: CharucoSpec = DEFAULT_BOARD
                   ) -> tuple[FloatArray, NDArray[np.int32]]:
    """Sub-pixel chessboard corners of the board (Nx2 px) and their ids; empty when unseen."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    params = cv2.aruco.DetectorParameters()
    params.minMarkerPerimeterRate = 0.01
    # the chessboard corners are refined with these (the defaults stop at 0.1 px)
    params.cornerRefinementMaxIterations = 100
    params.cornerRefinementMinAccuracy = 0.001
    det = cv2.aruco.CharucoDetector(make_board(spec), cv2.aruco.CharucoParameters(), params)
    corners, ids, _, _ = det.detectBoard(gray)
    if ids is None or corners is None or len(ids) == 0:
        return np.zeros((0, 2)), np.zeros((0,), np.int32)
    pts = np.asarray(corners, dtype=np.float32).reshape(-1, 2)
    # OpenCV 4.11's board detector leaves its corners half a pixel off (measured on
    # exact renders); a final cornerSubPix with a window sized to the squares fixes it.
    if len(pts) >= 2:
        dist = np.linalg.norm(pts[:, None, :] - pts[None, :, :], axis=2)
        np.fill_diagonal(dist, np.inf)
        spacing = float(np.median(dist.min(axis=1)))
    else:
        spacing = 12.0
    win = int(np.clip(round(spacing * WIN_FRAC), 2, 15))
    refined = cv2.cornerSubPix(gray, pts.reshape(-1, 1, 2), (win, win), (-1, -1),
                               (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 100, 1e-4))
    return (np.asarray(refined, dtype=np.float64).reshape(-1, 2),
            np.asarray(ids, dtype=np.int32).reshape(-1))
