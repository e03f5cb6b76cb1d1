"""Backs that share one printed design are tiles even when their cut edge is faint
(vision.tiles.pipeline._back_design): pale backs on a light wooden table."""

from __future__ import annotations

from calibration.geometry import locate_table
from calibration.profile import default_profile
from firmware.bench.town77 import score_frame
from vision.api import AnalyzeOptions
from vision.synth import random_scene, render_scene
from vision.town77 import reader


def test_pale_backs_with_one_logo_on_a_light_table_are_found() -> None:
    """Seed 7205 (dark fronts, six pale green backs with a white logo, light wood): the
    reader finds backs it used to drop for their faint edge (0 of 6 before), and no
    phantom."""
    prof = default_profile("town77")
    scene = random_scene("town77", 7205, resolution=(1280, 720))
    image = render_scene(scene).image
    obs = reader.analyze(image, locate_table(image, prof), AnalyzeOptions(prof))
    score, _ = score_frame(scene["meta"]["tiles"], obs["tiles"], scene["meta"]["pitch_mm"] / 2)
    assert score.face_down == 6
    assert score.face_down_found >= 2
    assert score.extra == 0
