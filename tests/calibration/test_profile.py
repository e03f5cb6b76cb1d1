"""Profile TOML round trip and the exact text of every ProfileError."""

from __future__ import annotations

from pathlib import Path

import pytest

from calibration.profile import (Lens, ProfileError, default_profile, load_profile, profile_from_dict,
                                 save_profile)


def test_round_trip_with_homography_and_lens(tmp_path: Path) -> None:
    """A profile with markers, a fixed homography and a rational lens survives save/load."""
    prof = default_profile("railways")
    prof = prof.with_homography([[0.5, 0.01, -3.0], [0.0, 0.49, 2.5], [1e-6, 2e-6, 1.0]])
    prof = prof.with_lens(Lens((2304, 1296), ((1000.5, 0.0, 1151.5), (0.0, 1001.0, 647.5), (0.0, 0.0, 1.0)),
                               (-0.2, 0.05, 1e-4, -2e-4, 0.0, 0.1, 0.01, 0.0), 0.21))
    p = tmp_path / "p.toml"
    save_profile(prof, p)
    back = load_profile(p)
    assert back.markers == prof.markers and back.homography == prof.homography
    assert back.lens == prof.lens and back.area_size_mm == (1000.0, 1000.0)
    assert back.path == p and not (tmp_path / "p.toml.tmp").exists()


def test_every_shipped_profile_loads() -> None:
    """Each game's shipped profile has 4 markers 0-3, marker 0 at the origin."""
    for game in ("default", "tiles", "town77", "railways", "papertown", "papertales"):
        prof = default_profile(game)
        assert [m.id for m in prof.markers] == [0, 1, 2, 3]
        assert prof.markers[0].centre_mm == (0.0, 0.0)


def _err(data: dict, where: str = "t.toml") -> str:
    with pytest.raises(ProfileError) as e:
        profile_from_dict(data, where)
    return str(e.value)


def test_profile_errors_name_the_file_and_the_fix(tmp_path: Path) -> None:
    """Missing file, syntax error and each bad field give their exact one-line message."""
    missing = tmp_path / "none.toml"
    with pytest.raises(ProfileError) as e:
        load_profile(missing)
    assert str(e.value) == f"{missing}: profile not found; check the path or run 'tableref calibrate table'"
    bad = tmp_path / "bad.toml"
    bad.write_text("[table\n")
    with pytest.raises(ProfileError) as e:
        load_profile(bad)
    assert str(e.value).startswith(f"{bad}: TOML syntax error: ") and str(e.value).endswith("; fix that line")
    m = {"id": 0, "size_mm": 40, "centre_mm": [0, 0]}
    assert _err({}) == ("t.toml: no [[markers]] and no [homography]; list the corner markers or run "
                        "'tableref calibrate table'")
    assert _err({"table": 3, "markers": [m]}) == "t.toml: [table] must be a table"
    assert _err({"markers": [{"size_mm": 40, "centre_mm": [0, 0]}]}) == \
        "t.toml: [[markers]] #1: missing 'id'; add it (see docs/calibration.md, 'Profile file')"
    assert _err({"markers": [dict(m, id=60)]}) == \
        "t.toml: [[markers]] #1: id must be an integer 0..49 (DICT_4X4_50), got 60"
    assert _err({"markers": [m, m]}) == \
        "t.toml: [[markers]] #2: marker id 0 is listed twice; give each marker its own id"
    assert _err({"markers": [dict(m, size_mm=-1)]}) == \
        "t.toml: [[markers]] #1: size_mm must be a positive number, got -1"
    assert _err({"markers": [dict(m, centre_mm=[1])]}) == \
        "t.toml: [[markers]] #1 centre_mm: expected two numbers like [120.0, 80.0], got [1]"
    assert _err({"homography": {"image_to_table": [[1, 0], [0, 1]]}}) == \
        "t.toml: [homography] image_to_table: expected a 3x3 list of numbers"
    assert _err({"markers": [m], "lens": {"image_size": [10, 10]}}) == \
        "t.toml: [lens]: missing 'camera_matrix'; add it (see docs/calibration.md, 'Profile file')"
    assert _err({"markers": [m], "table": {"area_size_mm": "big"}}) == \
        "t.toml: [table] area_size_mm: expected two numbers like [120.0, 80.0], got 'big'"
