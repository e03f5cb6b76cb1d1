"""The railway reader end to end on a small synthetic table (vision.railways.reader)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from calibration.geometry import locate_table
from calibration.profile import default_profile
from vision.api import AnalyzeOptions, ReadError
from vision.railways import reader
from vision.synth import clips as C
from vision.synth import railways as R
from vision.synth.randomize import easy_environment
from vision.synth.scene import render_scene

L, W, WIRE = 32.0, 9.0, 1.25


def _chain(colour: str, a: tuple[float, float], b: tuple[float, float], n: int, seed: int) -> dict[str, Any]:
    path = np.array([a, b], dtype=np.float64)
    ov = C.fit_overlaps(path, n, L, np.full(max(1, n - 1), 0.5))
    assert ov is not None
    rng = np.random.default_rng(seed)
    poses = C.layout_chain(path, n, L, ov, [float(abs(rng.normal(0, 5))) for _ in range(n)],
                           list(rng.uniform(size=n) < 0.5), list(rng.uniform(size=n) < 0.5))
    return {"kind": "clip_chain", "colour": colour, "clips": [R._pose_dict(p) for p in poses],
            "length_mm": L, "width_mm": W, "wire_mm": WIRE, "seed": seed}


def _station(sid: str, stype: str, c: tuple[float, float]) -> dict[str, Any]:
    return {"kind": "station", "id": sid, "type": stype, "centre": list(c), "size": 60.0,
            "angle": 0.0, "player": None, "seed": 1}


@pytest.fixture(scope="module")
def table() -> tuple[dict[str, Any], Any]:
    prof = default_profile("railways")
    env = easy_environment((2304, 1296), prof)
    env["surface"] = {"kind": "mat", "tone": "dark", "colour": [70, 80, 90], "seed": 1}
    river = _chain("blue", (150.0, 900.0), (900.0, 930.0), 32, 5)
    river["kind"] = "river"
    river["colours"] = ["blue"] * 32
    for s in (12, 16):
        river["colours"][s - 1] = "silver"
    pieces = [_station("A", "city", (200.0, 300.0)), _station("B", "town", (600.0, 320.0)),
              _station("C", "countryside", (420.0, 650.0)), river,
              _chain("green", (215.0, 302.0), (585.0, 318.0), 14, 1),
              _chain("red", (590.0, 335.0), (430.0, 636.0), 12, 2)]
    scene = {"game": "railways", "seed": 3, "profile": "railways", **env, "pieces": pieces}
    r = render_scene(scene)
    fit = locate_table(r.image, prof)
    out = reader.analyze(r.image, fit, AnalyzeOptions(profile=prof))
    return out, r


def _station_at(out: dict[str, Any], x: float, y: float) -> dict[str, Any]:
    return min(out["stations"], key=lambda s: np.hypot(s["centre_mm"][0] - x, s["centre_mm"][1] - y))


def test_station_types_and_places(table: tuple[dict[str, Any], Any]) -> None:
    """Each card is found within 8 mm of its centre with its type from its colour."""
    out, _ = table
    for (x, y), t in (((200, 300), "city"), ((600, 320), "town"), ((420, 650), "countryside")):
        s = _station_at(out, x, y)
        assert np.hypot(s["centre_mm"][0] - x, s["centre_mm"][1] - y) < 8.0
        assert s["type"] == t


def test_links_have_colour_and_end_stations(table: tuple[dict[str, Any], Any]) -> None:
    """The green link joins city and town, the red one town and countryside."""
    out, _ = table
    ids = {t: _station_at(out, x, y)["id"] for (x, y), t in
           (((200, 300), "A"), ((600, 320), "B"), ((420, 650), "C"))}
    got = {(lk["colour"], tuple(sorted(lk["stations"]))) for lk in out["links"]}
    assert ("green", tuple(sorted((ids["A"], ids["B"])))) in got
    assert ("red", tuple(sorted((ids["B"], ids["C"])))) in got


def test_link_counts_and_paths(table: tuple[dict[str, Any], Any]) -> None:
    """The flat-clip links are counted to within one clip through the camera (exactness is
    what the bench measures) and their paths follow the chains."""
    out, _ = table
    by_colour = {lk["colour"]: lk for lk in out["links"]}
    assert abs(by_colour["green"]["clips"] - 14) <= 1
    assert abs(by_colour["red"]["clips"] - 12) <= 1
    p = np.asarray(by_colour["green"]["path_mm"])
    assert np.all(np.abs(p[:, 1] - (302 + (p[:, 0] - 215) * 16 / 370)) < 6.0)


def test_river_is_read(table: tuple[dict[str, Any], Any]) -> None:
    """The River is found along its path and no link is reported for it."""
    out, _ = table
    assert out["river"] is not None
    p = np.asarray(out["river"]["path_mm"])
    assert p[:, 0].min() < 200 and p[:, 0].max() > 850
    assert all(lk["colour"] not in ("blue", "silver") for lk in out["links"])


def test_grey_image_is_refused() -> None:
    """A single-channel frame is a one-line ReadError naming the fix."""
    prof = default_profile("railways")
    from calibration.geometry import TableFit
    fit = TableFit(np.eye(3), (), 0.0, "fixed")
    with pytest.raises(ReadError, match=r"^railways: expected an 8-bit colour \(BGR\) image; check the file$"):
        reader.analyze(np.zeros((400, 400), np.uint8), fit, AnalyzeOptions(profile=prof))


def test_mismatched_previous_frame_is_refused() -> None:
    """A --previous image of another size is refused with the fix in the message."""
    prof = default_profile("railways")
    from calibration.geometry import TableFit
    fit = TableFit(np.eye(3), (), 0.0, "fixed")
    with pytest.raises(ReadError, match="different size"):
        reader.analyze(np.zeros((400, 400, 3), np.uint8), fit,
                       AnalyzeOptions(profile=prof, previous=np.zeros((300, 300, 3), np.uint8)))
