"""Town 77's reader: the generic tile reader with 7 shapes and 7 colours, its grid
based at the Pioneering Tile, plus the city's own conflicts (outside the 7x7 area, or
not joined to the city by a side)."""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.geometry import TableFit
from rules.town77 import SIDE
from vision.api import AnalyzeOptions
from vision.tiles import reader as tiles

GAME = "town77"


def city_conflicts(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tiles outside the 7x7 area, and tiles no chain of sides joins to the pioneer."""
    out: list[dict[str, Any]] = []
    occupied = {(t["row"], t["col"]) for t in entries}
    for r, c in sorted(occupied):
        if not (0 <= r < SIDE and 0 <= c < SIDE):
            out.append({"cells": [[r, c]], "kind": "outside"})
    seen: set[tuple[int, int]] = set()
    if (0, 0) in occupied:
        todo = deque([(0, 0)])
        seen.add((0, 0))
        while todo:
            r, c = todo.popleft()
            for n in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if n in occupied and n not in seen:
                    seen.add(n)
                    todo.append(n)
    for r, c in sorted(occupied - seen):
        out.append({"cells": [[r, c]], "kind": "detached"})
    return out


def analyze(image: NDArray[np.uint8], fit: TableFit, options: AnalyzeOptions) -> dict[str, Any]:
    shapes = tiles._count(options.extra, "shapes") or SIDE
    colours = tiles._count(options.extra, "colours") or SIDE
    # the box holds each (shape, colour) once: two tiles read alike in both are misgrouped
    reading = tiles.read(image, fit, options, shapes=shapes, colours=colours, copies=1)
    obs = tiles.observation(reading, GAME)
    obs["conflicts"] = obs["conflicts"] + city_conflicts(obs["tiles"])
    return obs
