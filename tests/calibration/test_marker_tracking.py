"""Markers found near their last place (calibration.tracking) on seeded synthetic frames."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from calibration.edges import linear_grey, refine_corners, refine_marker
from calibration.geometry import TableFit, detect_markers, fit_from_markers
from calibration.profile import default_profile
from calibration.tracking import (detect_markers_near, marker_window, predicted_corners,
                                  track_table)
from vision.synth import random_scene, render_scene

PROFILE = default_profile("town77")
RES = (1280, 720)
SEEDS = (11, 12)


def _scene(seed: int) -> dict[str, Any]:
    return random_scene("town77", seed, resolution=RES)


def _render(scene: dict[str, Any]) -> np.ndarray:
    return render_scene(scene).image


@pytest.fixture(scope="module")
def frames() -> dict[int, np.ndarray]:
    return {s: _render(_scene(s)) for s in SEEDS}


def _full_fit(image: np.ndarray, max_side: int = 2400) -> TableFit:
    return fit_from_markers(detect_markers(image, PROFILE.dictionary, max_side=max_side), PROFILE, image)


def _play_area_px(fit: TableFit) -> np.ndarray:
    (x, y), (w, h) = PROFILE.area_origin_mm, PROFILE.area_size_mm
    return fit.to_image(np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], dtype=np.float64))


def _same_mapping_mm(a: TableFit, b: TableFit) -> float:
    """Largest disagreement (mm) of two fits over the play area's corners."""
    px = _play_area_px(a)
    return float(np.max(np.linalg.norm(b.to_table(px) - a.to_table(px), axis=1)))


@pytest.mark.parametrize("max_side", [2400, 640])
@pytest.mark.parametrize("seed", SEEDS)
def test_near_search_gives_the_full_search_corners(frames: dict[int, np.ndarray], seed: int,
                                                   max_side: int) -> None:
    """Searched in windows around their last corners, the markers come back with the ids
    and corners (within 0.05 px) the whole-frame search finds, at full and reduced scale
    (seed 12 is a blurred frame where that search misses some markers)."""
    image = frames[seed]
    full = detect_markers(image, PROFILE.dictionary, max_side=max_side)
    assert full
    near = detect_markers_near(image, full, PROFILE.dictionary, max_side=max_side)
    assert sorted(near) == sorted(full)
    for i in full:
        assert np.max(np.abs(near[i] - full[i])) < 0.05


def test_tracked_fit_is_the_full_fit(frames: dict[int, np.ndarray]) -> None:
    """An unmoved table tracked from the last fit maps the play area as the full fit does."""
    image = frames[SEEDS[0]]
    full = _full_fit(image, 1200)
    tracked = track_table(image, PROFILE, full, max_side=1200)
    assert tracked is not None
    assert tracked.markers_seen == (0, 1, 2, 3)
    assert _same_mapping_mm(full, tracked) < 0.01


def test_a_hidden_marker_makes_tracking_give_up(frames: dict[int, np.ndarray]) -> None:
    """A marker the last fit saw but that is covered now: not found near, and no tracked fit
    (the caller searches the whole frame)."""
    scene = _scene(SEEDS[0])
    scene["markers"] = {"hidden": [2]}
    covered = _render(scene)
    before = _full_fit(frames[SEEDS[0]])
    assert sorted(detect_markers_near(covered, predicted_corners(before, PROFILE))) == [0, 1, 3]
    assert track_table(covered, PROFILE, before) is None


def test_a_marker_uncovered_again_is_found_where_the_fit_puts_it(frames: dict[int, np.ndarray]) -> None:
    """A fit made while marker 2 was covered still predicts its window; once uncovered
    it is found there and used."""
    scene = _scene(SEEDS[0])
    scene["markers"] = {"hidden": [2]}
    covered_fit = _full_fit(_render(scene))
    assert covered_fit.markers_seen == (0, 1, 3)
    tracked = track_table(frames[SEEDS[0]], PROFILE, covered_fit)
    assert tracked is not None and tracked.markers_seen == (0, 1, 2, 3)
    assert _same_mapping_mm(_full_fit(frames[SEEDS[0]]), tracked) < 0.01


def _moved(seed: int, dx_mm: float) -> np.ndarray:
    scene = copy.deepcopy(_scene(seed))
    scene["camera"]["target_mm"][0] += dx_mm
    return _render(scene)


def test_a_camera_moved_far_makes_tracking_give_up(frames: dict[int, np.ndarray]) -> None:
    """The camera aimed 80 mm further along: the markers are out of their windows."""
    before = _full_fit(frames[SEEDS[1]])
    assert track_table(_moved(SEEDS[1], 80.0), PROFILE, before) is None


def test_a_camera_nudged_is_followed_to_the_markers_new_places(frames: dict[int, np.ndarray]) -> None:
    """Aimed 6 mm off, the markers are still in their windows: the tracked fit is the full
    fit of the new frame, not the old one (so the loop can tell the table moved)."""
    before = _full_fit(frames[SEEDS[1]])
    image = _moved(SEEDS[1], 6.0)
    tracked = track_table(image, PROFILE, before)
    assert tracked is not None and tracked.markers_seen == (0, 1, 2, 3)
    assert _same_mapping_mm(_full_fit(image), tracked) < 0.01
    assert _same_mapping_mm(before, tracked) > 3.0


def test_a_marker_twice_in_its_window_is_not_trusted(frames: dict[int, np.ndarray]) -> None:
    """A second copy of marker 0 inside its window makes the window ambiguous: not found."""
    image = frames[SEEDS[0]].copy()
    full = detect_markers(image)
    c = full[0]
    x0, y0 = np.floor(c.min(axis=0)).astype(int) - 4
    x1, y1 = np.ceil(c.max(axis=0)).astype(int) + 4
    dx = int(1.4 * (x1 - x0))
    image[y0:y1, x0 + dx:x1 + dx] = image[y0:y1, x0:x1]
    assert 0 in detect_markers_near(frames[SEEDS[0]], {0: c}, margin=2.0)
    assert 0 not in detect_markers_near(image, {0: c}, margin=2.0)


def test_no_window_for_a_marker_at_or_beyond_the_frame_edge() -> None:
    """A marker cut by the frame edge cannot be read: no window; one inside gets a
    window of its box grown by half a side plus 8 px."""
    square = np.array([[100, 100], [140, 100], [140, 140], [100, 140]], dtype=np.float64)
    assert marker_window(square, (720, 1280, 3)) == (72, 72, 169, 169)
    assert marker_window(square - 120, (720, 1280, 3)) is None
    assert marker_window(square + [1200, 0], (720, 1280, 3)) is None


@pytest.mark.parametrize("seed", SEEDS)
def test_window_edge_refinement_is_the_whole_frame_one(frames: dict[int, np.ndarray], seed: int) -> None:
    """refine_marker (linear light of the marker's window only) gives bit for bit what
    refine_corners gives on the whole frame's linear light, also from jittered corners."""
    image = frames[seed]
    lin = linear_grey(image)
    rng = np.random.default_rng(seed)
    refined = 0
    for c in detect_markers(image).values():
        for jitter in (0.0, 1.0, 2.0):
            cc = c + rng.normal(0.0, jitter, c.shape)
            a, b = refine_corners(lin, cc, None), refine_marker(image, cc, None)
            assert (a is None) == (b is None)
            if a is not None:
                assert b is not None and np.array_equal(a, b)
                refined += 1
    assert refined >= 4
