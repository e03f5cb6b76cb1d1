"""Marker sheets print at true scale: PNG DPI and pixel size, PDF page size, marker size."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import cv2
from calibration.profile import default_profile
from calibration.sheets import (SheetError, charuco_page, marker_pages, paper_size_mm, save_pages,
                                where_it_goes)


def test_png_carries_its_dpi_and_the_paper_size(tmp_path: Path) -> None:
    """An A4 page at 200 dpi is 1654x2339 px and says 200 dpi."""
    pages = marker_pages(default_profile("town77"), 200, "A4")
    [out] = save_pages(pages, tmp_path / "m.png")
    with Image.open(out) as im:
        assert im.size == (round(210 / 25.4 * 200), round(297 / 25.4 * 200))
        dpi = im.info["dpi"]
        assert abs(dpi[0] - 200) < 0.01 and abs(dpi[1] - 200) < 0.01


def test_pdf_page_is_a4_in_points(tmp_path: Path) -> None:
    """The PDF's MediaBox is 210 x 297 mm (595.3 x 841.9 pt) to within 0.5 mm."""
    pages = marker_pages(default_profile("railways"), 150, "A4")
    [out] = save_pages(pages, tmp_path / "m.pdf")
    boxes = re.findall(rb"/MediaBox \[ ?0 0 ([\d.]+) ([\d.]+) ?\]", out.read_bytes())
    assert len(boxes) == len(pages) >= 1
    w_mm, h_mm = (float(v) / 72 * 25.4 for v in boxes[0])
    assert abs(w_mm - 210) < 0.5 and abs(h_mm - 297) < 0.5


@pytest.mark.parametrize("game,size_mm", [("town77", 40.0), ("railways", 60.0)])
def test_markers_are_true_size_and_readable(game: str, size_mm: float) -> None:
    """Each printed marker is detected with its id and its side is the profile size within 1 px."""
    dpi = 150
    pages = marker_pages(default_profile(game), dpi, "A4")
    found = {}
    for p in pages:
        img = np.array(p.image)
        d = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
        corners, ids, _ = d.detectMarkers(img)
        for c, i in zip(corners, ids.ravel()):
            c = c.reshape(4, 2)
            found[int(i)] = float(np.mean(np.linalg.norm(c - np.roll(c, -1, 0), axis=1)))
    assert sorted(found) == [0, 1, 2, 3]
    want_px = size_mm / 25.4 * dpi
    # detected corners sit on pixel centres of the outermost modules: side = true side - 1 px
    for side in found.values():
        assert abs(side + 1 - want_px) <= 1.0, (side, want_px)


def test_charuco_board_fills_a3_and_is_detectable() -> None:
    """On A3 the lens board is enlarged (squares >= 40 mm) and all its corners are found."""
    from calibration.charuco import detect_charuco

    page, board = charuco_page(dpi=100, paper="A3")
    assert board.square_mm >= 40
    assert paper_size_mm("A3", landscape=True) == (420.0, 297.0)
    c, ids = detect_charuco(np.array(page.image), board)
    assert len(ids) == (board.squares_x - 1) * (board.squares_y - 1)
    # neighbouring corners are one square apart at the page's dpi
    step = np.linalg.norm(c[1] - c[0])
    assert abs(step - board.square_mm / 25.4 * 100) < 1.0


def test_labels_say_where_each_marker_goes() -> None:
    """Marker 0 goes top-left, 2 bottom-right (the profile's layout)."""
    prof = default_profile("tiles")
    assert where_it_goes(prof, prof.markers[0]) == "top-left of the play area"
    assert where_it_goes(prof, prof.markers[2]) == "bottom-right of the play area"


def test_sheet_errors(tmp_path: Path) -> None:
    """Unknown paper, silly dpi and a wrong suffix are one-line SheetErrors."""
    prof = default_profile("tiles")
    with pytest.raises(SheetError, match=r"^unknown paper 'B5'; use A4, A3 or Letter$"):
        marker_pages(prof, 300, "B5")
    with pytest.raises(SheetError, match=r"^--dpi 30 is out of range; use 150 to 600 \(300 is typical\)$"):
        marker_pages(prof, 30, "A4")
    with pytest.raises(SheetError) as e:
        save_pages(marker_pages(prof, 100, "A4"), tmp_path / "m.gif")
    assert str(e.value) == f"{tmp_path / 'm.gif'}: write a .pdf or a .png file"
