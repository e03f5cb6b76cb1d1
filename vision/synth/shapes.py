"""The family of tile symbols: each a set of outer polygons (united) and holes (cut out),
in unit coordinates (the symbol fits a circle of radius 1, y down).

Sixteen shapes so each scene can draw a different 7 (or 6, as in the Qwirkle photos),
including near-lookalikes (diamond / four-point star / square turned) on purpose.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]
Shape = tuple[list[F64], list[F64]]


def _circle(cx: float = 0.0, cy: float = 0.0, r: float = 1.0, n: int = 72) -> F64:
    t = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.stack([cx + r * np.cos(t), cy + r * np.sin(t)], axis=1)


def _regular(n: int, r: float = 1.0, rot_deg: float = -90.0) -> F64:
    t = np.radians(rot_deg) + np.arange(n) * 2 * math.pi / n
    return np.stack([r * np.cos(t), r * np.sin(t)], axis=1)


def _star(n: int, r_out: float, r_in: float, rot_deg: float = -90.0) -> F64:
    t = np.radians(rot_deg) + np.arange(2 * n) * math.pi / n
    r = np.where(np.arange(2 * n) % 2 == 0, r_out, r_in)
    return np.stack([r * np.cos(t), r * np.sin(t)], axis=1)


def circle() -> Shape:
    return [_circle(r=0.9)], []


def square() -> Shape:
    s = 0.78
    return [np.array([[-s, -s], [s, -s], [s, s], [-s, s]])], []


def triangle() -> Shape:
    p = _regular(3, 1.0)
    return [p + np.array([0, 0.18])], []


def diamond() -> Shape:
    return [np.array([[0, -1.0], [0.72, 0], [0, 1.0], [-0.72, 0]])], []


def star5() -> Shape:
    return [_star(5, 1.0, 0.42) + np.array([0, 0.06])], []


def star4() -> Shape:
    return [_star(4, 1.0, 0.36)], []


def star8() -> Shape:
    return [_star(8, 1.0, 0.6, -90 + 22.5 / 2)], []


def cross() -> Shape:
    a, b = 0.3, 0.9
    return [np.array([[-a, -b], [a, -b], [a, -a], [b, -a], [b, a], [a, a], [a, b], [-a, b],
                      [-a, a], [-b, a], [-b, -a], [-a, -a]])], []


def heart() -> Shape:
    t = np.linspace(0, 2 * math.pi, 96, endpoint=False)
    x = 16 * np.sin(t) ** 3
    y = -(13 * np.cos(t) - 5 * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
    p = np.stack([x, y], axis=1) / 17.0
    return [p + np.array([0, 0.05])], []


def hexagon() -> Shape:
    return [_regular(6, 0.95, 0.0)], []


def crescent() -> Shape:
    return [_circle(r=0.92)], [_circle(0.42, -0.22, 0.78)]


def house() -> Shape:
    return [np.array([[0, -0.95], [0.85, -0.15], [0.62, -0.15], [0.62, 0.85], [-0.62, 0.85],
                      [-0.62, -0.15], [-0.85, -0.15]])], []


def drop() -> Shape:
    t = np.linspace(0, 2 * math.pi, 96, endpoint=False)
    x = 0.62 * np.sin(t) * (1 - np.cos(t)) / 2 * 1.55
    y = -np.cos(t) * 0.95
    return [np.stack([x, -y], axis=1) * np.array([1, -1])], []


def clover() -> Shape:
    r = 0.45
    d = 0.47
    lobes = [_circle(d * math.cos(a), d * math.sin(a), r, 48) for a in (0, math.pi / 2, math.pi, 1.5 * math.pi)]
    return lobes + [_circle(0, 0, 0.3, 32)], []


def ring() -> Shape:
    return [_circle(r=0.9)], [_circle(r=0.5)]


def pentagon() -> Shape:
    return [_regular(5, 0.95) + np.array([0, 0.05])], []


SHAPES: dict[str, Callable[[], Shape]] = {
    "circle": circle, "square": square, "triangle": triangle, "diamond": diamond,
    "star5": star5, "star4": star4, "star8": star8, "cross": cross, "heart": heart,
    "hexagon": hexagon, "crescent": crescent, "house": house, "drop": drop,
    "clover": clover, "ring": ring, "pentagon": pentagon,
}


def shape_polygons(name: str) -> Shape:
    """Outer polygons and holes of a named symbol (unit size)."""
    if name not in SHAPES:
        raise ValueError(f"unknown tile shape '{name}'; use one of: {', '.join(SHAPES)}")
    return SHAPES[name]()
