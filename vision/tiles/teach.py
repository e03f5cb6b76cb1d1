"""Learn names for shapes and colours from one photo of reference tiles laid in a row.

The reader already groups tiles without teaching; a palette only stores, per label,
the mean shape descriptor and the mean symbol colour (CIELAB, light-normalised) of the
reference tiles, so later frames' groups can be named.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
from numpy.typing import NDArray

from calibration.geometry import TableFit
from vision.api import AnalyzeOptions, ReadError
from vision.tiles.config import TilesConfig
from vision.tiles.grid import quarter_turn
from vision.tiles.pipeline import TileReading, TilesReading
from vision.tiles.reader import read


def parse_labels(labels: Sequence[str]) -> list[tuple[str, str]]:
    """'shape:colour' per tile, left to right; one-line errors name the bad item."""
    out: list[tuple[str, str]] = []
    for item in labels:
        parts = item.strip().split(":")
        if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
            raise ReadError(f"--labels '{item}': write each tile as shape:colour, e.g. circle:red")
        pair = (parts[0].strip(), parts[1].strip())
        if pair in out:
            raise ReadError(f"--labels: '{item}' is listed twice; each reference tile is one "
                            "shape:colour pair")
        out.append(pair)
    if not out:
        raise ReadError("--labels is empty; name the tiles left to right, e.g. "
                        "--labels circle:red,star:blue")
    return out


def check_labels(labels: Sequence[str]) -> None:
    """Refuse bad labels before any photo is read."""
    parse_labels(labels)


def reference_tiles(image: NDArray[np.uint8], fit: TableFit, options: AnalyzeOptions,
                    count: int, cfg: TilesConfig | None = None) -> list[TileReading]:
    """The face-up tiles of a teaching photo, left to right (one row).

    A lone row gives the reader's lattice search little to go on (one line of tiles,
    no second row to fix the pitch): it may cut the row finer than its tiles or lose
    some. When the count is wrong, the row's own lattice is tried: its direction and
    pitch fitted to the prints that were found (row_lattices), each read again on it,
    the first that gives `count` face-up tiles in one row kept."""
    reading = read(image, fit, AnalyzeOptions(options.profile, None, {}, None), cfg=cfg)
    up = _row_run(_face_up(reading), count)
    if len(up) != count:
        for hint in row_lattices([t.centre_mm for t in up], count):
            again = _row_run(_face_up(read(image, fit, AnalyzeOptions(options.profile, None, {"grid": hint}, None),
                                           cfg=cfg)), count)
            if len(again) == count and len({t.row for t in again}) == 1:
                up = again
                break
    if len(up) != count:
        raise ReadError(f"found {len(up)} face-up tiles but --labels names {count}; lay exactly "
                        "the labelled tiles face up in one row, left to right")
    rows = {t.row for t in up}
    if len(rows) != 1:
        raise ReadError(f"the reference tiles span {len(rows)} rows; lay them in one row, "
                        "left to right in --labels order")
    return sorted(up, key=lambda t: t.col)


def _face_up(reading: TilesReading) -> list[TileReading]:
    return [t for t in reading.tiles if not t.face_down]


def _row_run(tiles: list[TileReading], count: int) -> list[TileReading]:
    """The `count` tiles side by side in one row, when more were found and exactly one
    such run lies among them (a cup's rim or a card beside the row read as a print is
    not a teaching tile); else the tiles as found."""
    if len(tiles) <= count:
        return tiles
    at = {(t.row, t.col): t for t in tiles}
    runs = [[at[(r, c + k)] for k in range(count)] for r, c in sorted(at)
            if all((r, c + k) in at for k in range(count))]
    return runs[0] if len(runs) == 1 else tiles


def row_lattices(centres: Sequence[Any], count: int) -> list[dict[str, Any]]:
    """Lattices (as the reader's "grid" hints: pitch, angle, the first cell's centre) for
    a row of `count` tiles through print centres found on it (table mm), some of them
    perhaps phantoms or some tiles missing: the row runs along the centres' main
    direction; its pitch is tried as the centres' span over count - 1 (ends found,
    the middle cut too fine) and as their median step (a few tiles lost), each
    refined by a least-squares fit of the centres to whole cells (all of them, and
    those near whole cells alone)."""
    pts = np.asarray(centres, dtype=np.float64).reshape(-1, 2)
    if len(pts) < 2 or count < 2:
        return []
    mid = pts.mean(axis=0)
    _, _, vt = np.linalg.svd(pts - mid)
    u = vt[0] if vt[0][0] >= 0 else -vt[0]
    v = np.array([-u[1], u[0]])
    along = np.sort((pts - mid) @ u)
    span = float(along[-1] - along[0])
    steps = np.diff(along)
    coarse = span / (count - 1)
    whole = steps[steps > 0.5 * coarse]       # steps between two tiles, not a phantom's
    tries = [coarse, float(np.median(whole)) if whole.size else 0.0]
    angle = quarter_turn(math.atan2(float(u[1]), float(u[0])))
    out: list[dict[str, Any]] = []
    for pitch in tries:
        if not pitch > 0:
            continue
        n = np.round((along - along[0]) / pitch)
        if n[-1] + 1 > count or n[-1] < 1:
            continue
        # every centre, and those near whole cells alone (a phantom between two tiles
        # left out): on a messy reading either may be the one that holds
        near = np.abs(along - along[0] - n * pitch) < 0.25 * pitch
        for on in (np.ones_like(near), near):
            if np.count_nonzero(on) < 2 or len(set(n[on].tolist())) < 2:
                continue
            design = np.stack([np.ones_like(n[on]), n[on]], axis=1)
            (a, p), *_ = np.linalg.lstsq(design, along[on], rcond=None)
            if not p > 0:
                continue
            first = mid + a * u + float(np.median((pts - mid) @ v)) * v
            hint = {"pitch_mm": float(p), "angle_deg": math.degrees(angle),
                    "origin_mm": [float(first[0]), float(first[1])]}
            if all(abs(h["pitch_mm"] - hint["pitch_mm"]) > 0.01 * p or
                   np.hypot(h["origin_mm"][0] - first[0], h["origin_mm"][1] - first[1]) > 0.05 * p for h in out):
                out.append(hint)
    return out


def build_palette(game: str, pairs: Sequence[tuple[str, str]], tiles: Sequence[TileReading],
                  cfg: TilesConfig) -> dict[str, Any]:
    shapes: dict[str, list[NDArray[np.float32]]] = {}
    colours: dict[str, list[NDArray[np.float64]]] = {}
    for (shape, colour), t in zip(pairs, tiles):
        shapes.setdefault(shape, []).append(t.look.shape)
        colours.setdefault(colour, []).append(np.asarray(t.colour_lab, dtype=np.float64))
    return {
        "game": game,
        "kind": "tiles",
        "descriptor": {"shape_angles": cfg.shape_angles, "shape_radii": cfg.shape_radii,
                       "shape_span": cfg.shape_span},
        "shapes": {k: {"descriptor": [round(float(x), 4) for x in np.mean(v, axis=0)]}
                   for k, v in shapes.items()},
        "colours": {k: {"lab": [round(float(x), 2) for x in np.mean(v, axis=0)]}
                    for k, v in colours.items()},
    }


def teach(image: NDArray[np.uint8], fit: TableFit, labels: Sequence[str],
          options: AnalyzeOptions, game: str = "tiles") -> dict[str, Any]:
    cfg = TilesConfig()
    pairs = parse_labels(labels)
    tiles = reference_tiles(image, fit, options, len(pairs), cfg)
    return build_palette(game, pairs, tiles, cfg)
