"""City notation, cells and tile labels for Town 77."""

from __future__ import annotations

import pytest

from rules.errors import CouldNotRead
from rules.town77.city import FACE_DOWN, Cell, City
from rules.town77.tiles import ALL_TILES, Tile, TileLabels

EMPTY_ROW = ".." * 7


def city(*rows: str) -> City:
    """Build a city from its top rows, each padded with empty cells."""
    padded = [r.ljust(14, ".") for r in rows] + [EMPTY_ROW] * (7 - len(rows))
    return City.parse("/".join(padded))


def test_49_distinct_tiles() -> None:
    """Each shape/colour pair exists exactly once."""
    assert len(ALL_TILES) == 49 and len(set(ALL_TILES)) == 49
    assert {(t.shape, t.colour) for t in ALL_TILES} == {(s, c) for s in range(7) for c in range(7)}


def test_parse_reads_tiles_face_down_and_empty() -> None:
    """'c4' is shape 2 colour 4, '##' face down, '..' empty."""
    c = city("a0##", "..c4")
    assert c[Cell(0, 0)] == Tile(0, 0)
    assert c[Cell(0, 1)] is FACE_DOWN
    assert c[Cell(1, 1)] == Tile(2, 4)
    assert c[Cell(1, 0)] is None
    assert c.occupied_count() == 3 and len(c.tiles()) == 2


def test_notation_round_trip_example() -> None:
    """Printing a parsed city gives back the same text."""
    text = "/".join(["a0##b1" + ".." * 4, "c4" + ".." * 6] + [EMPTY_ROW] * 5)
    assert City.parse(text).notation() == text


@pytest.mark.parametrize(("text", "error"), [
    ("a0", "city 'a0' has 1 rows; write 7 rows separated by '/'"),
    ("/".join(["a0" * 3] + [EMPTY_ROW] * 6),
     "city row 1 'a0a0a0' has 6 characters; write 7 two-character cells "
     "('c4', '..' empty, '##' face down)"),
    ("/".join(["z9" + ".." * 6] + [EMPTY_ROW] * 6),
     "city row 1 'z9............': bad cell 'z9'; write a tile like 'c4', '..' for "
     "empty or '##' for face down"),
    ("/".join(["a0a0" + ".." * 5] + [EMPTY_ROW] * 6),
     "tile a0 appears twice in the city; each of the 49 tiles exists once, fix the notation"),
])
def test_parse_errors_quote_the_bad_text(text: str, error: str) -> None:
    """Bad notation raises CouldNotRead naming the offending part."""
    with pytest.raises(CouldNotRead) as info:
        City.parse(text)
    assert str(info.value) == error


def test_cell_names() -> None:
    """Cells are named column letter then row number, like C4."""
    assert Cell(3, 2).name == "C4"
    assert Cell.parse("c4") == Cell(3, 2)
    assert Cell(-1, 0).name == "row 0 col 1"
    with pytest.raises(CouldNotRead, match="bad cell 'H1'; write a column A-G then a row 1-7"):
        Cell.parse("H1")


def test_tile_token_errors() -> None:
    """A bad tile token says how to write one."""
    with pytest.raises(CouldNotRead) as info:
        Tile.parse("C4")
    assert str(info.value) == ("bad tile 'C4'; write a shape letter a-g then a colour "
                               "digit 0-6, e.g. 'c4'")


def test_labels_accept_any_seven_distinct_names() -> None:
    """Vision group ids or words both work as labels; names round-trip to tiles."""
    labels = TileLabels(tuple(f"s{i}" for i in range(7)), tuple(f"g{i}" for i in range(7)))
    assert labels.tile("s3", "g5") == Tile(3, 5)
    assert labels.name(Tile(3, 5)) == "g5 s3"
    assert TileLabels().name(Tile(2, 4)) == "c4"


def test_labels_refuse_duplicates() -> None:
    """Seven labels that are not distinct are refused with the fix."""
    with pytest.raises(CouldNotRead) as info:
        TileLabels(shapes=("a", "a", "b", "c", "d", "e", "f"))
    assert str(info.value) == ("shape labels ['a', 'a', 'b', 'c', 'd', 'e', 'f'] are not 7 "
                               "distinct names; give exactly 7 different non-empty shape labels")
    with pytest.raises(CouldNotRead, match="unknown colour 'pink'"):
        TileLabels().tile("a", "pink")


def test_turn_over_needs_a_face_up_tile() -> None:
    """Turning over keeps the cell occupied; an empty cell cannot be turned over."""
    c = city("a0b1").turned_over(Cell(0, 1))
    assert c[Cell(0, 1)] is FACE_DOWN and c.occupied_count() == 2
    with pytest.raises(CouldNotRead) as info:
        c.turned_over(Cell(0, 2))
    assert str(info.value).startswith("no face-up tile at C1 to turn over in city a0##")
