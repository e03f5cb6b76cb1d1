"""From a reader observation to the rules' City: the only place where vision's labels
(palette names or "shape-N" group ids) become the rules' shape and colour indices."""

from __future__ import annotations

from typing import Any, Sequence

from rules.errors import CouldNotRead
from rules.town77 import FACE_DOWN, SIDE, Cell, City, Tile, TileLabels
from rules.town77.city import Content


def group_labels() -> TileLabels:
    """The labels the reader gives without a palette: shape-1..7, colour-1..7."""
    return TileLabels(tuple(f"shape-{i + 1}" for i in range(SIDE)),
                      tuple(f"colour-{i + 1}" for i in range(SIDE)))


def palette_labels(palette: dict[str, Any]) -> TileLabels:
    """The taught names in palette order (teach writes them left to right)."""
    shapes = list(palette.get("shapes", {}))
    colours = list(palette.get("colours", {}))
    return TileLabels(tuple(shapes), tuple(colours))


def tile_of(entry: dict[str, Any], labels: TileLabels) -> Content:
    if entry.get("face_down"):
        return FACE_DOWN
    return labels.tile(str(entry["shape"]), str(entry["colour"]))


def city_from_tiles(tiles: Sequence[dict[str, Any]], labels: TileLabels | None = None) -> City:
    """The rules' city from an observation's "tiles"; raises CouldNotRead naming the
    cell when a tile lies outside the 7x7 city or a label is unknown."""
    labels = labels or group_labels()
    cells: list[Content] = [None] * (SIDE * SIDE)
    for t in tiles:
        cell = Cell(int(t["row"]), int(t["col"]))
        if not cell.in_area:
            raise CouldNotRead(f"tile at {cell} lies outside the 7x7 city; move it into the city")
        cells[cell.offset] = tile_of(t, labels)
    return City(tuple(cells))


def city_from_observation(obs: dict[str, Any], palette: dict[str, Any] | None = None) -> City:
    labels = palette_labels(palette) if palette else group_labels()
    return city_from_tiles(obs["tiles"], labels)


def tile_from_entry(entry: dict[str, Any], labels: TileLabels | None = None) -> Tile | None:
    """One observed face-up tile as a rules Tile (None when face down)."""
    content = tile_of(entry, labels or group_labels())
    return content if isinstance(content, Tile) else None
