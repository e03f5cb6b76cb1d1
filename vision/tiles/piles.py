"""Tiles on piles beside a city (the Town 77 solo Challenge): each pile top read alone.

A pile of some fifteen tiles stands several millimetres tall, so the camera, looking down
from about a metre, sees its top displaced and enlarged off the table's lattice, with the
pile's sides beside it. One lattice fitted to the city and the piles together cuts a top in
two, or lays a cell's face ring on the table beside it; a top's face, in or out of a lamp's
spot, does not compare with the city's faces either. So the piles are found as objects
off the table's colour (grid.table_near) lying in one band below everything else, each
top is read on its own (the ordinary reader on a small area round it: a lone tile,
its lattice from its own outline), and the city is read with the piles painted out. A
pile top is a front when it shows a print (piles stand face up): that call does not
depend on how a lamp lights the city's faces. A lone pioneer beside the piles (the only
patch off the table but scraps) is read alone too: over the whole table the lattice
search on one tile is the table's (a mat's lines) to take. Shape and colour groups are then taken
over the city and the tops together, so labels agree across them.

read_with_piles is called only for the Challenge (vision.town77.reader, extra "piles");
read_tiles itself is unchanged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.colour import ColourReference, measure_reference
from calibration.geometry import TableFit
from calibration.profile import TableProfile
from calibration.sheets import QUIET_FRACTION
from vision.tiles.config import TilesConfig
from vision.tiles.crops import glared_crops, normalise_crop, normalise_crops, shoulder, to_lab
from vision.tiles.face import CellGeometry, analyse_cell, shape_distances
from vision.tiles.grid import GridFit, Outline, table_near, tile_outline
from vision.tiles.palette import name_groups
from vision.tiles.pipeline import TileReading, TilesReading, _area, _group, _mark_face_down, read_tiles, refined_look
from vision.tiles.view import grid_view_matrix, table_view_matrix, warp_view

F64 = NDArray[np.float64]


@dataclass
class Blob:
    """One patch off the table's colour in the coarse view (labels == index)."""

    indices: tuple[int, ...]                      # its labels in the coarse view
    centre_mm: tuple[float, float]
    box_mm: tuple[float, float, float, float]     # x0, y0, x1, y1 (table mm)
    theta: float                                  # its smallest rectangle's turn, within +-45 degrees
    short_mm: float                               # that rectangle's shorter side
    area_mm2: float
    fill: float                                   # the share of that rectangle it covers
    pts_mm: F64                                   # its pixels' centres (table mm)


def blobs(near: NDArray[np.bool_], cpx: float, origin: tuple[float, float],
          cfg: TilesConfig) -> tuple[list[Blob], NDArray[np.int32]]:
    """Patches off the table at least a small tile's size, and the coarse view's labels."""
    n, comp, st, _ = cv2.connectedComponentsWithStats((~near).astype(np.uint8), connectivity=8)
    lo = (cfg.pile_least * cfg.min_pitch_mm * cpx) ** 2
    out: list[Blob] = []
    for i in range(1, n):
        size = int(st[i, cv2.CC_STAT_AREA])
        if size < lo:
            continue
        x, y, w, h = (int(v) for v in st[i, :4])
        ys, xs = np.nonzero(comp[y:y + h, x:x + w] == i)
        pix = np.stack([xs + x, ys + y], 1).astype(np.float32)
        (_, _), (rw, rh), ang = cv2.minAreaRect(pix)
        theta = math.radians((float(ang) + 45.0) % 90.0 - 45.0)
        mm = np.stack([origin[0] + (pix[:, 0].astype(np.float64) + 0.5) / cpx,
                       origin[1] + (pix[:, 1].astype(np.float64) + 0.5) / cpx], 1)
        c = mm.mean(axis=0)
        out.append(Blob((i,), (float(c[0]), float(c[1])),
                        (float(mm[:, 0].min()), float(mm[:, 1].min()), float(mm[:, 0].max()), float(mm[:, 1].max())),
                        theta, (min(float(rw), float(rh)) + 1.0) / cpx, size / cpx ** 2,
                        size / max(1.0, (float(rw) + 1.0) * (float(rh) + 1.0)), mm))
    return out, np.asarray(comp, np.int32)


