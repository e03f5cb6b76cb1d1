"""The tile reader's stages composed: table view -> grid -> candidate cells -> per-cell
look -> tile or not, face down or up -> shape and colour groups -> palette names."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.colour import ColourReference, measure_reference
from calibration.geometry import TableFit
from calibration.profile import TableProfile
from vision.tiles.config import TilesConfig
from vision.tiles.crops import normalise_crop, to_lab
from vision.tiles.face import CellGeometry, CellLook, analyse_cell
from vision.tiles.grid import GridFit, fit_grid
from vision.tiles.group import agglomerate, pairwise
from vision.tiles.occupancy import cell_stats, coarse_candidates, is_tile
from vision.tiles.palette import name_groups
from vision.tiles.view import grid_view_matrix, table_view_matrix, warp_view

F64 = NDArray[np.float64]


@dataclass
class TileReading:
    col: int                      # lattice cell (absolute, before re-basing at the pioneer)
    row: int
    centre_mm: tuple[float, float]
    face_down: bool
    look: CellLook
    shape_group: int | None = None
    colour_group: int | None = None
    shape: str | None = None      # palette label or "shape-N"
    colour: str | None = None


@dataclass
class TilesReading:
    grid: GridFit | None
    tiles: list[TileReading] = field(default_factory=list)
    origin_cell: tuple[int, int] = (0, 0)      # (col, row) of row 0 / col 0
    reference: str = ""
    shape_groups: int = 0
    colour_groups: int = 0

    def rc(self, t: TileReading) -> tuple[int, int]:
        return t.row - self.origin_cell[1], t.col - self.origin_cell[0]


def _area(profile: TableProfile) -> tuple[float, float, float, float]:
    x0, y0 = profile.area_origin_mm
    w, h = profile.area_size_mm
    return x0, y0, x0 + w, y0 + h


def read_tiles(image: NDArray[np.uint8], fit: TableFit, profile: TableProfile,
               cfg: TilesConfig | None = None, shapes: int | None = None,
               colours: int | None = None, palette: dict[str, Any] | None = None,
               reference: ColourReference | None = None) -> TilesReading:
    """Read every tile of one frame."""
    cfg = cfg or TilesConfig()
    ref = reference or measure_reference(image, fit, profile)
    x0, y0, x1, y1 = _area(profile)
    cpx = cfg.coarse_px_per_mm
    size = (max(8, int(round((x1 - x0) * cpx))), max(8, int(round((y1 - y0) * cpx))))
    coarse = warp_view(image, fit, table_view_matrix((x0, y0), cpx), size)
    centre = np.array([[(x0 + x1) / 2, (y0 + y1) / 2]])
    white = float(np.mean(ref.white_at(centre)[0]))
    grey = np.asarray(cv2.cvtColor(coarse, cv2.COLOR_BGR2GRAY), dtype=np.float32) / max(white, 1.0)
    grid = fit_grid(grey, cpx, (x0, y0), cfg)
    lab = to_lab(normalise_crop(coarse, ref, centre[0]))
    stats = cell_stats(lab, grid, cpx, (x0, y0), (x0, y0, x1, y1), cfg.face_ring, cfg.centre_fraction)
    out = TilesReading(grid, reference=ref.source)
    cells, table_lab, table_spread = coarse_candidates(stats, cfg)
    if not cells:
        return out
    cols = [c for c, _ in cells]
    rows = [r for _, r in cells]
    c0, r0 = min(cols), min(rows)
    nc, nr = max(cols) - c0 + 1, max(rows) - r0 + 1
    n = cfg.crop_px
    view = warp_view(image, fit, grid_view_matrix(grid, c0, r0, n), (nc * n, nr * n))
    geo = CellGeometry.make(n)
    found: list[TileReading] = []
    for c, r in cells:
        crop = view[(r - r0) * n:(r - r0 + 1) * n, (c - c0) * n:(c - c0 + 1) * n]
        ctr = grid.cell_centre_mm(c, r)
        bgr = normalise_crop(crop, ref, ctr)
        look = analyse_cell(bgr, to_lab(bgr), geo, cfg)
        if not is_tile(look, table_lab, table_spread, cfg):
            continue
        ux, uy = grid.axes
        pos = ctr + grid.pitch_mm * (look.offset[0] * ux + look.offset[1] * uy) if look.has_symbol else ctr
        found.append(TileReading(c, r, (float(pos[0]), float(pos[1])), False, look))
    _mark_face_down(found, cfg)
    out.tiles = found
    if found:
        out.origin_cell = (min(t.col for t in found), min(t.row for t in found))
    _group(out, cfg, shapes, colours)
    if palette:
        name_groups(out.tiles, palette)
    return out


def _mark_face_down(tiles: list[TileReading], cfg: TilesConfig) -> None:
    """Blank tiles, and tiles whose face is not the fronts' face colour, show their back."""
    fronts = [t.look.face_lab for t in tiles if t.look.has_symbol]
    if not fronts:
        for t in tiles:
            t.face_down = not t.look.has_symbol
        return
    faces = np.array(fronts)
    lab = np.array(agglomerate(pairwise(faces), cfg.facedown_delta_e))
    # The fronts are the face colour carrying the most different symbols: a tile
    # back's logo, or print on the table, repeats one symbol.
    sym = [t for t in tiles if t.look.has_symbol]
    colour_ids = np.array(agglomerate(pairwise(np.array([t.look.symbol_lab for t in sym])),
                                      cfg.colour_merge))
    best = max(set(lab.tolist()), key=lambda g: (len(set(colour_ids[lab == g].tolist())),
                                                   int(np.count_nonzero(lab == g))))
    front = np.median(faces[lab == best], axis=0)
    for t in tiles:
        far = float(np.linalg.norm(t.look.face_lab - front)) > cfg.facedown_delta_e
        t.face_down = (not t.look.has_symbol) or far


def _group(out: TilesReading, cfg: TilesConfig, shapes: int | None, colours: int | None) -> None:
    up = [t for t in out.tiles if not t.face_down]
    if not up:
        return
    dim = float(len(up[0].look.shape))
    sd = pairwise(np.array([t.look.shape for t in up])) / np.sqrt(dim)
    cd = pairwise(np.array([t.look.symbol_lab for t in up]))
    sg = agglomerate(sd, cfg.shape_merge, shapes)
    cg = agglomerate(cd, cfg.colour_merge, colours)
    for t, s, c in zip(up, sg, cg):
        t.shape_group, t.colour_group = s, c
        t.shape, t.colour = f"shape-{s + 1}", f"colour-{c + 1}"
    out.shape_groups = max(sg) + 1
    out.colour_groups = max(cg) + 1
