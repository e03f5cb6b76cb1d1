"""Teaching from a lone row of tiles (vision.tiles.teach.reference_tiles): when the
reader's lattice cuts the row finer than its tiles, or something beside the row reads
as a print, the row's own lattice and its run of tiles side by side still find the
seven teaching tiles."""

from __future__ import annotations

import random

import numpy as np
import pytest

from calibration.geometry import locate_table
from calibration.profile import default_profile
from vision.api import AnalyzeOptions
from vision.synth import random_scene, render_scene
from vision.synth.town77 import city_scene, random_style
from vision.tiles.teach import reference_tiles, row_lattices


def test_a_row_cut_too_fine_gets_its_own_pitch_back() -> None:
    """Seven prints 37 mm apart along a row turned 5 degrees, and a phantom half-way
    between the fourth and fifth: one of the lattices tried has the row's pitch, angle
    and first cell (the fit without the phantom)."""
    u = np.array([np.cos(np.radians(5)), np.sin(np.radians(5))])
    pts = [np.array([100.0, 80.0]) + 37.0 * k * u for k in range(7)]
    pts.insert(4, (pts[3] + pts[4]) / 2)
    tried = row_lattices(pts, 7)
    assert any(h["pitch_mm"] == pytest.approx(37.0, abs=0.1) and h["angle_deg"] == pytest.approx(5.0, abs=0.1)
               and np.allclose(h["origin_mm"], [100.0, 80.0], atol=0.5) for h in tried)


def test_a_row_with_tiles_lost_gets_its_pitch_from_the_steps() -> None:
    """Five of seven prints found (the third and fourth lost): the span over six
    steps is too short, the median step is the row's pitch."""
    pts = [[50.0 + 40.0 * k, 60.0] for k in (0, 1, 4, 5, 6)]
    pitches = [h["pitch_mm"] for h in row_lattices(pts, 7)]
    assert any(p == pytest.approx(40.0, abs=0.2) for p in pitches)


@pytest.mark.parametrize("seed", [5024, 5055])
def test_the_teaching_row_is_found_whole(seed: int) -> None:
    """The labels bench's teaching photos of cities 5024 (the reader's lattice cut the
    row into 8) and 5055 (a print read beside the row): the seven teaching tiles are
    found, left to right, each at its true place."""
    profile = default_profile("town77")
    scene = random_scene("town77", seed, resolution=(2304, 1296))
    style = random_style(seed, profile)
    perm = list(range(7))
    random.Random(seed).shuffle(perm)
    row = [{"row": 0, "col": i, "shape": i, "colour": perm[i]} for i in range(7)]
    r = render_scene(city_scene(row, style, scene, seed + 7))
    tiles = reference_tiles(r.image, locate_table(r.image, profile), AnalyzeOptions(profile), 7)
    truth = [p["centre_mm"] for p in r.truth["pieces"] if p.get("kind") == "tile"]
    side = next(p["side_mm"] for p in r.truth["pieces"] if p.get("kind") == "tile")
    assert len(tiles) == 7
    for t, c in zip(tiles, truth):
        assert np.hypot(t.centre_mm[0] - c[0], t.centre_mm[1] - c[1]) < side / 2
