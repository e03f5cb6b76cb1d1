"""The generic shape-and-colour tile reader (`tableref analyze --game tiles`): a grid of
square tiles, each read as (shape, colour), grouped without teaching, named with a
palette. Schema: docs/analyze-schema.md, section "tiles / town77"."""

from __future__ import annotations

import math
from dataclasses import replace
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from calibration.geometry import TableFit
from calibration.profile import TableProfile
from vision.api import AnalyzeOptions, ReadError
from vision.tiles.config import TilesConfig
from vision.tiles.grid import GridFit
from vision.tiles.group import OWN_GROUP
from vision.tiles.pipeline import TileReading, TilesReading, read_tiles

if TYPE_CHECKING:
    from vision.tiles.piles import Blob

GAME = "tiles"


def _count(extra: dict[str, Any], key: str) -> int | None:
    v = extra.get(key)
    if v is None:
        return None
    if not isinstance(v, int) or v < 1:
        raise ReadError(f"--{key} {v!r}: must be a positive whole number")
    return v


def play_area(fit: TableFit, options: AnalyzeOptions) -> TableProfile:
    """The profile to read with: with --corners, the corners' rectangle is the area."""
    area = options.extra.get("area_mm")
    if fit.source == "corners" and area is not None:
        return replace(options.profile, area_origin_mm=(0.0, 0.0),
                       area_size_mm=(float(area[0]), float(area[1])))
    return options.profile


def read(image: NDArray[np.uint8], fit: TableFit, options: AnalyzeOptions,
         shapes: int | None = None, colours: int | None = None,
         cfg: TilesConfig | None = None, copies: int | None = None) -> TilesReading:
    """copies: how many tiles of each (shape, colour) the game's box holds (Town 77: 1;
    None: any number), so a reading never holds more (group.one_of_each)."""
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ReadError("expected an 8-bit colour (BGR) image; re-capture or re-export it")
    shapes = shapes if shapes is not None else _count(options.extra, "shapes")
    colours = colours if colours is not None else _count(options.extra, "colours")
    copies = copies if copies is not None else _count(options.extra, "copies")
    piles = _count(options.extra, "piles")
    if piles is not None:
        # tiles standing on piles below the city (the Town 77 solo Challenge): each top read alone
        from vision.tiles.piles import read_with_piles
        return read_with_piles(image, fit, play_area(fit, options), piles, cfg, shapes, colours,
                               options.palette, grid_hint=grid_from_dict(options.extra.get("grid")),
                               copies=copies, memory=_patches(options.extra.get("pile_patches"), piles))
    return read_tiles(image, fit, play_area(fit, options), cfg, shapes, colours, options.palette,
                      grid_hint=grid_from_dict(options.extra.get("grid")), copies=copies)


def _patches(v: Any, piles: int) -> list[Blob] | None:
    """The piles' patches an earlier observation carried (vision.tiles.piles.patch_dict),
    or None unless `v` holds one well-formed patch per pile."""
    from vision.tiles.piles import patch_from
    if not isinstance(v, (list, tuple)) or len(v) != piles:
        return None
    kept = [b for d in v if (b := patch_from(d)) is not None]
    return kept if len(kept) == piles else None


def grid_from_dict(d: Any) -> GridFit | None:
    """The lattice of an earlier observation's "grid" (see grid_dict), or None."""
    if not isinstance(d, dict):
        return None
    try:
        pitch, angle = float(d["pitch_mm"]), math.radians(float(d["angle_deg"]))
        ox, oy = (float(v) for v in d["origin_mm"])
    except (KeyError, TypeError, ValueError):
        return None
    if not (pitch > 0 and math.isfinite(pitch + angle + ox + oy)):
        return None
    ux = np.array([math.cos(angle), math.sin(angle)])
    uy = np.array([-math.sin(angle), math.cos(angle)])
    gap = np.array([ox, oy]) - 0.5 * pitch * (ux + uy)
    return GridFit(angle, pitch, (float(gap[0]), float(gap[1])), 1.0)


