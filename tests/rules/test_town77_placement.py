"""Town 77 placement legality: every refusal reason, and the queries."""

from __future__ import annotations

import pytest

from rules.town77.city import Cell, City
from rules.town77.placement import (
    Reason,
    can_place_any,
    is_legal,
    legal_cells,
    why_illegal,
)
from rules.town77.tiles import Tile

EMPTY_ROW = ".." * 7


def city(*rows: str) -> City:
    """Build a city from its top rows, each padded with empty cells."""
    padded = [r.ljust(14, ".") for r in rows] + [EMPTY_ROW] * (7 - len(rows))
    return City.parse("/".join(padded))


# Row 1: A1 a0, B1 b1, C1 face down; row 2: A2 c2.
BASE = city("a0b1##", "c2")


@pytest.mark.parametrize(("tile", "cell", "reason"), [
    ("b1", "D2", Reason.TILE_ALREADY_IN_CITY),
    ("d3", (-1, 0), Reason.ABOVE_OR_LEFT_OF_PIONEER),
    ("d3", (0, -1), Reason.ABOVE_OR_LEFT_OF_PIONEER),
    ("d3", (0, 7), Reason.EIGHTH_ROW_OR_COLUMN),
    ("d3", (7, 0), Reason.EIGHTH_ROW_OR_COLUMN),
    ("d3", "C1", Reason.CELL_FACE_DOWN),
    ("d3", "A2", Reason.CELL_TAKEN),
    ("d3", "E5", Reason.NOT_TOUCHING),
    ("c5", "B2", Reason.SAME_SHAPE_IN_ROW),
    ("b5", "B2", Reason.SAME_SHAPE_IN_COLUMN),
    ("d2", "B2", Reason.SAME_COLOUR_IN_ROW),
    ("d1", "B2", Reason.SAME_COLOUR_IN_COLUMN),
    ("d3", "B2", None),
    ("d3", "D1", None),   # touching only a face-down tile counts as touching the city
    ("g6", "A3", None),
])
def test_reasons(tile: str, cell: str | tuple[int, int], reason: Reason | None) -> None:
    """Each refusal names its rule; legal placements give None."""
    c = Cell.parse(cell) if isinstance(cell, str) else Cell(*cell)
    assert why_illegal(BASE, Tile.parse(tile), c) is reason
    assert is_legal(BASE, Tile.parse(tile), c) is (reason is None)


def test_whole_row_counts_not_just_neighbours() -> None:
    """The row rule covers the whole row, even across gaps."""
    c = city("a0b1c2d3e4", "....f5")
    assert why_illegal(c, Tile.parse("f0"), Cell.parse("D2")) is Reason.SAME_SHAPE_IN_ROW
    assert why_illegal(c, Tile.parse("g5"), Cell.parse("E2")) is Reason.SAME_COLOUR_IN_ROW


def test_empty_city_takes_the_pioneer_at_a1_only() -> None:
    """With no tile yet, only A1 is legal."""
    empty = City.empty()
    assert why_illegal(empty, Tile(0, 0), Cell(0, 1)) is Reason.PIONEER_CELL_ONLY
    assert legal_cells(empty, Tile(3, 3)) == (Cell(0, 0),)


def test_legal_cells_example() -> None:
    """legal_cells lists the free touching cells the row/column rule allows, row by row."""
    assert [c.name for c in legal_cells(BASE, Tile.parse("d3"))] == ["D1", "B2", "C2", "A3"]
    assert [c.name for c in legal_cells(BASE, Tile.parse("c5"))] == ["D1"]
    assert legal_cells(BASE, Tile.parse("a0")) == ()


def test_face_down_tile_has_no_shape_or_colour() -> None:
    """A face-down tile blocks its cell but not the shapes or colours of its row."""
    c = city("a0##")
    assert why_illegal(c, Tile(1, 1), Cell.parse("C1")) is None


def test_can_place_any() -> None:
    """A hand is stuck only when none of its tiles has a legal cell."""
    c = city("a0")
    # B1 and A2 are the only touching cells; both share a line with a0.
    assert not can_place_any(c, [Tile.parse("a1"), Tile.parse("b0")])
    assert can_place_any(c, [Tile.parse("a1"), Tile.parse("b1")])
    assert not can_place_any(c, [])


def test_reason_texts_are_short_for_the_screen() -> None:
    """Every reason has a screen text of at most 20 characters and a sentence."""
    for reason in Reason:
        assert 0 < len(reason.short) <= 20 and reason.sentence
