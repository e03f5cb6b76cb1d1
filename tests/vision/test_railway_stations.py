"""The railway reader's station stage (vision.railways.stations) on seeded synthetic tables:
cards found and typed, the Metropolis, Starting City colours, cubes (not printed boxes)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from calibration.geometry import locate_table
from calibration.profile import Lens, default_profile
from vision.api import AnalyzeOptions
from vision.railways import reader
from vision.railways.config import RailwaysConfig
from vision.railways.frame import top_view
from vision.railways.stations import Station, find_cubes, find_stations
from vision.synth import clips as C
from vision.synth import railways as R
from vision.synth import random_scene
from vision.synth.scene import render_scene

RES = (2304, 1296)

# (id, type, centre, angle, player, cubes on it)
CARDS: list[tuple[str, str, tuple[float, float], float, str | None, list[str]]] = [
    ("P1", "start", (180.0, 200.0), 8.0, "red", []),
    ("P2", "start", (840.0, 210.0), -14.0, "white", []),
    ("P3", "start", (200.0, 840.0), 20.0, "black", ["green"]),
    ("A", "city", (420.0, 180.0), -5.0, None, []),
    ("B", "town", (860.0, 520.0), 12.0, None, ["white"]),
    ("C", "suburban", (640.0, 860.0), -20.0, None, ["black", "yellow"]),
    ("D", "countryside", (880.0, 860.0), 3.0, None, []),
    ("E", "town", (220.0, 520.0), 0.0, None, ["red"]),
]
METRO_CENTRE = (540.0, 520.0)
METRO_TYPES = ("town", "suburban", "town", "suburban")


def _river_across(a: tuple[float, float], b: tuple[float, float], n: int) -> dict[str, Any]:
    """A straight run of blue clips from a to b (laid over whatever is there)."""
    path = np.linspace(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), 200)
    ov = C.fit_overlaps(path, n, 32.0, np.full(n - 1, 0.5))
    assert ov is not None
    poses = C.layout_chain(path, n, 32.0, ov, [0.0] * n, [False] * n, [False] * n)
    return {"kind": "river", "clips": [R._pose_dict(p) for p in poses], "colours": ["blue"] * n,
            "length_mm": 32.0, "width_mm": 9.0, "wire_mm": 1.25, "seed": 4}


def _scene(seed: int) -> dict[str, Any]:
    """Hand-placed cards under the random camera and light of `seed`'s table; a run of
    River clips lies right across card D (as the River may in a game)."""
    base = random_scene("railways", seed, resolution=RES)
    pieces: list[dict[str, Any]] = [{"kind": "metropolis", "centre": list(METRO_CENTRE), "size": 140.0,
                                     "angle": 7.0, "types": list(METRO_TYPES)}]
    for k, (sid, kind, c, ang, player, cubes) in enumerate(CARDS):
        pieces.append({"kind": "station", "id": sid, "type": kind, "centre": list(c), "size": 60.0,
                       "angle": ang, "player": player, "seed": 100 + k})
        for j, colour in enumerate(cubes):
            pieces.append({"kind": "rail_cube", "colour": colour, "size": 10.0, "angle": 20.0 * j + 10,
                           "centre": [c[0] - 8 + 16 * j, c[1] - 2]})
    pieces.append(_river_across((800.0, 780.0), (960.0, 940.0), 11))
    return {**{k: v for k, v in base.items() if k not in ("pieces", "meta")}, "pieces": pieces}


def _profile(rendered: Any) -> Any:
    cam = rendered.camera
    lens = Lens((int(cam["resolution"][0]), int(cam["resolution"][1])),
                tuple(tuple(float(v) for v in r) for r in cam["K"]), tuple(float(v) for v in cam["dist"]))
    return default_profile("railways").with_lens(lens)


def _read(seed: int) -> tuple[list[Station], Any, Any]:
    r = render_scene(_scene(seed))
    prof = _profile(r)
    fit = locate_table(r.image, prof)
    cfg = RailwaysConfig()
    view = top_view(r.image, fit, prof, cfg)
    assert view.small_lab is not None
    stations = find_stations(view, cfg, view.small_lab, 1.0)
    find_cubes(stations, view.small_lab, view.origin_mm, 1.0, cfg)
    return stations, r, prof


@pytest.fixture(scope="module", params=[7001, 7003])
def read(request: Any) -> tuple[list[Station], Any, Any]:
    return _read(int(request.param))


def _at(stations: list[Station], c: tuple[float, float]) -> Station:
    s = min(stations, key=lambda s: float(np.hypot(s.centre_mm[0] - c[0], s.centre_mm[1] - c[1])))
    assert float(np.hypot(s.centre_mm[0] - c[0], s.centre_mm[1] - c[1])) < 25.0, f"no station near {c}"
    return s


def _metro_centres() -> list[tuple[float, float]]:
    a = np.radians(7.0)
    u, v = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
    out: list[tuple[float, float]] = []
    for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
        p = np.asarray(METRO_CENTRE) + u * sx * 35 + v * sy * 35
        out.append((float(p[0]), float(p[1])))
    return out


def test_every_card_found_with_its_type_and_nothing_else(read: tuple[list[Station], Any, Any]) -> None:
    """Each card is found within 25 mm with its printed type, and no other square is read."""
    stations = read[0]
    for sid, kind, c, _, _, _ in CARDS:
        s = _at(stations, c)
        assert s.type == kind, f"{sid}: read {s.type}, is {kind}"
        assert not s.metropolis
    assert len(stations) == len(CARDS) + 4


def test_metropolis_quarters_are_marked_and_typed(read: tuple[list[Station], Any, Any]) -> None:
    """The board's four squares are found, marked metropolis, typed town/suburban, named M1-M4."""
    stations = read[0]
    got = [_at(stations, c) for c in _metro_centres()]
    assert [s.type for s in got] == list(METRO_TYPES)
    assert all(s.metropolis for s in got)
    assert sorted(s.id for s in got) == ["M1", "M2", "M3", "M4"]