def closed_patches(near: NDArray[np.bool_], cpx: float, cfg: TilesConfig) -> NDArray[np.bool_]:
    """The table (True) with the patches off it closed over pile_close_mm and the table
    they wholly surround, up to a tile's area, taken in: a top of about the table's
    colour shows only its print and its pile's sides and shadow (bench Challenge games
    232, 235, 241: patches filling 27-54% of their rectangles), which close into a square."""
    off = (~near).astype(np.uint8)
    k = max(3, int(round(cfg.pile_close_mm * cpx)) | 1)
    off = np.asarray(cv2.morphologyEx(off, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))),
                     np.uint8)
    n, lbl = cv2.connectedComponents((1 - off).astype(np.uint8), connectivity=4)
    edge = np.unique(np.concatenate([lbl[0], lbl[-1], lbl[:, 0], lbl[:, -1]]))
    hole = np.bincount(lbl.ravel(), minlength=n) < (cfg.max_pitch_mm * cpx) ** 2
    hole[0] = False
    hole[edge] = False
    return np.asarray(~(off.astype(bool) | hole[lbl]))


def remembered_band(band: list[Blob], memory: list[Blob]) -> list[Blob]:
    """The piles where the band search last found all of them (`memory`, from an earlier
    look of this game) when it finds fewer now: it judges the whole table afresh on
    every look, and a lamp's spot joined to a pile, a tall pile reaching the area's
    corner or tops of about the table's colour make it find all piles on some looks and
    none on others, each such look then reading the piles as city tiles off its lattice
    (bench Challenge games 234, 266: strays, a misnumbered city). Piles stay put while
    their tops are taken: each remembered patch is this look's band patch holding it
    (their middles in each other's boxes), else the remembered patch itself; band
    patches holding none are dropped. Only a search's own whole band is remembered
    (never one made from memory), so a misread cannot walk from look to look."""
    def holds(a: Blob, b: Blob) -> bool:
        return _in_box(b.centre_mm, a.box_mm) or _in_box(a.centre_mm, b.box_mm)

    out: list[Blob] = []
    for m in memory:
        own = [b for b in band if holds(b, m) and all(b is not o for o in out)]
        out.append(own[0] if own else m)
    return out


def patch_dict(b: Blob) -> dict[str, Any]:
    """A pile's patch as an observation carries it (table mm; see remembered_band)."""
    return {"box_mm": [round(v, 1) for v in b.box_mm], "centre_mm": [round(v, 1) for v in b.centre_mm],
            "angle_deg": round(math.degrees(b.theta), 2), "side_mm": round(b.short_mm, 1)}


def patch_from(d: Any) -> Blob | None:
    """A pile's patch from patch_dict's form, or None when `d` is not one (a hint from
    the caller is only a hint: a malformed one is ignored)."""
    try:
        box = tuple(float(v) for v in d["box_mm"])
        c = tuple(float(v) for v in d["centre_mm"])
        theta, side = math.radians(float(d["angle_deg"])), float(d["side_mm"])
    except (KeyError, TypeError, ValueError):
        return None
    if len(box) != 4 or len(c) != 2 or not all(math.isfinite(v) for v in (*box, *c, theta, side)) \
            or side <= 0.0 or box[2] < box[0] or box[3] < box[1]:
        return None
    x0, y0, x1, y1 = box
    corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64)
    area = (x1 - x0) * (y1 - y0)
    return Blob((), (c[0], c[1]), (x0, y0, x1, y1), theta, side, area, 1.0, corners)


def pile_band(found: list[Blob], cfg: TilesConfig, piles: int) -> list[Blob]:
    """The blobs that are pile tops: the lowest band of blobs (along the tiles' own
    rows), each about one tile in size, at most `piles` of them, with a clear gap (an
    empty row, less the pile's lean) above them to everything else. None when the table
    shows no such band (the reader then reads the whole table as one)."""
    # a tile is a filled square: a lamp spot's rim (an arc) or a pile's side seen edge on
    # (a sliver) is not, and a scrap of a top the spot cut off is smaller than a tile
    found = [b for b in found if b.fill >= cfg.pile_fill and b.short_mm >= cfg.min_pitch_mm]
    if not found:
        return []
    theta = float(np.median([b.theta for b in found]))
    side = float(np.median([b.short_mm for b in found]))
    # pieces of one pile (a lamp's spot splits its top from its sides) joined first, the
    # tile's size then taken again, and scraps dropped
    found = _joined(found, cfg.pile_join * side)
    side = float(np.median([b.short_mm for b in found]))
    # (a tall pile's patch holds its top and the sides the camera sees beside it: wider
    # than any tile; bench Challenge game 47's piles, some 20 tiles up, 64-73 mm)
    if not cfg.min_pitch_mm <= side <= cfg.pile_tall * cfg.max_pitch_mm:
        return []
    found = [b for b in found if b.area_mm2 >= cfg.pile_scrap * side * side]
    band = _band_across(found, theta, side, cfg, piles)
    if len(band) < piles:
        # the piles' row turned off the patches' median turn (a pile's patch, its top and
        # the sides the camera sees, is no good square: bench Challenge game 266, piles
        # on a lattice turned 11 degrees, the middle one's patch a pile's side lower than
        # the first's, so the band held two and the first stood in its gap): the rows
        # through two tile-sized patches near that turn are tried, nearest first
        for turn in _row_turns(found, theta, side, cfg):
            turned = _band_across(found, turn, side, cfg, piles)
            if len(turned) == piles:
                return turned
    return band


