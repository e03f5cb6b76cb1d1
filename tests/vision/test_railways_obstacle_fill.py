"""R24: a ring of shadows round the table between chains is no obstacle tile.

On dark and blue mats the chains' shading reads as a tile's colour; closed, a triangle of
it between three chains was filled and kept as a mountain or a lake, and every link round
it listed the obstacle (dev 2100-2139: 5 of 9 false tiles).
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from vision.railways.config import RailwaysConfig
from vision.railways.obstacles import find_obstacles
from vision.railways.stations import _class_names


def _classes(seed: int, material: str) -> tuple[np.ndarray, list[str]]:  # type: ignore[type-arg]
    """A 1 px/mm class map: table everywhere; a flat triangle (300 mm long, 80 mm high) drawn only as
    a 4 px ring of the tile's colour; a real 200 x 100 mm tile with a chain across it."""
    rng = np.random.default_rng(seed)
    names = _class_names()
    idx = np.full((800, 1200), names.index("table"), np.uint8)
    tile = names.index(material)
    tri = np.array([[150, 500], [450, 500], [280, 420]], np.float64) + rng.uniform(-10, 10, (3, 2))
    cv2.polylines(idx, [np.round(tri).astype(np.int32)], True, (tile,), 4)
    x0, y0 = 700 + int(rng.integers(-20, 20)), 300 + int(rng.integers(-20, 20))
    cv2.rectangle(idx, (x0, y0), (x0 + 200, y0 + 100), (tile,), -1)
    cv2.line(idx, (x0 - 50, y0 + 30), (x0 + 250, y0 + 70), (names.index("ink"),), 8)
    return idx, names


@pytest.mark.parametrize("seed,material", [(1, "mountain"), (2, "lake"), (3, "mountain")])
def test_a_ring_of_a_tiles_colour_is_no_tile(seed: int, material: str) -> None:
    """Only the real tile is found, by either of two rules alone (the fill share, the tile
    shape); without both the ring's triangle is a tile too."""
    idx, names = _classes(seed, material)
    lab = np.zeros(idx.shape + (3,), np.uint8)
    cfg = RailwaysConfig()
    got = find_obstacles(lab, (0.0, 0.0), 1.0, cfg, classes=(idx, names))
    assert len(got) == 1 and got[0].polygon_mm[:, 0].min() > 600.0
    for one_off in (dataclasses.replace(cfg, obstacle_fill_share=0.0), dataclasses.replace(cfg, obstacle_colour_fit=0.0)):
        assert len(find_obstacles(lab, (0.0, 0.0), 1.0, one_off, classes=(idx, names))) == 1
    off = find_obstacles(lab, (0.0, 0.0), 1.0, dataclasses.replace(cfg, obstacle_fill_share=0.0, obstacle_colour_fit=0.0),
                         classes=(idx, names))
    assert len(off) == 2
