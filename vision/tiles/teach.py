"""Learn names for shapes and colours from one photo of reference tiles laid in a row.

The reader already groups tiles without teaching; a palette only stores, per label,
the mean shape descriptor and the mean symbol colour (CIELAB, light-normalised) of the
reference tiles, so later frames' groups can be named.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from numpy.typing import NDArray

from calibration.geometry import TableFit
from vision.api import AnalyzeOptions, ReadError
from vision.tiles.config import TilesConfig
from vision.tiles.pipeline import TileReading
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
    """The face-up tiles of a teaching photo, left to right (one row)."""
    reading = read(image, fit, AnalyzeOptions(options.profile, None, {}, None), cfg=cfg)
    up = [t for t in reading.tiles if not t.face_down]
    if len(up) != count:
        raise ReadError(f"found {len(up)} face-up tiles but --labels names {count}; lay exactly "
                        "the labelled tiles face up in one row, left to right")
    rows = {t.row for t in up}
    if len(rows) != 1:
        raise ReadError(f"the reference tiles span {len(rows)} rows; lay them in one row, "
                        "left to right in --labels order")
    return sorted(up, key=lambda t: t.col)


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