def _row_turns(found: list[Blob], theta: float, side: float, cfg: TilesConfig) -> list[float]:
    """The turns of the lines through two patches a tile or more apart within
    pile_row_turn of `theta` (mod 90 degrees), nearest first."""
    out: list[tuple[float, float]] = []
    for i in range(len(found)):
        for j in range(i + 1, len(found)):
            d = np.asarray(found[j].centre_mm) - np.asarray(found[i].centre_mm)
            if float(np.hypot(*d)) < side:
                continue
            turn = math.atan2(float(d[1]), float(d[0]))
            off = (turn - theta + math.pi / 4) % (math.pi / 2) - math.pi / 4
            if 1e-6 < abs(off) <= math.radians(cfg.pile_row_turn):
                out.append((abs(off), theta + off))
    return [t for _, t in sorted(out)]


def _band_across(found: list[Blob], theta: float, side: float, cfg: TilesConfig, piles: int) -> list[Blob]:
    """pile_band's band for rows turned `theta`: [] when there is none."""
    if not found:
        return []
    uy = np.array([-math.sin(theta), math.cos(theta)])
    v = [b.pts_mm @ uy for b in found]
    mid = np.array([float(np.median(x)) for x in v])
    low = int(np.argmax(mid))
    band = [i for i in range(len(found)) if mid[i] >= mid[low] - cfg.pile_band * side]
    dropped: set[int] = set()
    if len(band) > piles:
        # a lamp's spot on the table beside the piles (bench Challenge game 34) is a patch
        # in the band too, but smaller than a pile's (its top, sides and shadow): the band
        # stands when what is over the count is that much smaller than the piles
        by_area = sorted(band, key=lambda i: -found[i].area_mm2)
        keep, over = by_area[:piles], by_area[piles:]
        typical = float(np.median([found[i].area_mm2 for i in keep]))
        if all(found[i].area_mm2 < cfg.pile_spot_share * typical for i in over):
            dropped = set(over)
            band = sorted(keep)
    if len(band) > piles or any(found[i].area_mm2 > cfg.pile_most_area * side * side or
                                found[i].short_mm < cfg.pile_least_side * side for i in band):
        return []
    if side > cfg.max_pitch_mm:
        # patches wider than any tile are tall piles only as the full count, alike in size:
        # a lamp's spot or two by the piles make them as wide (bench game 32: one spot
        # was the whole band)
        shorts = [found[i].short_mm for i in band]
        if len(band) != piles or max(shorts) > cfg.pile_tall_alike * min(shorts):
            return []
    rest = [i for i in range(len(found)) if i not in band and i not in dropped]
    if rest:
        gap = min(float(v[i].min()) for i in band) - max(float(v[i].max()) for i in rest)
        if gap < cfg.pile_gap * side:
            return []
    return sorted((found[i] for i in band), key=lambda b: float(b.pts_mm.mean(axis=0) @ np.array([uy[1], -uy[0]])))


def _box_gap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> float:
    """How far apart two boxes (x0, y0, x1, y1) lie along x or y; 0 or less: they touch."""
    return max(a[0] - b[2], b[0] - a[2], a[1] - b[3], b[1] - a[3])


def _in_box(p: tuple[float, float], box: tuple[float, float, float, float]) -> bool:
    """Whether a point lies in a box (x0, y0, x1, y1), edges included."""
    return box[0] <= p[0] <= box[2] and box[1] <= p[1] <= box[3]


def _joined(found: list[Blob], reach: float) -> list[Blob]:
    """Blobs whose boxes lie within `reach` of each other joined into one: a lamp's spot
    splits a pile's top from its sides, while piles stand pitches apart."""
    out = list(found)
    merged = True
    while merged:
        merged = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                a, b = out[i].box_mm, out[j].box_mm
                if _box_gap(a, b) <= reach:
                    x, y = out[i], out[j]
                    pts = np.concatenate([x.pts_mm, y.pts_mm])
                    c = pts.mean(axis=0)
                    (_, _), (rw, rh), ang = cv2.minAreaRect(pts.astype(np.float32))
                    area = x.area_mm2 + y.area_mm2
                    out[i] = Blob(x.indices + y.indices, (float(c[0]), float(c[1])),
                                  (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])),
                                  math.radians((float(ang) + 45.0) % 90.0 - 45.0), min(float(rw), float(rh)),
                                  area, area / max(1e-9, float(rw) * float(rh)), pts)
                    del out[j]
                    merged = True
                    break
            if merged:
                break
    return out


