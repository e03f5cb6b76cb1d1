"""White fronts with outlined symbols on a white table (pipeline._whole_prints): the
lattice search sees little but the symbols' edges and may settle on a symbol's width,
cutting every front into pieces that each read as a "tile" (dev loop game 135: six
fronts read as 16 cells). The whole prints set the tiles' lattice instead."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from calibration.geometry import locate_table
from calibration.profile import default_profile
from vision.api import AnalyzeOptions
from vision.synth import render_scene
from vision.synth.randomize import random_environment
from vision.synth.town77 import city_scene, random_city, random_style
from vision.town77 import reader as town77

RES = (1280, 720)
PROFILE = default_profile("town77")
LOOK = 135      # style and environment: white outlined fronts on a pale table, lamp glare


def _frame(n_tiles: int, layout: int) -> tuple[dict[str, Any], np.ndarray]:
    rng = random.Random(f"cut:{LOOK}:{n_tiles}:{layout}")
    style = random_style(LOOK, PROFILE)
    env = random_environment(random.Random(LOOK), RES, PROFILE)
    env["profile"] = PROFILE.name
    scene = city_scene(random_city(rng, n_tiles, 0.0), style, env, LOOK + layout, [])
    return scene, render_scene(scene).image


@pytest.mark.parametrize("n_tiles", [4, 6])
def test_white_fronts_are_not_cut_into_pieces(n_tiles: int) -> None:
    """A small city of white fronts reads as its tiles, all face up: before, the
    lattice came out 13-17 mm (the tiles' pitch is 41 mm) and the 4 and 6 fronts read
    as 14 and 13 cells."""
    scene, image = _frame(n_tiles, 1)
    fit = locate_table(image, PROFILE)
    obs = town77.analyze(image, fit, AnalyzeOptions(PROFILE))
    truth = sorted((t["row"], t["col"], False) for t in scene["meta"]["tiles"])
    assert sorted((t["row"], t["col"], t["face_down"]) for t in obs["tiles"]) == truth
