"""`tableref render`: frames with their ground truth, and one-line errors for bad scenes."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from firmware.cli import main


def test_render_writes_image_and_truth(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A seeded render writes NNNN.jpg of the asked size and NNNN.json with scene and truth."""
    rc = main(["render", "--game", "town77", "--seed", "3", "--resolution", "480x270", "--out", str(tmp_path)])
    assert rc == 0
    img = cv2.imread(str(tmp_path / "0003.jpg"))
    assert img is not None and img.shape[:2] == (270, 480)
    data = json.loads((tmp_path / "0003.json").read_text())
    assert set(data) == {"scene", "truth", "camera"}
    assert data["scene"]["game"] == "town77"


def test_unknown_game_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A game without a scene generator is refused in one line listing those that exist."""
    rc = main(["render", "--game", "chess", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.startswith("tableref: no scene generator for 'chess'; choose one of: ")
    assert err.count("\n") == 1


def test_bad_scene_json_names_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A scene file that is not JSON is refused with its line number."""
    bad = tmp_path / "scene.json"
    bad.write_text('{"game": "town77",\n "pieces": [,]}\n')
    rc = main(["render", "--game", "town77", "--scene", str(bad), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.startswith(f"tableref: {bad}: line 2: not valid JSON")


def test_bad_scene_content_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A scene with an unknown piece kind is refused in one line naming the scene file."""
    bad = tmp_path / "scene.json"
    bad.write_text(json.dumps({"game": "town77", "profile": "town77", "resolution": [320, 180],
                               "pieces": [{"kind": "dragon"}]}))
    rc = main(["render", "--game", "town77", "--scene", str(bad), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.startswith(f"tableref: {bad}: ")
    assert err.count("\n") == 1