def reach_box(b: Blob, area: tuple[float, float, float, float], cfg: TilesConfig) -> tuple[float, float, float, float]:
    """Where a pile's top may lie: its blob's box grown by pile_margin of its side, and
    by a whole side where the play area's edge cuts the blob (a tall pile's top leans
    out past it, beyond the coarse view)."""
    pad = cfg.pile_margin * b.short_mm
    x0, y0, x1, y1 = b.box_mm
    # the pile's base lies from its top towards the camera (about the area's middle), its
    # sides there often near the table's colour (not in the blob)
    mx, my = 0.5 * (area[0] + area[2]), 0.5 * (area[1] + area[3])
    bx, by = 0.5 * (x0 + x1), 0.5 * (y0 + y1)
    base = cfg.pile_base * b.short_mm
    x0, x1 = (x0 - base, x1) if mx < bx else (x0, x1 + base)
    y0, y1 = (y0 - base, y1) if my < by else (y0, y1 + base)
    eps = 2.0
    return (x0 - (b.short_mm if x0 <= area[0] + eps else pad), y0 - (b.short_mm if y0 <= area[1] + eps else pad),
            x1 + (b.short_mm if x1 >= area[2] - eps else pad), y1 + (b.short_mm if y1 >= area[3] - eps else pad))


def painted(image: NDArray[np.uint8], fit: TableFit, which: list[Blob], area: tuple[float, float, float, float],
            cfg: TilesConfig) -> NDArray[np.uint8]:
    """The frame with each blob's reach_box painted over with the table round it (its
    colours blurred in from outside the box, pile_ring_mm wide, so a lamp's spot runs on
    across it without an edge): the city is read as though the piles were not there."""
    out = image.copy()
    h, w = image.shape[:2]
    for b in which:
        x0, y0, x1, y1 = reach_box(b, area, cfg)
        inner = fit.to_image(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float64))
        mm_px = float(np.linalg.norm(inner[1] - inner[0])) / max(1e-6, x1 - x0)
        sigma = max(1.0, cfg.pile_ring_mm * mm_px)
        m = int(math.ceil(3 * sigma))
        bx0, by0 = max(0, int(inner[:, 0].min()) - m), max(0, int(inner[:, 1].min()) - m)
        bx1, by1 = min(w, int(inner[:, 0].max()) + m + 1), min(h, int(inner[:, 1].max()) + m + 1)
        if bx1 <= bx0 or by1 <= by0:
            continue
        mask = np.zeros((by1 - by0, bx1 - bx0), np.uint8)
        cv2.fillPoly(mask, [np.round(inner - [bx0, by0]).astype(np.int32).reshape(-1, 1, 2)], (1,))
        if not np.any(mask) or np.all(mask):
            continue
        roi = out[by0:by1, bx0:bx1].astype(np.float32)
        # the table round the box, without what is not table (a marker, the pile's base)
        ring = (mask == 0) & (cv2.dilate(mask, np.ones((2 * m + 1, 2 * m + 1), np.uint8)) > 0)
        if not np.any(ring):
            continue
        med = np.median(roi[ring], axis=0)
        keep = ((mask == 0) & (np.abs(roi - med).max(axis=2) <= cfg.pile_paint_de)).astype(np.float32)
        fill = roi.copy()
        todo = mask > 0
        s = sigma
        while True:
            num = cv2.GaussianBlur(roi * keep[..., None], (0, 0), s)
            den = cv2.GaussianBlur(keep, (0, 0), s)
            ok = den > 1e-3
            fill[todo & ok] = num[todo & ok] / den[todo & ok][:, None]
            todo &= ~ok
            if not np.any(todo) or s > 8 * sigma:
                break
            s *= 2
        out[by0:by1, bx0:bx1][mask > 0] = np.clip(np.round(fill[mask > 0]), 0, 255).astype(np.uint8)
    return out


def _read_alone(image: NDArray[np.uint8], fit: TableFit, profile: TableProfile, b: Blob, ref: ColourReference,
                cfg: TilesConfig) -> TilesReading:
    """The ordinary reader on a patch's reach_box alone (its lattice then its own)."""
    x0, y0, x1, y1 = reach_box(b, _area(profile), cfg)
    small = replace(profile, area_origin_mm=(x0, y0), area_size_mm=(x1 - x0, y1 - y0))
    return read_tiles(image, fit, small, cfg, reference=ref)


