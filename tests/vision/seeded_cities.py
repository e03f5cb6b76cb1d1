"""A seeded synthetic Town 77 city of the issue's kind (2304x1296), read as `tableref
analyze --game town77` reads it: the tests that pin a traced city share this."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from calibration.geometry import locate_table
from calibration.profile import default_profile
from firmware.bench.town77 import Score, score_frame
from vision.api import AnalyzeOptions
from vision.synth import random_scene, render_scene
from vision.town77 import reader


def read_city(seed: int, resolution: tuple[int, int] = (2304, 1296)) -> tuple[dict[str, Any], dict[str, Any]]:
    """The scene's ground truth (its "meta") and the reader's observation."""
    profile = default_profile("town77")
    scene = random_scene("town77", seed, resolution=resolution)
    image = render_scene(scene).image
    return scene["meta"], reader.analyze(image, locate_table(image, profile), AnalyzeOptions(profile))


def score_city(seed: int) -> Score:
    """The reading scored against the truth as the bench scores it."""
    meta, obs = read_city(seed)
    return score_frame(meta["tiles"], obs["tiles"], meta["pitch_mm"] / 2)[0]


def city_5299_centres(shift: float = 0.0) -> np.ndarray:
    """City 5299's eight clear tiles, traced: centres on a 33.4 mm lattice at -1 degree,
    most neighbours diagonal, each within 0.8 mm of its cell's middle (a seeded jitter),
    `shift` pitches off it along the rows (table mm)."""
    a = math.radians(-1.0)
    ux, uy = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    cells = [(3, 4), (5, 4), (3, 5), (5, 6), (7, 6), (3, 7), (6, 7), (7, 8)]
    rng = np.random.default_rng(2)
    return np.array([33.4 * ((c + 0.5 + shift) * ux + (r + 0.5) * uy) + rng.uniform(-0.8, 0.8, 2)
                     for c, r in cells])