def test_starting_city_player_is_read_from_its_band(read: tuple[list[Station], Any, Any]) -> None:
    """A Starting City's player colour comes from its band (white on lilac included); other cards have none."""
    stations = read[0]
    for sid, kind, c, _, player, _ in CARDS:
        assert _at(stations, c).player == player, sid


def test_printed_boxes_are_not_cubes_and_real_cubes_are(read: tuple[list[Station], Any, Any]) -> None:
    """Every card has a row of white printed boxes; only the real cubes on it are read."""
    stations = read[0]
    for sid, _, c, _, _, cubes in CARDS:
        assert _at(stations, c).cubes == sorted(cubes), sid
    for c in _metro_centres():
        assert _at(stations, c).cubes == []


def test_reader_json_carries_the_starting_city_player() -> None:
    """The reader's JSON has a 'player' in every station entry: the colour on Starting Cities."""
    r = render_scene(_scene(7001))
    prof = _profile(r)
    out = reader.analyze(r.image, locate_table(r.image, prof), AnalyzeOptions(profile=prof))
    assert all("player" in s for s in out["stations"])
    starts = sorted((s["player"] for s in out["stations"] if s["type"] == "start"), key=str)
    assert starts == ["black", "red", "white"]


def test_a_starting_city_on_a_cutting_mat_whose_lines_join_it_to_the_table() -> None:
    """The set-up table of a dev railway game (seed 1, game 10): a white player's Starting
    City on a light cutting mat under warm dim light, whose printed lines come out lilac and
    wall in table round the card; it is found, with its band."""
    import math as m

    from firmware.bench.railways_games import bench_catalogue, games_for, true_reading
    from vision.synth.railways_game import new_table, scene_after_move

    cat = bench_catalogue()
    gseed, game = games_for(11, 1, cat)[10]
    r = render_scene(scene_after_move(new_table(game, gseed, RES, cat), 0, []))
    prof = _profile(r)
    fit = locate_table(r.image, prof)
    cfg = RailwaysConfig()
    view = top_view(r.image, fit, prof, cfg)
    assert view.small_lab is not None
    found = find_stations(view, cfg, view.small_lab, 1.0)
    starts = [s for s in true_reading(game, 0, cat)["stations"] if s["type"] == "start"]
    assert len(starts) == 3
    for s in starts:
        near = [f for f in found if m.dist(f.centre_mm, s["centre_mm"]) < 10.0]
        assert [(f.type, f.player) for f in near] == [("start", s["player"])], s


def test_a_boundary_station_washed_out_by_glare_is_found() -> None:
    """The set-up table of a dev railway game (seed 1, game 25): a Suburban card under a lamp's
    glare on a pale blue table reads nearer lilac and paper white than red; it is found, as a
    Suburban, and no other card is added."""
    import math as m

    from firmware.bench.railways_games import bench_catalogue, games_for, true_reading
    from vision.synth.railways_game import new_table, scene_after_move

    cat = bench_catalogue()
    gseed, game = games_for(26, 1, cat)[25]
    r = render_scene(scene_after_move(new_table(game, gseed, RES, cat), 0, []))
    prof = _profile(r)
    fit = locate_table(r.image, prof)
    cfg = RailwaysConfig()
    view = top_view(r.image, fit, prof, cfg)
    assert view.small_lab is not None
    found = find_stations(view, cfg, view.small_lab, 1.0)
    truth = true_reading(game, 0, cat)["stations"]
    washed = [s for s in truth if m.dist(s["centre_mm"], (583.0, 1006.0)) < 5.0]
    assert [s["type"] for s in washed] == ["suburban"]
    near = [f for f in found if m.dist(f.centre_mm, washed[0]["centre_mm"]) < 10.0]
    assert [f.type for f in near] == ["suburban"]
    assert len(found) == len(truth)
