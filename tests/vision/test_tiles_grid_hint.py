"""The device loop hands the reader its last lattice: the same reading, faster, and a
stale lattice (tiles moved) is dropped for a fresh search."""

from __future__ import annotations

import numpy as np

from calibration.geometry import locate_table
from calibration.profile import default_profile
from vision.api import AnalyzeOptions
from vision.synth import random_scene, render_scene
from vision.tiles.reader import grid_from_dict
from vision.town77 import reader

PROFILE = default_profile("town77")


def _cells(obs: dict) -> list[tuple]:
    return [(t["row"], t["col"], t["face_down"], t["shape"], t["colour"]) for t in obs["tiles"]]


def test_a_good_hint_gives_the_same_reading() -> None:
    """With its own last lattice as the hint the reader reads the same city."""
    image = render_scene(random_scene("town77", 1003, resolution=(1280, 720))).image
    fit = locate_table(image, PROFILE)
    first = reader.analyze(image, fit, AnalyzeOptions(PROFILE))
    again = reader.analyze(image, fit, AnalyzeOptions(PROFILE, extra={"grid": first["grid"]}))
    assert _cells(again) == _cells(first) and len(first["tiles"]) > 20


def test_a_stale_hint_is_dropped() -> None:
    """A lattice half a pitch off (the city was moved) is not used: same reading as none."""
    image = render_scene(random_scene("town77", 1003, resolution=(1280, 720))).image
    fit = locate_table(image, PROFILE)
    first = reader.analyze(image, fit, AnalyzeOptions(PROFILE))
    g = dict(first["grid"])
    g["origin_mm"] = [g["origin_mm"][0] + g["pitch_mm"] / 2, g["origin_mm"][1] + g["pitch_mm"] / 2]
    again = reader.analyze(image, fit, AnalyzeOptions(PROFILE, extra={"grid": g}))
    assert _cells(again) == _cells(first)


def test_grid_from_dict_round_trip_and_junk() -> None:
    """A grid dict becomes a lattice whose cell (0, 0) centre is the dict's origin; junk is None."""
    g = grid_from_dict({"pitch_mm": 40.0, "angle_deg": 10.0, "origin_mm": [100.0, 50.0]})
    assert g is not None and np.allclose(g.cell_centre_mm(0, 0), [100.0, 50.0])
    assert grid_from_dict({"pitch_mm": "x"}) is None
    assert grid_from_dict({"pitch_mm": -1, "angle_deg": 0, "origin_mm": [0, 0]}) is None
    assert grid_from_dict(None) is None