def _alone(image: NDArray[np.uint8], fit: TableFit, profile: TableProfile, b: Blob, ref: ColourReference,
           cfg: TilesConfig) -> tuple[TileReading, float] | None:
    """One pile top read alone: the ordinary reader on the blob's reach_box; its top's
    reading, and its lattice's pitch."""
    r = _read_alone(image, fit, profile, b, ref, cfg)
    ax0, ay0, ax1, ay1 = _area(profile)
    lean = cfg.pile_lean * b.short_mm
    # (a table marker is no tile: a pile's patch reaching the area's corner reaches past
    # it by a side, over the marker there, whose print or edge then lay furthest out,
    # bench Challenge game 48's pile 3; nor is a print further past the area's edge than
    # a tall pile's top leans: game 48's, read at the table's corner beyond marker 2)
    up = [t for t in r.tiles if t.look.has_symbol and not _on_marker(t.centre_mm, profile)
          and _in_box(t.centre_mm, (ax0 - lean, ay0 - lean, ax1 + lean, ay1 + lean))]
    if not up or r.grid is None:
        return None
    # the camera looks down on about the play area's middle: a pile's top shows further
    # out from there than its sides (whose cut edges may read as a print), so the print
    # lying furthest out is the top's
    out = np.asarray(b.centre_mm) - np.array([0.5 * (ax0 + ax1), 0.5 * (ay0 + ay1)])
    out /= max(1e-9, float(np.linalg.norm(out)))
    # (of the prints nearly as clear as the clearest: a cutting mat's lines past the
    # pile read as a faint print too)
    clear = max(float(t.look.contrast) for t in up)
    up = [t for t in up if float(t.look.contrast) >= cfg.pile_clear_share * clear]
    best = max(up, key=lambda t: float(np.asarray(t.centre_mm) @ out))
    return best, r.grid.pitch_mm


def _on_marker(c: tuple[float, float], profile: TableProfile) -> bool:
    """Whether a table point lies on one of the profile's markers or the white quiet
    zone the marker sheets print round it (calibration.sheets.QUIET_FRACTION of its
    side): a print read there is the marker's or its edge's (bench game 48's pile 3 was
    read 27 mm from marker 2's middle)."""
    return any(abs(c[0] - m.centre_mm[0]) <= (0.5 + QUIET_FRACTION) * m.size_mm
               and abs(c[1] - m.centre_mm[1]) <= (0.5 + QUIET_FRACTION) * m.size_mm for m in profile.markers)


def read_at(image: NDArray[np.uint8], fit: TableFit, ref: ColourReference, centre: tuple[float, float],
            angle: float, pitch: float, cfg: TilesConfig) -> TileReading | None:
    """One tile read on a cell of `pitch` centred on `centre` (table mm), as the
    reader's last read reads each cell (pipeline._read_cells: normalised for the light
    there, a lamp's spot scaled to fit where its clip erased the print, a pale print
    looked for). The shape descriptor spans a share of the cell, so tiles read at one
    pitch compare (the city's; each top's own read may take another). None: no print."""
    n = cfg.crop_px
    ux = np.array([math.cos(angle), math.sin(angle)])
    uy = np.array([-math.sin(angle), math.cos(angle)])
    c = np.asarray(centre, dtype=np.float64)
    g = GridFit(angle, pitch, tuple(float(v) for v in c - 0.5 * pitch * (ux + uy)), 1.0)  # type: ignore[arg-type]
    view = warp_view(image, fit, grid_view_matrix(g, 0, 0, n), (n, n))
    whites = ref.white_at(c.reshape(1, 2))
    raw = normalise_crops(view.reshape(1, n, n, 3), ref, whites, clip=False)
    glared, scaled = glared_crops(raw, cfg.glare_over_share)
    bgr = shoulder(raw, 1.0)[0]
    lab = to_lab(bgr)
    geo = CellGeometry.make(n)
    look = refined_look(analyse_cell(bgr, lab, geo, cfg, True), bgr, lab,
                        (scaled[0], to_lab(scaled)[0]) if glared else None, geo, cfg, True, True)
    if not look.has_symbol:
        return None
    pos = c + pitch * (look.offset[0] * ux + look.offset[1] * uy)
    return TileReading(0, 0, (float(pos[0]), float(pos[1])), False, look)


