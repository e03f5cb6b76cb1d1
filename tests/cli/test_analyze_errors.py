"""Error paths of `tableref analyze`: one line naming the thing and the fix, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from firmware.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def test_unknown_game(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """An unknown game lists the games that exist."""
    rc, _, err = run(capsys, "analyze", "--game", "chess", str(tmp_path / "x.jpg"))
    assert rc == 2
    assert err == "tableref: unknown game 'chess'; choose one of: railways, tiles, town77\n"


def test_missing_profile(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A profile path that does not exist is named, with the command that makes one."""
    p = tmp_path / "nope.toml"
    rc, _, err = run(capsys, "analyze", "--game", "tiles", "--profile", str(p), "x.jpg")
    assert rc == 2
    assert err == f"tableref: {p}: profile not found; check the path or run 'tableref calibrate table'\n"


def test_profile_syntax_error_names_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A TOML syntax error in the profile gives the file, the line and the column."""
    p = tmp_path / "bad.toml"
    p.write_text("[table\nname = 1\n")
    rc, _, err = run(capsys, "analyze", "--game", "tiles", "--profile", str(p), "x.jpg")
    assert rc == 2
    assert err.startswith(f"tableref: {p}: TOML syntax error: ")
    assert "line 1" in err and err.endswith("; fix that line\n")
    assert err.count("\n") == 1


def test_profile_without_markers(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A profile with neither markers nor a fixed homography says how to get one."""
    p = tmp_path / "empty.toml"
    p.write_text('[table]\nname = "t"\n')
    rc, _, err = run(capsys, "analyze", "--game", "tiles", "--profile", str(p), "x.jpg")
    assert rc == 2
    assert err == (f"tableref: {p}: no [[markers]] and no [homography]; list the corner markers "
                   "or run 'tableref calibrate table'\n")


def test_bad_marker_id(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A marker id outside the ArUco dictionary is refused with the allowed range."""
    p = tmp_path / "m.toml"
    p.write_text("[[markers]]\nid = 77\nsize_mm = 40\ncentre_mm = [0, 0]\n")
    rc, _, err = run(capsys, "analyze", "--game", "tiles", "--profile", str(p), "x.jpg")
    assert rc == 2
    assert err == f"tableref: {p}: [[markers]] #1: id must be an integer 0..49 (DICT_4X4_50), got 77\n"


def _reader_available(game: str) -> bool:
    from vision.api import ReadError, get_reader

    try:
        get_reader(game)
    except ReadError:
        return False
    return True


needs_tiles = pytest.mark.skipif(not _reader_available("tiles"), reason="tile reader not built")


@needs_tiles
def test_missing_and_corrupt_images_do_not_stop_the_others(capsys: pytest.CaptureFixture[str],
                                                          tmp_path: Path) -> None:
    """Each bad image gets its own error line and JSON error object; exit 2 at the end."""
    corrupt = tmp_path / "corrupt.jpg"
    corrupt.write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg")
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((120, 160, 3), 128, np.uint8))
    missing = tmp_path / "missing.jpg"
    rc, out, err = run(capsys, "analyze", "--game", "tiles", "--json",
                       str(missing), str(corrupt), str(blank))
    assert rc == 2
    lines = [json.loads(line) for line in out.splitlines()]
    assert [o["image"] for o in lines] == [str(missing), str(corrupt), str(blank)]
    assert all("error" in o for o in lines)
    errs = err.splitlines()
    assert errs[0] == f"tableref: {missing}: no such image; check the path"
    assert errs[1] == (f"tableref: {corrupt}: not a readable image (corrupt or not JPEG/PNG); "
                       "re-capture or re-export it")
    assert errs[2].startswith(f"tableref: {blank}: no table marker (ids 0, 1, 2, 3) found;")


def test_corners_need_area(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """--corners without --area is refused before any image is read."""
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((50, 50, 3), 128, np.uint8))
    if not _reader_available("tiles"):
        pytest.skip("tile reader not built")
    rc, _, err = run(capsys, "analyze", "--game", "tiles", "--corners", "1,2,3,4,5,6,7,8", str(blank))
    assert rc == 2
    assert err.endswith("--corners and --area go together: give the rectangle's image corners "
                        "and its size in mm\n")


def test_corners_wrong_count(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A --corners list of the wrong length shows an example of the right form."""
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((50, 50, 3), 128, np.uint8))
    if not _reader_available("tiles"):
        pytest.skip("tile reader not built")
    rc, _, err = run(capsys, "analyze", "--game", "tiles", "--corners", "1,2,3", "--area", "400,400",
                     str(blank))
    assert rc == 2
    assert "--corners '1,2,3': expected 8 comma-separated numbers like " in err


def test_no_command_prints_help(capsys: pytest.CaptureFixture[str]) -> None:
    """`tableref` alone shows the commands and exits 2."""
    rc, out, _ = run(capsys)
    assert rc == 2
    assert "analyze" in out and "bench" in out


REAL = Path(__file__).resolve().parents[3] / "shared" / "realdata" / "qwirkle-game1"


@pytest.mark.skipif(not (REAL / "annotations.json").exists(), reason="shared/realdata not present")
def test_corners_rectangle_is_the_play_area(capsys: pytest.CaptureFixture[str]) -> None:
    """With --corners/--area every tile read lies inside the given rectangle (a real photo)."""
    ann = json.loads((REAL / "annotations.json").read_text())["images"]["1_10.jpg"]
    corners = ",".join(f"{v:.2f}" for p in ann["corners"] for v in p)
    rc, out, err = run(capsys, "analyze", "--game", "tiles", "--shapes", "6", "--colours", "6",
                       "--corners", corners, "--area", "352,352", str(REAL / "1_10.jpg"), "--json")
    assert rc == 0, err
    obs = json.loads(out)
    assert obs["table"]["source"] == "corners"
    assert len(obs["tiles"]) >= len(ann["tiles"]) * 0.9
    for t in obs["tiles"]:
        assert 0.0 <= t["centre_mm"][0] <= 352.0 and 0.0 <= t["centre_mm"][1] <= 352.0


def test_copies_below_one(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """--copies 0 (a box with no tile of a kind) is refused, naming the option."""
    rc, _, err = run(capsys, "analyze", "--game", "tiles", "--copies", "0", str(tmp_path / "x.jpg"))
    assert rc == 2
    assert err == "tableref: --copies 0: must be a positive count\n"
