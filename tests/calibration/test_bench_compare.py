"""The calibration bench's piece comparison: renamed groups still agree, a regrouped or
missing piece does not."""

from __future__ import annotations

from firmware.bench.calibration import compare_links, compare_tiles, light_grid


def _t(r: int, c: int, shape: str, colour: str, down: bool = False) -> dict[str, object]:
    return {"row": r, "col": c, "shape": shape, "colour": colour, "face_down": down}


def test_tiles_agree_up_to_renaming_of_groups() -> None:
    """Group ids may be renamed between frames; the grouping must not change."""
    a = {"tiles": [_t(0, 0, "s1", "c1"), _t(0, 1, "s2", "c1"), _t(1, 0, "s1", "c2"), _t(1, 1, "x", "x", True)]}
    b = {"tiles": [_t(0, 0, "A", "red"), _t(0, 1, "B", "red"), _t(1, 0, "A", "blue"), _t(1, 1, "y", "y", True)]}
    assert compare_tiles(a, b) == (4, 4)


def test_a_regrouped_or_lost_tile_counts_as_different() -> None:
    """Moving one tile into another colour group breaks it (and its old partner); a lost tile counts."""
    a = {"tiles": [_t(0, 0, "s1", "c1"), _t(0, 1, "s2", "c1"), _t(1, 0, "s1", "c2")]}
    b = {"tiles": [_t(0, 0, "s1", "c1"), _t(0, 1, "s2", "c2"), _t(1, 0, "s1", "c2")]}
    same, total = compare_tiles(a, b)
    assert total == 3 and same == 0
    c = {"tiles": [_t(0, 0, "s1", "c1"), _t(0, 1, "s2", "c1")]}
    assert compare_tiles(a, c) == (2, 3)


def test_links_compare_stations_colour_and_clips() -> None:
    """A link is the same when its stations, colour and clip count all match."""
    a = {"links": [{"stations": ["A", "B"], "colour": "red", "clips": 5},
                   {"stations": ["B", "C"], "colour": "green", "clips": 3}]}
    b = {"links": [{"stations": ["B", "A"], "colour": "red", "clips": 5},
                   {"stations": ["B", "C"], "colour": "yellow", "clips": 3}]}
    assert compare_links(a, b) == (1, 2)


def test_light_grid_spans_warm_to_cold_and_one_stop() -> None:
    """The grid has 2700 K and 6500 K at -1 and +1 EV, and a gradient."""
    names = [n for n, _ in light_grid(0)]
    for n in ("2700 K -1 EV", "2700 K +1 EV", "6500 K -1 EV", "6500 K +1 EV", "gradient 0.35"):
        assert n in names


def test_labelled_tiles_are_matched_by_place_and_compared_by_name() -> None:
    """With a palette, a tile is the same when the tile nearest its place has its face and
    names: a renumbered lattice changes nothing, a renamed colour or a missing tile counts."""
    from firmware.bench.calibration import compare_labelled_tiles

    def tile(x: float, row: int, shape: str | None, colour: str | None, down: bool = False) -> dict:
        return {"row": row, "col": 0, "centre_mm": [x, 50.0], "face_down": down,
                "shape": shape, "colour": colour}

    neutral = {"tiles": [tile(50, 0, "sun", "red"), tile(90, 1, "moon", "blue"),
                         tile(130, 2, None, None, down=True), tile(170, 3, "star", "green")]}
    renumbered = {"tiles": [tile(51, 5, "sun", "red"), tile(89, 6, "moon", "blue"),
                            tile(131, 7, None, None, down=True), tile(171, 8, "star", "green")]}
    assert compare_labelled_tiles(neutral, renumbered, 20.0) == (4, 4)
    changed = {"tiles": [tile(50, 0, "sun", "orange"), tile(90, 1, "moon", "blue"),
                         tile(130, 2, "sun", "red")]}
    assert compare_labelled_tiles(neutral, changed, 20.0) == (1, 4)


def test_link_colours_are_matched_by_path_and_stations_by_place() -> None:
    """A link is the same when the lit link along its path has its colour (its count is
    not the light's); a station when the card nearest it has its type and cube colours."""
    from firmware.bench.calibration import compare_link_colours, compare_stations

    a = {"links": [{"colour": "red", "clips": 5, "path_mm": [[0, 0], [100, 0]]},
                   {"colour": "white", "clips": 3, "path_mm": [[0, 50], [100, 50]]}],
         "stations": [{"centre_mm": [0, 0], "type": "city", "cubes": ["red"]},
                      {"centre_mm": [100, 0], "type": "town", "cubes": []}]}
    b = {"links": [{"colour": "red", "clips": 6, "path_mm": [[2, 1], [98, 1]]},
                   {"colour": "yellow", "clips": 3, "path_mm": [[0, 51], [100, 51]]}],
         "stations": [{"centre_mm": [3, 2], "type": "city", "cubes": ["red"]},
                      {"centre_mm": [101, 0], "type": "town", "cubes": ["green"]}]}
    assert compare_link_colours(a, b) == (1, 2)
    assert compare_stations(a, b) == (1, 2)
    far = {"links": [{"colour": "red", "clips": 5, "path_mm": [[0, 300], [100, 300]]}]}
    assert compare_link_colours(a, far) == (0, 2)
