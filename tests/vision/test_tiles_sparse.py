"""The tile reader on a nearly empty table (every game starts there), in realistic
random environments (wood, cutting mats, light gradients, tilted cameras)."""

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
from vision.tiles import reader as generic
from vision.town77 import reader as town77

RES = (1280, 720)
PROFILE = default_profile("town77")


def _frame(seed: int, n_tiles: int) -> tuple[dict[str, Any], np.ndarray]:
    rng = random.Random(f"sparse:{seed}:{n_tiles}")
    style = random_style(seed, PROFILE)
    env = random_environment(rng, RES, PROFILE)
    env["profile"] = PROFILE.name
    cells = random_city(rng, n_tiles, 0.0) if n_tiles else []
    scene = city_scene(cells, style, env, seed, [])
    return scene, render_scene(scene).image


def _read(image: np.ndarray, game: Any = town77) -> dict[str, Any]:
    fit = locate_table(image, PROFILE)
    out: dict[str, Any] = game.analyze(image, fit, AnalyzeOptions(PROFILE))
    return out


def _cells(obs: dict[str, Any]) -> list[tuple[int, int, bool]]:
    return sorted((t["row"], t["col"], t["face_down"]) for t in obs["tiles"])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_empty_table_has_no_tiles(seed: int) -> None:
    """A bare table in a realistic environment reads no tile at all (Town 77 and generic)."""
    _, image = _frame(seed, 0)
    assert _read(image)["tiles"] == []
    assert _read(image, generic)["tiles"] == []


# Known failures, kept strict so they report when fixed: two tiles of seed 0 are still
# misread (the edge lattice's pitch, then the outlines cannot outvote it). Seed 2 with
# two tiles: its markers are not found at all (TableNotFound).
KNOWN = {(0, 2), (2, 2)}
SPARSE = [pytest.param(seed, n, marks=pytest.mark.xfail(strict=True, reason="sparse pitch / face-down call"))
          if (seed, n) in KNOWN else (seed, n)
          for n in (1, 2, 5) for seed in (0, 1, 2, 3)]


@pytest.mark.parametrize("seed,n", SPARSE)
def test_sparse_city_reads_exactly(seed: int, n: int) -> None:
    """A city of 1, 2 or 5 face-up tiles reads exactly those cells, all face up, based at
    the pioneer (0, 0)."""
    scene, image = _frame(seed, n)
    truth = sorted((t["row"], t["col"], False) for t in scene["meta"]["tiles"])
    assert _cells(_read(image)) == truth


@pytest.mark.parametrize("noise_seed,sigma", [(2, 1.0), (3, 1.0), (3, 2.0)])
def test_a_lone_pale_tile_reads_alike_under_noise(noise_seed: int, sigma: float) -> None:
    """Seed 3's lone tile (a white face on a white ruled mat: the lattice search sees its
    symbol's edges) with a little camera noise reads as the one face-up tile at (0, 0),
    not as its symbol cut in two by a lattice a symbol's width fine, nor as nothing when
    a lattice line runs through the symbol."""
    scene, image = _frame(3, 1)
    rng = np.random.default_rng(noise_seed)
    noisy = np.clip(image + rng.normal(0.0, sigma, image.shape), 0, 255).astype(np.uint8)
    assert _cells(_read(noisy)) == [(0, 0, False)]