def outline_about(image: NDArray[np.uint8], fit: TableFit, centre: tuple[float, float], angle: float,
                  pitch: float, cfg: TilesConfig, agree: float | None = None) -> Outline | None:
    """The tile outline about a print (table mm, as the camera sees it) whose side lies
    nearest the lattice's side (pitch less gap_mm), among those within `agree`
    (pile_side_agree) of it; on a view of its own, fine (pile_outline_px per mm), so a
    top beyond the play area's edge has one too. None: no such outline."""
    px = cfg.pile_outline_px
    half = 0.6 * cfg.max_pitch_mm + cfg.outline_near_mm + 2.0
    origin = (centre[0] - half, centre[1] - half)
    n = int(math.ceil(2 * half * px))
    view = warp_view(image, fit, table_view_matrix(origin, px), (n, n))
    grey = np.asarray(cv2.cvtColor(view, cv2.COLOR_BGR2GRAY), dtype=np.float32) / 230.0
    outs = tile_outline(grey, px, origin, np.asarray(centre, dtype=np.float64), angle, cfg, cfg.outline_near_mm)
    want = pitch - cfg.gap_mm
    near = [o for o in outs if abs(o.side_mm - want) <= (cfg.pile_side_agree if agree is None else agree) * want]
    return min(near, key=lambda o: abs(o.side_mm - want)) if near else None


def _enlarged(image: NDArray[np.uint8], fit: TableFit, ref: ColourReference, city: list[TileReading],
              at: list[tuple[tuple[float, float], float]], pitch: float,
              cfg: TilesConfig) -> list[TileReading | None]:
    """The tops read at how much larger than the city's tiles they look (the camera is
    nearer a tall pile's top: some 2-13% on the dev tables; a shape descriptor spans a
    share of its cell, so a top is read on a cell that much wider). One factor for
    every top (piles stand about equally tall), from pile_scales: the one at which the
    tops' shapes lie nearest the city's tiles' (the sum over tops of the nearest city
    tile's shape distance; a top of a shape the city lacks lies far at every factor,
    one it shares comes close at the right one). An outline's side is a few per cent
    off (a top's own cut edge and the pile under it widen it), too much to measure it by."""
    known = [t for t in city if not t.face_down and t.look.has_symbol]
    scales = cfg.pile_scales if known else (1.0,)
    best: tuple[float, list[TileReading | None]] | None = None
    for k in scales:
        got = [read_at(image, fit, ref, c, turn, pitch * k, cfg) for c, turn in at]
        up = [t for t in got if t is not None]
        if not up or not known:
            score = 0.0
        else:
            d = shape_distances(np.array([t.look.shape for t in up]), np.array([t.look.shape for t in known]),
                                cfg.shape_angles, cfg.shape_shift)
            score = float(np.sum(d.min(axis=1)))
        if best is None or score < best[0]:
            best = (score, got)
    assert best is not None
    return best[1]


def lone_tile(found: list[Blob], band: list[Blob], cfg: TilesConfig) -> Blob | None:
    """The one patch beside the piles when it is a lone tile (the pioneer): square, filled,
    of a tile's size, and nothing else off the table but scraps (less than pile_lone_scrap
    of its area). None otherwise."""
    rest = [b for b in found if all(_box_gap(b.box_mm, p.box_mm) > 0.0 for p in band)]
    tiles = [b for b in rest if b.fill >= cfg.pile_fill and cfg.min_pitch_mm <= b.short_mm <= cfg.max_pitch_mm
             and b.area_mm2 / b.fill <= cfg.pile_lone_square * b.short_mm ** 2]
    if len(tiles) != 1:
        return None
    one = tiles[0]
    if any(b is not one and b.area_mm2 >= cfg.pile_lone_scrap * one.area_mm2 for b in rest):
        return None
    return one


def _lone_city(image: NDArray[np.uint8], fit: TableFit, profile: TableProfile, b: Blob,
               ref: ColourReference, cfg: TilesConfig) -> TilesReading | None:
    """A lone pioneer read alone, as a pile top is, on the small area round its patch:
    over the whole table the lattice search on one tile is the table's to take (bench
    Challenge game 3: a cutting mat's lines turned it 18 degrees off the tile; game 21:
    a tracked fit 0.002 mm off the searched one lost the pioneer). None unless that read
    gives the one face-up tile, inside the patch."""
    r = _read_alone(image, fit, profile, b, ref, cfg)
    if r.grid is None or len(r.tiles) != 1:
        return None
    t = r.tiles[0]
    if t.face_down or not t.look.has_symbol or not _in_box(t.centre_mm, b.box_mm):
        return None
    return r


