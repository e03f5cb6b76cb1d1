"""A seeded synthetic Town 77 city of the issue's kind (2304x1296), read as `tableref
analyze --game town77` reads it: the tests that pin a traced city share this."""

from __future__ import annotations

from typing import Any

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
