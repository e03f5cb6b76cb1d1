"""Tiles in a lamp's spot brighter than the markers' white (vision.tiles.crops.shoulder,
TilesConfig.glare_knee): the coarse view keeps the spot's steps instead of clipping
them flat."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from calibration.profile import default_profile
from vision.tiles.crops import shoulder

PROFILE = default_profile("town77")


def test_values_under_the_knee_are_left_alone() -> None:
    """Below the knee the shoulder changes nothing (paper white, 0.92, is under it)."""
    v = np.linspace(0.0, 0.95, 96, dtype=np.float32)
    assert np.array_equal(shoulder(v.copy(), 0.95), v)


def test_steps_above_white_survive_where_a_clip_flattens_them() -> None:
    """A white face at 1.0 beside bare table at 1.05 in a spot stay apart (about 1 L*),
    under 1, where a clip makes them one."""
    v = np.array([1.0, 1.05], dtype=np.float32)
    bent = shoulder(v.copy(), 0.95)
    assert bent[0] < bent[1] < 1.0
    assert bent[1] - bent[0] > 0.01
    assert np.array_equal(shoulder(v.copy(), 1.0), np.array([1.0, 1.0], dtype=np.float32))


@given(st.lists(st.floats(0.0, 4.0, width=32), min_size=2, max_size=40),
       st.floats(0.5, 0.99))
def test_the_shoulder_keeps_order_and_stays_under_one(values: list[float], knee: float) -> None:
    """Bent values keep their order, never exceed 1, and never rise."""
    v = np.array(sorted(values), dtype=np.float32)
    bent = shoulder(v.copy(), knee)
    assert np.all(np.diff(bent) >= 0.0)
    assert np.all(bent <= 1.0)
    assert np.all(bent <= v + 1e-6)


def _pioneer_frame(seed: int, face_down: bool = False) -> np.ndarray:
    """The first tile of loop game `seed` (firmware.bench.loop.real_game) alone on its
    table, at the device's resolution."""
    import random

    from rules.town77.tiles import ALL_TILES
    from vision.synth import render_scene
    from vision.synth.randomize import random_environment
    from vision.synth.town77 import city_scene, random_style

    rng = random.Random(seed)
    style = random_style(seed, PROFILE)
    env = random_environment(random.Random(seed), (2304, 1296), PROFILE)
    env["profile"] = PROFILE.name
    bag = list(ALL_TILES)
    rng.shuffle(bag)
    first = bag.pop()
    cell = {"row": 0, "col": 0, "shape": first.shape, "colour": first.colour, "face_down": face_down}
    return np.asarray(render_scene(city_scene([cell], style, env, seed + 1)).image)


def _cells(image: np.ndarray) -> list[tuple[int, int, bool]]:
    from calibration.geometry import locate_table
    from vision.api import AnalyzeOptions
    from vision.town77 import reader

    obs = reader.analyze(image, locate_table(image, PROFILE), AnalyzeOptions(PROFILE))
    return sorted((t["row"], t["col"], t["face_down"]) for t in obs["tiles"])


def test_a_pioneer_in_a_lamps_spot_is_read_face_up() -> None:
    """Loop game 207's pioneer lies in a spot brighter than the markers' white: clipped,
    its print vanished and a lone blank tile is no tile; its print read off the crop
    scaled to fit is faint, and its cut edge lets it stand."""
    assert _cells(_pioneer_frame(207)) == [(0, 0, False)]


def test_a_lone_back_in_the_same_spot_is_not_a_tile() -> None:
    """The same tile turned face down is no print at any contrast: a lone back is never
    a tile (a game starts with a face-up pioneer)."""
    assert _cells(_pioneer_frame(207, face_down=True)) == []
