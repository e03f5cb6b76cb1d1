"""From a reader observation to the rules' City, and Town 77's own conflicts."""

from __future__ import annotations

import pytest

from rules.errors import CouldNotRead
from vision.town77.adapter import city_from_observation
from vision.town77.reader import city_conflicts


def _t(r: int, c: int, s: str | None, col: str | None, fd: bool = False) -> dict[str, object]:
    return {"row": r, "col": c, "centre_mm": [0.0, 0.0], "face_down": fd, "shape": s, "colour": col}


def test_group_ids_become_tile_indices() -> None:
    """shape-N / colour-N (no palette) map to indices N-1; face down stays face down."""
    obs = {"tiles": [_t(0, 0, "shape-1", "colour-3"), _t(0, 1, None, None, True),
                     _t(1, 0, "shape-7", "colour-1")]}
    assert city_from_observation(obs).notation().split("/")[:2] == ["a2##..........", "g0............"]


def test_palette_names_become_indices_in_taught_order() -> None:
    """With a palette, names map to their position in the palette."""
    palette = {"shapes": {n: {} for n in "abcdefg"}, "colours": {f"c{i}": {} for i in range(7)}}
    obs = {"tiles": [_t(0, 0, "c", "c6")]}
    assert city_from_observation(obs, palette).notation().startswith("c6")


def test_outside_the_city_is_refused_with_the_cell() -> None:
    """A tile beyond the 7x7 city is a CouldNotRead naming its position."""
    with pytest.raises(CouldNotRead) as e:
        city_from_observation({"tiles": [_t(0, 7, "shape-1", "colour-1")]})
    assert str(e.value) == "tile at row 1 col 8 lies outside the 7x7 city; move it into the city"


def test_city_conflicts_outside_and_detached() -> None:
    """Tiles past row/col 7 are 'outside'; tiles no chain of sides joins to the pioneer are 'detached'."""
    tiles = [_t(0, 0, "shape-1", "colour-1"), _t(0, 1, "shape-2", "colour-2"),
             _t(2, 2, "shape-3", "colour-3"), _t(0, 7, "shape-4", "colour-4")]
    assert city_conflicts(tiles) == [{"cells": [[0, 7]], "kind": "outside"},
                                     {"cells": [[0, 7]], "kind": "detached"},
                                     {"cells": [[2, 2]], "kind": "detached"}]
