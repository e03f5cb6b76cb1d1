"""`tableref teach` error paths: one line naming the thing and the fix, exit code 2."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from firmware.cli import main


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    return code, capsys.readouterr().err.strip()


def test_unknown_game(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """An unknown game lists the games that can be taught."""
    code, err = _run(["teach", "--game", "chess", "x.jpg", "--out", str(tmp_path / "p.toml")], capsys)
    assert code == 2
    assert err == "tableref: unknown game 'chess'; choose one of: railways, tiles, town77"


def test_missing_image(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Without IMAGE the message says what photo to give."""
    code, err = _run(["teach", "--game", "town77", "--labels", "a:b", "--out", str(tmp_path / "p.toml")], capsys)
    assert code == 2
    assert err == ("tableref: teach --game town77 needs IMAGE: a photo of the reference pieces "
                   "laid in one row")


def test_missing_labels(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Without --labels the message shows the label format."""
    code, err = _run(["teach", "--game", "tiles", "x.jpg", "--out", str(tmp_path / "p.toml")], capsys)
    assert code == 2
    assert err == ("tableref: --labels is required: name the tiles left to right, "
                   "e.g. --labels circle:red,star:blue")


@pytest.fixture
def blank_image(tmp_path: Path) -> str:
    p = tmp_path / "blank.png"
    cv2.imwrite(str(p), np.full((120, 160, 3), 200, np.uint8))
    return str(p)


def test_bad_label(capsys: pytest.CaptureFixture[str], tmp_path: Path, blank_image: str) -> None:
    """A label without shape:colour names the bad item (checked before the photo is read)."""
    from vision.api import ReadError
    from vision.tiles.teach import parse_labels

    with pytest.raises(ReadError) as e:
        parse_labels(["circle:red", "star"])
    assert str(e.value) == "--labels 'star': write each tile as shape:colour, e.g. circle:red"
    with pytest.raises(ReadError) as e:
        parse_labels(["circle:red", "circle:red"])
    assert str(e.value) == ("--labels: 'circle:red' is listed twice; each reference tile is one "
                            "shape:colour pair")


def test_town77_needs_seven_distinct(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                     blank_image: str) -> None:
    """Town 77 palettes need 7 tiles of 7 shapes and 7 colours."""
    code, err = _run(["teach", "--game", "town77", blank_image, "--labels", "circle:red,star:blue",
                      "--out", str(tmp_path / "p.toml")], capsys)
    assert code == 2
    assert err == ("tableref: --labels names 2 shapes and 2 colours in 2 tiles; Town 77 needs 7 "
                   "tiles of 7 different shapes and 7 different colours")


def test_no_markers_in_photo(capsys: pytest.CaptureFixture[str], tmp_path: Path, blank_image: str) -> None:
    """A photo without the table markers says how to fix the table frame."""
    code, err = _run(["teach", "--game", "tiles", blank_image, "--labels", "circle:red",
                      "--out", str(tmp_path / "p.toml")], capsys)
    assert code == 2
    assert err.startswith("tableref: no table marker (ids 0, 1, 2, 3) found;")