def _joint_colour(tiles: list[TileReading], cfg: TilesConfig) -> bool:
    """Whether the colour is on the face, judged over every tile (the city's and the
    tops'); the tiles' own face-down calls are left as they were."""
    kept = [(t.face_down, t.pale, t.look, t.colour_lab) for t in tiles]
    on_face = _mark_face_down(tiles, cfg)
    for t, (fd, pale, look, lab) in zip(tiles, kept):
        t.face_down, t.pale, t.look, t.colour_lab = fd, pale, look, lab
    for t in tiles:
        if not t.face_down:
            t.colour_lab = t.look.face_lab if on_face else t.look.symbol_lab
    return on_face


def _city(image: NDArray[np.uint8], fit: TableFit, profile: TableProfile, band: list[Blob],
          tops: list[TileReading], angle: float, ref: ColourReference, cfg: TilesConfig,
          grid_hint: GridFit | None) -> TilesReading:
    """The city's reading: on the frame with the piles painted out (their tall tops lie
    off any lattice the city's tiles sit on, and pull it), unless that lattice's pitch
    lies more than pile_pitch_agree off the tiles' size as the tops' outlines show it
    (side plus gap) while the whole frame's does not (a few tiles on a cutting mat: the
    piles' outlines helped the lattice search to the tiles' pitch), or is finer than
    any tile's (under pile_pitch_least of the piles' patches) while the whole frame's is
    not and lies nearer that size; then the whole frame's, without what lies in the
    piles' boxes."""
    area = _area(profile)
    alone = read_tiles(painted(image, fit, band, area, cfg), fit, profile, cfg, reference=ref, grid_hint=grid_hint)
    guess = float(np.median([b.short_mm for b in band]))
    sides = [o.side_mm for t in tops
             if (o := outline_about(image, fit, t.centre_mm, angle, guess, cfg, cfg.pile_first_agree)) is not None]
    if not sides or alone.grid is None:
        return alone
    size = float(np.median(sides)) + cfg.gap_mm

    def off(pitch: float) -> bool:
        return abs(pitch - size) > cfg.pile_pitch_agree * size

    if not off(alone.grid.pitch_mm):
        return alone
    whole = read_tiles(image, fit, profile, cfg, reference=ref, grid_hint=grid_hint)
    if whole.grid is None:
        return alone
    # a lattice finer than pile_pitch_least of the piles' patches is no tile's: a small
    # city on a cutting mat, painted round, is read on the mat's squares (bench Challenge
    # game 78: 18.8 mm under 55 mm patches); the whole frame's is then taken if nearer
    # the tops' size, though under it by more than pile_pitch_agree (a tall pile's
    # outline holds its top and a side: 52 mm tops over a 41.6 mm city)
    too_fine = alone.grid.pitch_mm < cfg.pile_pitch_least * guess
    if off(whole.grid.pitch_mm) and not (too_fine and whole.grid.pitch_mm >= cfg.pile_pitch_least * guess
                           and abs(whole.grid.pitch_mm - size) < abs(alone.grid.pitch_mm - size)):
        return alone
    boxes = [reach_box(b, area, cfg) for b in band]
    kept = [t for t in whole.tiles
            if not any(_in_box(t.centre_mm, bx) for bx in boxes)]
    out = TilesReading(whole.grid, kept, whole.origin_cell, whole.reference)
    if kept:
        out.origin_cell = (min(t.col for t in kept), min(t.row for t in kept))
    out.colour_on_face = whole.colour_on_face
    return out