def _group_names(reading: TilesReading, kind: str) -> dict[int, str]:
    """Group id -> the label its tiles carry; OWN_GROUP -> a label no tile carries."""
    votes: dict[int, dict[str, int]] = {}
    for t in reading.tiles:
        gid, name = getattr(t, f"{kind}_group"), getattr(t, kind)
        if not t.face_down and gid is not None and name is not None:
            tally = votes.setdefault(int(gid), {})
            tally[str(name)] = tally.get(str(name), 0) + 1
    # the label most of a group's tiles carry (a palette may name a tile apart from its
    # group: palette.name_groups), the first of them on a tie
    names = {gid: max(tally, key=lambda n: tally[n]) for gid, tally in votes.items()}
    count = reading.shape_groups if kind == "shape" else reading.colour_groups
    own = f"{kind}-{count + 1}"
    names[OWN_GROUP] = own if own not in names.values() else f"{kind}-new"
    return names


def candidates(reading: TilesReading, t: TileReading) -> list[dict[str, Any]]:
    """The readings the grouping hesitated over for a face-up tile: its shape or its
    colour read as the runner-up group's, or as one of its own (group.hesitations)."""
    if t.face_down:
        return []
    out: list[dict[str, Any]] = []
    shapes, colours = _group_names(reading, "shape"), _group_names(reading, "colour")
    for g in t.shape_candidates:
        if g in shapes:
            out.append({"shape": shapes[g], "colour": t.colour})
    for g in t.colour_candidates:
        if g in colours:
            out.append({"shape": t.shape, "colour": colours[g]})
    return out


def tile_dicts(reading: TilesReading) -> list[dict[str, Any]]:
    out = []
    for t in reading.tiles:
        r, c = reading.rc(t)
        d: dict[str, Any] = {"row": r, "col": c,
                             "centre_mm": [round(t.centre_mm[0], 1), round(t.centre_mm[1], 1)],
                             "face_down": t.face_down,
                             "shape": None if t.face_down else t.shape,
                             "colour": None if t.face_down else t.colour}
        if t.pile:
            d["pile"] = True
        alt = candidates(reading, t)
        if alt:
            d["candidates"] = alt
        out.append(d)
    out.sort(key=lambda d: (d["row"], d["col"]))
    return out


def line_conflicts(tiles: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Face-up tiles sharing a row or a column and a shape or a colour."""
    up = [t for t in tiles if not t["face_down"]]
    out: list[dict[str, Any]] = []
    for a, b in combinations(up, 2):
        if a["row"] != b["row"] and a["col"] != b["col"]:
            continue
        for kind in ("shape", "colour"):
            if a[kind] is not None and a[kind] == b[kind]:
                out.append({"cells": [[a["row"], a["col"]], [b["row"], b["col"]]], "kind": kind})
    return out


def grid_dict(reading: TilesReading) -> dict[str, Any] | None:
    g = reading.grid
    if g is None:
        return None
    o = g.cell_centre_mm(reading.origin_cell[0], reading.origin_cell[1])
    return {"pitch_mm": round(g.pitch_mm, 2), "angle_deg": round(math.degrees(g.angle_rad), 2),
            "origin_mm": [round(float(o[0]), 1), round(float(o[1]), 1)]}


def observation(reading: TilesReading, game: str) -> dict[str, Any]:
    tiles = tile_dicts(reading)
    return {"game": game, "tiles": tiles, "conflicts": line_conflicts(tiles),
            "grid": grid_dict(reading),
            "groups": {"shapes": reading.shape_groups, "colours": reading.colour_groups},
            "light": reading.reference, **({"pile_patches": reading.pile_patches} if reading.pile_patches else {})}


def analyze(image: NDArray[np.uint8], fit: TableFit, options: AnalyzeOptions) -> dict[str, Any]:
    return observation(read(image, fit, options), GAME)
