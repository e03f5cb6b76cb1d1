"""The railways bench scores obstacle tiles: found (a read tile's centre within 60 mm of a
true one's) and read tiles that are no tile."""

from __future__ import annotations

from typing import Any

from firmware.bench.railways import score_scene


def _square(cx: float, cy: float, s: float) -> list[list[float]]:
    return [[cx - s / 2, cy - s / 2], [cx + s / 2, cy - s / 2], [cx + s / 2, cy + s / 2], [cx - s / 2, cy + s / 2]]


def _truth() -> dict[str, Any]:
    return {"stations": [], "links": [], "river": {"clips": 32, "silver": [12, 16]},
            "obstacles": [{"index": 0, "shape": "rect", "parts_mm": [_square(200, 200, 100)]},
                          {"index": 1, "shape": "rect", "parts_mm": [_square(600, 600, 100)]}]}


def test_tiles_read_where_they_lie_are_found_and_none_false() -> None:
    """A reading of both tiles (one 10 mm off) finds 2 of 2 and no false tile."""
    read = {"stations": [], "links": [], "river": None,
            "obstacles": [{"polygon_mm": _square(210, 200, 100)}, {"polygon_mm": _square(600, 600, 90)}]}
    got = score_scene(_truth(), read)
    assert (got["obstacles_true"], got["obstacles_found"], got["obstacles_false"]) == (2, 2, 0)


def test_a_missed_tile_and_a_tile_where_none_lies_are_counted() -> None:
    """One tile read, one missed, one read where no tile lies: 1 of 2 found, 1 false."""
    read = {"stations": [], "links": [], "river": None,
            "obstacles": [{"polygon_mm": _square(200, 200, 100)}, {"polygon_mm": _square(900, 200, 100)}]}
    got = score_scene(_truth(), read)
    assert (got["obstacles_true"], got["obstacles_found"], got["obstacles_false"]) == (2, 1, 1)