def read_with_piles(image: NDArray[np.uint8], fit: TableFit, profile: TableProfile, piles: int,
                    cfg: TilesConfig | None = None, shapes: int | None = None, colours: int | None = None,
                    palette: dict[str, Any] | None = None, grid_hint: GridFit | None = None,
                    copies: int | None = None, memory: list[Blob] | None = None) -> TilesReading:
    """A city with up to `piles` piles below it: the city read with the piles painted
    out, each top read alone, groups over both. A pile top gets the city's lattice cell
    its middle lies in, flagged `pile` (a top stands off the city's lattice by its
    height, so its row says little); before the pioneer, the tops lie in row 0.
    memory: the piles' patches where an earlier look's band search found all of them
    (see remembered_band); the reading's pile_patches are this look's, when its own
    search finds them all."""
    cfg = cfg or TilesConfig()
    ref = measure_reference(image, fit, profile)
    x0, y0, x1, y1 = _area(profile)
    cpx = cfg.coarse_px_per_mm
    size = (max(8, int(round((x1 - x0) * cpx))), max(8, int(round((y1 - y0) * cpx))))
    coarse = warp_view(image, fit, table_view_matrix((x0, y0), cpx), size)
    centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
    lab = to_lab(normalise_crop(coarse, ref, centre, cfg.glare_knee))
    near = table_near(lab, cpx, cfg)
    band: list[Blob] = []
    found: list[Blob] = []
    remembered = False
    if near is not None:
        found, _ = blobs(near, cpx, (x0, y0), cfg)
        band = pile_band(found, cfg, piles)
        if len(band) < piles and memory and len(memory) == piles:
            band = remembered_band(band, memory)
            remembered = True
        elif len(band) < piles:
            # tops of about the table's colour show as their prints and their piles'
            # sides, rings with a gap, too ragged for tiles; closed, they are squares
            # (taken only whole: a closed patch that is no pile, a lamp's spot's ring, then
            # stands beside the piles found; bench Challenge game 133, two of three)
            found_closed, _ = blobs(closed_patches(near, cpx, cfg), cpx, (x0, y0), cfg)
            band_closed = pile_band(found_closed, cfg, piles)
            if len(band_closed) == piles:
                found, band = found_closed, band_closed
    # (only a search's own whole band is handed on, never one made from memory)
    whole = [patch_dict(b) for b in band] if len(band) == piles and not remembered else []
    tops: list[tuple[TileReading, float]] = []
    for b in band:
        got = _alone(image, fit, profile, b, ref, cfg)
        if got is not None:
            tops.append(got)
    tops_angle = float(np.median([b.theta for b in band])) if band else 0.0
    if not tops or near is None:
        plain = read_tiles(image, fit, profile, cfg, shapes, colours, palette, ref, grid_hint, copies)
        plain.pile_patches = whole
        return plain
    lone = lone_tile(found, band, cfg)
    city = (lone and _lone_city(image, fit, profile, lone, ref, cfg)) or \
        _city(image, fit, profile, band, [t for t, _ in tops], tops_angle, ref, cfg, grid_hint)
    out = TilesReading(city.grid, list(city.tiles), city.origin_cell, ref.source, pile_patches=whole)
    has_city = bool(city.tiles) and city.grid is not None
    if has_city:
        assert city.grid is not None
        g = city.grid
        oc, orow = city.origin_cell
        o = g.cell_centre_mm(oc, orow)
    else:
        # no city yet: the tops in row 0, a tile's width (its patch's) apart
        g = GridFit(tops_angle, float(np.median([b.short_mm for b in band])), (0.0, 0.0), 0.0)
        oc, orow = 0, 0
        ux0, _ = g.axes
        first = min((t for t, _ in tops), key=lambda t: float(np.asarray(t.centre_mm) @ ux0))
        o = np.asarray(first.centre_mm, dtype=np.float64)
    # every top re-read on a cell of the city's pitch enlarged as the tops look (before
    # the pioneer, of their outlines' median side), centred on its outline (a top's face
    # ring is its own, not the table's or its pile's sides), else on its print
    if has_city:
        pitch = g.pitch_mm
        outlines = [outline_about(image, fit, t.centre_mm, tops_angle, pitch, cfg) for t, _ in tops]
    else:
        guess = float(np.median([b.short_mm for b in band]))      # a top and its pile's sides
        outlines = [outline_about(image, fit, t.centre_mm, tops_angle, guess, cfg, cfg.pile_first_agree)
                    for t, _ in tops]
        sides = [o.side_mm for o in outlines if o is not None]
        pitch = float(np.median(sides)) + cfg.gap_mm if sides else guess
    at = [(ol.centre_mm, ol.angle_rad) if ol is not None else (t.centre_mm, tops_angle)
          for (t, _), ol in zip(tops, outlines)]
    read = _enlarged(image, fit, ref, city.tiles, at, pitch, cfg)
    tops = [(r if r is not None else t, p) for (t, p), r in zip(tops, read)]
    # the tops' columns along their own rows (the band's turn: a small city's lattice may
    # be turned off the tiles'), counted in the city's pitch
    ux, uy = GridFit(tops_angle, 1.0, (0.0, 0.0), 0.0).axes
    for t, _ in tops:
        # the city's cell the top's middle lies in (a top stands off the lattice by its
        # height; the caller knows it for a pile's by the flag)
        d = np.asarray(t.centre_mm, dtype=np.float64) - o
        t.col = oc + int(round(float(d @ ux) / g.pitch_mm))
        t.row = orow + int(round(float(d @ uy) / g.pitch_mm))
        t.face_down = False       # piles stand face up: a print is a front, however lit
        t.pile = True
        out.tiles.append(t)
    out.colour_on_face = _joint_colour(out.tiles, cfg)
    _group(out, cfg, shapes, colours, copies)
    if palette:
        name_groups(out.tiles, palette, cfg.shape_angles, cfg.shape_shift)
    return out
