"""Printable marker sheets at true scale: the table's corner markers (with id, size and
where each goes) and the ChArUco lens board, each page with a 100 mm ruler so the print
scale can be checked before a game. PNG pages carry their DPI; PDF pages get their
physical size from the same DPI (Pillow's PDF writer), so both print at 100%."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from calibration.charuco import DEFAULT_BOARD, CharucoSpec, board_image
from calibration.profile import Marker, TableProfile

PAPERS_MM: dict[str, tuple[float, float]] = {"A4": (210.0, 297.0), "A3": (297.0, 420.0),
                                            "LETTER": (215.9, 279.4)}
MARGIN_MM = 12.0          # most printers cannot print closer to the edge than ~5 mm
QUIET_FRACTION = 0.25     # white border around each marker, in marker sizes
LABEL_MM = 9.0            # room under a marker for its label
RULER_MM = 22.0           # room at the foot of the page for the ruler


class SheetError(ValueError):
    """A sheet that cannot be made; the message says what to change."""


@dataclass
class Page:
    image: Image.Image       # mode "L", 1 px = 25.4 / dpi mm
    dpi: int

    def px(self, mm: float) -> int:
        return int(round(mm * self.dpi / 25.4))


def paper_size_mm(paper: str, landscape: bool = False) -> tuple[float, float]:
    key = paper.upper()
    if key not in PAPERS_MM:
        raise SheetError(f"unknown paper '{paper}'; use A4, A3 or Letter")
    w, h = PAPERS_MM[key]
    return (h, w) if landscape else (w, h)


def _blank(paper_mm: tuple[float, float], dpi: int) -> Page:
    if not 72 <= dpi <= 1200:
        raise SheetError(f"--dpi {dpi} is out of range; use 150 to 600 (300 is typical)")
    size = (int(round(paper_mm[0] * dpi / 25.4)), int(round(paper_mm[1] * dpi / 25.4)))
    return Page(Image.new("L", size, 255), dpi)


def _font(page: Page, mm: float) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=max(8, page.px(mm)))


def draw_ruler(page: Page, x_mm: float, y_mm: float) -> None:
    """A 100 mm ruler with mm ticks (longer every 5 and 10 mm) and a label."""
    d = ImageDraw.Draw(page.image)
    x0, y0 = page.px(x_mm), page.px(y_mm)
    d.line([(x0, y0), (page.px(x_mm + 100.0), y0)], fill=0, width=max(1, page.px(0.3)))
    for i in range(101):
        length = 6.0 if i % 10 == 0 else (4.0 if i % 5 == 0 else 2.5)
        x = page.px(x_mm + i)
        d.line([(x, y0), (x, y0 + page.px(length))], fill=0, width=max(1, page.px(0.2)))
        if i % 10 == 0:
            d.text((x, y0 + page.px(6.5)), str(i // 10), fill=0, font=_font(page, 2.5), anchor="mt")
    d.text((page.px(x_mm + 104.0), y0), "100 mm: measure it; if it is not 100 mm, print at "
           "100% / actual size", fill=0, font=_font(page, 2.8), anchor="lt")


def draw_marker(page: Page, dictionary: str, marker_id: int, x_mm: float, y_mm: float,
                size_mm: float) -> None:
    """The marker's 6x6 modules with each module edge rounded to the nearest device pixel,
    so the whole marker is true size to within one pixel."""
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    bits = d.markerSize + 2
    grid = cv2.aruco.generateImageMarker(d, marker_id, bits, borderBits=1)
    draw = ImageDraw.Draw(page.image)
    edges_x = [page.px(x_mm + size_mm * i / bits) for i in range(bits + 1)]
    edges_y = [page.px(y_mm + size_mm * i / bits) for i in range(bits + 1)]
    for r in range(bits):
        for c in range(bits):
            if grid[r, c] < 128:
                draw.rectangle([edges_x[c], edges_y[r], edges_x[c + 1] - 1, edges_y[r + 1] - 1], fill=0)


def where_it_goes(profile: TableProfile, marker: Marker) -> str:
    """'top-left of the play area' etc. from the marker centre vs the area centre."""
    ax = profile.area_origin_mm[0] + profile.area_size_mm[0] / 2
    ay = profile.area_origin_mm[1] + profile.area_size_mm[1] / 2
    x, y = marker.centre_mm
    if abs(x - ax) < 1e-6 or abs(y - ay) < 1e-6:
        return f"at {x:g},{y:g} mm"
    return f"{'top' if y < ay else 'bottom'}-{'left' if x < ax else 'right'} of the play area"


def marker_pages(profile: TableProfile, dpi: int = 300, paper: str = "A4") -> list[Page]:
    """As many markers per page as fit, each with its quiet zone, cut line and label."""
    pw, ph = paper_size_mm(paper)
    if not profile.markers:
        raise SheetError(f"profile '{profile.name}' lists no markers; nothing to print")
    pages: list[Page] = []
    x = y = MARGIN_MM
    row_h = 0.0
    page: Page | None = None
    for m in profile.markers:
        cell_w = m.size_mm * (1 + 2 * QUIET_FRACTION)
        cell_h = cell_w + LABEL_MM
        if cell_w > pw - 2 * MARGIN_MM or cell_h > ph - 2 * MARGIN_MM - RULER_MM:
            raise SheetError(f"a {m.size_mm:g} mm marker does not fit on {paper}; "
                             "use --paper A3 or a smaller marker size in the profile")
        if page is not None and x + cell_w > pw - MARGIN_MM:
            x, y, row_h = MARGIN_MM, y + row_h + 4.0, 0.0
        if page is None or y + cell_h > ph - MARGIN_MM - RULER_MM:
            page = _blank((pw, ph), dpi)
            pages.append(page)
            x, y, row_h = MARGIN_MM, MARGIN_MM, 0.0
        q = m.size_mm * QUIET_FRACTION
        draw = ImageDraw.Draw(page.image)
        # dashed cut line around the quiet zone
        x0, y0, x1, y1 = page.px(x), page.px(y), page.px(x + cell_w), page.px(y + cell_w)
        dash = max(2, page.px(2.0))
        for t in range(x0, x1, 2 * dash):
            draw.line([(t, y0), (min(t + dash, x1), y0)], fill=150)
            draw.line([(t, y1), (min(t + dash, x1), y1)], fill=150)
        for t in range(y0, y1, 2 * dash):
            draw.line([(x0, t), (x0, min(t + dash, y1))], fill=150)
            draw.line([(x1, t), (x1, min(t + dash, y1))], fill=150)
        draw_marker(page, profile.dictionary, m.id, x + q, y + q, m.size_mm)
        label = f"id {m.id}  {m.size_mm:g} mm  {where_it_goes(profile, m)}"
        draw.text((page.px(x + cell_w / 2), page.px(y + cell_w + 1.5)), label, fill=0,
                  font=_font(page, min(3.2, cell_w / 18)), anchor="mt")
        x += cell_w + 4.0
        row_h = max(row_h, cell_h)
    for p in pages:
        draw_ruler(p, MARGIN_MM, ph - MARGIN_MM - RULER_MM + 4.0)
        ImageDraw.Draw(p.image).text((p.px(MARGIN_MM), p.px(ph - MARGIN_MM - 4.0)),
                                     f"tableref markers for '{profile.name}' ({profile.dictionary}); "
                                     "marker 0 top-left, then clockwise", fill=0,
                                     font=_font(p, 2.8), anchor="lt")
    return pages


def charuco_page(spec: CharucoSpec = DEFAULT_BOARD, dpi: int = 300, paper: str = "A4") -> tuple[Page, CharucoSpec]:
    """The lens board on a landscape page, squares enlarged to fill bigger paper."""
    pw, ph = paper_size_mm(paper, landscape=True)
    room_w = pw - 2 * MARGIN_MM
    room_h = ph - 2 * MARGIN_MM - RULER_MM
    square = min(room_w / spec.squares_x, room_h / spec.squares_y)
    square = float(np.floor(min(square, 60.0)))
    if square < 10.0:
        raise SheetError(f"the ChArUco board does not fit on {paper}; use --paper A4 or larger")
    board = spec.scaled(square) if square != spec.square_mm else spec
    page = _blank((pw, ph), dpi)
    w_mm, h_mm = board.size_mm
    x_mm = (pw - w_mm) / 2
    y_mm = MARGIN_MM
    img = board_image(board, dpi / 25.4)
    page.image.paste(Image.fromarray(img), (page.px(x_mm), page.px(y_mm)))
    draw_ruler(page, MARGIN_MM, ph - MARGIN_MM - RULER_MM + 4.0)
    ImageDraw.Draw(page.image).text(
        (page.px(MARGIN_MM), page.px(ph - MARGIN_MM - 4.0)),
        f"ChArUco lens board: {board.squares_x}x{board.squares_y} squares of {board.square_mm:g} mm, "
        f"markers {board.marker_mm:g} mm, {board.dictionary}. Glue it flat to card.",
        fill=0, font=_font(page, 2.8), anchor="lt")
    return page, board


def save_pages(pages: list[Page], out: str | Path) -> list[Path]:
    """PDF (all pages in one file) or PNG (one file per page: NAME.png, NAME-2.png...)."""
    p = Path(out)
    suffix = p.suffix.lower()
    if suffix not in (".pdf", ".png"):
        raise SheetError(f"{p}: write a .pdf or a .png file")
    if not p.parent.exists():
        raise SheetError(f"{p.parent}: no such folder; create it or choose another --out")
    dpi = pages[0].dpi
    if suffix == ".pdf":
        first, rest = pages[0].image, [pg.image for pg in pages[1:]]
        first.save(p, "PDF", resolution=float(dpi), save_all=True, append_images=rest)
        return [p]
    written = []
    for i, pg in enumerate(pages):
        q = p if i == 0 else p.with_name(f"{p.stem}-{i + 1}{p.suffix}")
        pg.image.save(q, "PNG", dpi=(dpi, dpi))
        written.append(q)
    return written
