"""A face-down tile's free side must show a straight step, but no bigger a step than its
own face shows against the bare table (vision.tiles.pipeline._outlined_backs): a dark
back among white fronts on dark wood (city 5072), or brown backs among cream fronts on
a navy mat (city 5012), had been peeled for showing a third of the fronts' step. Nor
a bigger step than blur leaves of it: dark backs on green felt in a blurred frame (city
5298) show a third of their distance from the felt where the fronts show half of
theirs, and the step asked of a back shrinks with the fronts' share. A "back" of the
table's own colour is a patch of table unless its whole cut edge shows."""

from __future__ import annotations

import pytest

from calibration.geometry import locate_table
from calibration.profile import default_profile
from firmware.bench.calibration import EXPOSURE_HEADROOM, _with_light, compare_tiles
from firmware.bench.town77 import score_frame
from tests.vision.seeded_cities import score_city
from vision.api import AnalyzeOptions
from vision.synth import random_scene, render_scene
from vision.town77 import reader


@pytest.mark.parametrize("seed", [5012, 5072, 5298])
def test_dark_backs_beside_bright_fronts_are_read_face_down(seed: int) -> None:
    """Every tile of the city found, every face-down one read face down, no phantom."""
    s = score_city(seed)
    assert s.face_down > 0
    assert (s.found, s.face_down_found, s.extra) == (s.tiles, s.face_down, 0)


def test_a_cutting_mat_under_a_warm_light_shows_no_backs() -> None:
    """The colour bench's scene 3 at 2700 K: cells of the green cutting mat lie within a
    few delta E of its colour, and its printed lines step like a cut edge; they are no
    backs (nine were, and the city was read three rows off). The reading is the neutral
    light's, tile for tile (two phantom backs beside the city remain under both lights)."""
    prof = default_profile("town77")
    base = random_scene("town77", 104729 + 3, resolution=[2304, 1296])
    seen = []
    for light in ({}, {"kelvin": 2700.0, "stops": 0.0}):
        scene = _with_light(base, light, EXPOSURE_HEADROOM)
        image = render_scene(scene).image
        seen.append(reader.analyze(image, locate_table(image, prof), AnalyzeOptions(prof)))
    s, _ = score_frame(scene["meta"]["tiles"], seen[1]["tiles"], scene["meta"]["pitch_mm"] / 2)
    assert (s.found, s.face_down_found, s.extra) == (s.tiles, s.face_down, 2)
    assert compare_tiles(seen[0], seen[1]) == (32, 32)
