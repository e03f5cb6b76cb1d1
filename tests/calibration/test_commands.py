"""`tableref markers` and `tableref calibrate`: a working run each, and the error paths
with their exact one-line messages (exit 2)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from calib_render import look_at, table_image, view_plane

import cv2
from calibration.palette import save_palette
from calibration.profile import PROFILE_DIR, default_profile, load_profile
from firmware.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.fixture(scope="module")
def table_png(tmp_path_factory: pytest.TempPathFactory) -> Path:
    prof = default_profile("tiles")
    plane, org = table_image(prof, 4.0)
    k = np.array([[620.0, 0, 480], [0, 620.0, 300], [0, 0, 1]])
    rv, tv = look_at((230.0, 230.0), 750.0, tilt_deg=6.0)
    p = tmp_path_factory.mktemp("t") / "table.png"
    cv2.imwrite(str(p), view_plane(plane, 4.0, org, k, np.zeros(5), rv, tv, (960, 600)))
    return p


def test_markers_writes_pdf_and_png(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """markers --game tiles writes one A4 page; --charuco the lens board."""
    rc, out, _ = run(capsys, "markers", "--game", "tiles", "--dpi", "100", "--out", str(tmp_path / "m.pdf"))
    assert rc == 0 and (tmp_path / "m.pdf").stat().st_size > 1000
    assert out.startswith("wrote 4 markers of profile 'tiles' to ")
    rc, out, _ = run(capsys, "markers", "--charuco", "--dpi", "100", "--out", str(tmp_path / "c.png"))
    assert rc == 0 and "ChArUco lens board (9x6 squares of 27 mm)" in out


def test_markers_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Unknown profile name, bad suffix, missing folder and silly dpi: one line each."""
    rc, _, err = run(capsys, "markers", "--profile", "chess", "--out", str(tmp_path / "m.png"))
    shipped = ", ".join(sorted(q.stem for q in PROFILE_DIR.glob("*.toml")))
    assert "railways, tiles, town77" in shipped
    assert (rc, err) == (2, "tableref: --profile 'chess': no such file or shipped profile; give a .toml "
                            f"file or one of: {shipped}\n")
    rc, _, err = run(capsys, "markers", "--out", str(tmp_path / "m.gif"))
    assert (rc, err) == (2, f"tableref: {tmp_path / 'm.gif'}: write a .pdf or a .png file\n")
    rc, _, err = run(capsys, "markers", "--out", str(tmp_path / "no" / "m.png"))
    assert (rc, err) == (2, f"tableref: {tmp_path / 'no'}: no such folder; create it or choose another --out\n")
    rc, _, err = run(capsys, "markers", "--dpi", "20", "--out", str(tmp_path / "m.png"))
    assert (rc, err) == (2, "tableref: --dpi 20 is out of range; use 150 to 600 (300 is typical)\n")


def test_calibrate_table_then_check(capsys: pytest.CaptureFixture[str], tmp_path: Path, table_png: Path) -> None:
    """table stores a fallback frame and writes the outline; check prints both errors and the grid picture."""
    prof = tmp_path / "p.toml"
    rc, out, err = run(capsys, "calibrate", "table", str(table_png), "--game", "tiles", "--out", str(prof))
    assert rc == 0, err
    assert "markers seen 0, 1, 2, 3; fit error" in out and "warning" not in out
    assert load_profile(prof).homography is not None and (tmp_path / "p.png").exists()
    pal = tmp_path / "pal.toml"
    save_palette({"game": "tiles", "colours": {"red": {"lab": [50, 60, 40]}, "orange": {"lab": [60, 45, 60]}}}, pal)
    rc, out, err = run(capsys, "calibrate", "check", str(table_png), "--profile", str(prof),
                       "--palette", str(pal), "--out", str(tmp_path / "check.png"))
    assert rc == 0, err
    assert "lens: not calibrated" in out and "table: fit error " in out
    assert "colours: orange vs red: 26.9 (CIE76)" in out
    assert cv2.imread(str(tmp_path / "check.png")) is not None


def test_calibrate_table_with_corners(capsys: pytest.CaptureFixture[str], tmp_path: Path, table_png: Path) -> None:
    """--corners/--area makes a fixed-frame profile with no markers."""
    prof = tmp_path / "fixed.toml"
    rc, out, err = run(capsys, "calibrate", "table", str(table_png), "--corners", "100,100,800,100,800,500,100,500",
                       "--area", "400,300", "--out", str(prof))
    assert rc == 0, err
    p = load_profile(prof)
    assert p.markers == () and p.homography is not None and p.area_size_mm == (400.0, 300.0)


def test_calibrate_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path, table_png: Path) -> None:
    """No output file, half of corners/area, an unreadable image, no board in the stills, no marker."""
    rc, _, err = run(capsys, "calibrate", "table", str(table_png), "--game", "tiles")
    assert (rc, err) == (2, "tableref: no profile file to write; give --out FILE.toml (or --profile FILE.toml to update it)\n")
    rc, _, err = run(capsys, "calibrate", "table", str(table_png), "--corners", "1,2,3,4,5,6,7,8",
                     "--out", str(tmp_path / "x.toml"))
    assert (rc, err) == (2, "tableref: --corners and --area go together: give the rectangle's image corners and its size in mm\n")
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"not a jpeg")
    rc, _, err = run(capsys, "calibrate", "check", str(bad), "--game", "tiles")
    assert (rc, err) == (2, f"tableref: {bad}: not a readable image (corrupt or not JPEG/PNG); re-capture or re-export it\n")
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((100, 160, 3), 128, np.uint8))
    rc, _, err = run(capsys, "calibrate", "lens", str(blank), str(blank), "--game", "tiles", "--out", str(tmp_path / "l.toml"))
    assert (rc, err) == (2, "tableref: only 0 usable board views; show the ChArUco board in at least 4 "
                            "(better 15) different places and angles\n")
    rc, _, err = run(capsys, "calibrate", "table", str(blank), "--game", "tiles", "--out", str(tmp_path / "t.toml"))
    assert rc == 2 and err.startswith("tableref: no table marker (ids 0, 1, 2, 3) found; ") and err.count("\n") == 1
    rc, _, err = run(capsys, "calibrate", "table", str(table_png), "--game", "tiles", "--out", str(tmp_path / "t.txt"))
    assert (rc, err) == (2, "tableref: --out 't.txt': the profile is TOML; give a name ending in .toml\n".replace(
        "'t.txt'", f"'{tmp_path / 't.txt'}'"))
