"""Palette TOML round trip, its one-line errors and the colour margins."""

from __future__ import annotations

from pathlib import Path

import pytest

from calibration.palette import PaletteError, colour_margins, load_palette, save_palette


def test_round_trip_keeps_nested_values(tmp_path: Path) -> None:
    """Nested tables, arrays, floats, strings and booleans survive save and load."""
    pal = {"game": "town77", "version": 1, "ok": True,
           "colours": {"red": {"lab": [50.0, 60.5, 40.0]}, "blue sky": {"bgr": [200, 120, 30]}},
           "shapes": {"star": {"hu": [0.1, -2.5e-7, 3.0], "note": 'say "hi"\n'}},
           "grid": [[1, 2], [3, 4]]}
    p = tmp_path / "p.toml"
    save_palette(pal, p)
    assert load_palette(p, "town77") == pal


def test_errors_are_one_line(tmp_path: Path) -> None:
    """Missing, broken, nameless and wrong-game palettes each give the exact message."""
    missing = tmp_path / "none.toml"
    with pytest.raises(PaletteError) as e:
        load_palette(missing)
    assert str(e.value) == f"{missing}: palette not found; check the path or run 'tableref teach'"
    bad = tmp_path / "bad.toml"
    bad.write_text("game = \n")
    with pytest.raises(PaletteError) as e:
        load_palette(bad)
    assert str(e.value).startswith(f"{bad}: TOML syntax error: ")
    assert str(e.value).endswith("; fix that line or teach again") and "\n" not in str(e.value)
    nameless = tmp_path / "nameless.toml"
    nameless.write_text("x = 1\n")
    with pytest.raises(PaletteError) as e:
        load_palette(nameless)
    assert str(e.value) == f"{nameless}: missing 'game' name; teach again with 'tableref teach'"
    other = tmp_path / "rail.toml"
    save_palette({"game": "railways"}, other)
    with pytest.raises(PaletteError) as e:
        load_palette(other, "town77")
    assert str(e.value) == f"{other}: taught for 'railways', not 'town77'; run 'tableref teach --game town77'"
    with pytest.raises(PaletteError) as e:
        load_palette(tmp_path)
    assert str(e.value) == f"{tmp_path}: is a folder, not a palette file; give the .toml file"
    with pytest.raises(PaletteError) as e:
        save_palette({"colours": {}}, tmp_path / "x.toml")
    assert str(e.value) == f"{tmp_path / 'x.toml'}: a palette needs a 'game' name; set palette['game']"


def test_colour_margins_closest_pair_first() -> None:
    """Margins are CIE76 distances between taught colours, smallest first."""
    pal = {"game": "t", "colours": {"a": {"lab": [50, 0, 0]}, "b": {"lab": [53, 4, 0]},
                                    "c": {"lab": [90, 0, 0]}}}
    m = colour_margins(pal)
    assert m[0] == ("a", "b", 5.0)
    assert [p[:2] for p in m] == [("a", "b"), ("b", "c"), ("a", "c")]
