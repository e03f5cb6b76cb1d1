"""The scene generators: Town 77 cities are grown from the pioneer and legal where they
can be, a game rendered frame by frame keeps its table, the tiles generator honours its
options, and ChArUco views carry truth that OpenCV's detector confirms."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from calibration.charuco import CharucoSpec, detect_charuco
from calibration.profile import default_profile
from vision.synth import random_scene, render_scene
from vision.synth.lens import make_lens
from vision.synth.randomize import random_environment
from vision.synth.town77 import city_scene, random_city, random_style


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10 ** 6), n=st.integers(1, 49))
def test_city_grows_from_the_pioneer(seed: int, n: int) -> None:
    """Every city holds (0, 0), stays in the 7 x 7 grid, is side-connected, and has n tiles."""
    cells = random_city(random.Random(seed), n)
    pos = {(c["row"], c["col"]) for c in cells}
    assert len(pos) == len(cells) == n
    assert (0, 0) in pos
    assert all(0 <= r < 7 and 0 <= c < 7 for r, c in pos)
    seen, todo = {(0, 0)}, [(0, 0)]
    while todo:
        r, c = todo.pop()
        for nb in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
            if nb in pos and nb not in seen:
                seen.add(nb)
                todo.append(nb)
    assert seen == pos
    assert not cells[0]["face_down"]          # the Pioneering Tile is face up


def test_small_cities_are_legal() -> None:
    """Up to 7 tiles there is always a free shape and colour: no row or column repeats one."""
    for seed in range(200):
        cells = random_city(random.Random(seed), 7)
        for a in cells:
            for b in cells:
                if a is not b and (a["row"] == b["row"] or a["col"] == b["col"]):
                    assert a["shape"] != b["shape"] and a["colour"] != b["colour"]


def test_frames_of_one_game_share_the_table() -> None:
    """Two frames of one game (same style and environment, a tile added) differ at the
    new tile and hardly anywhere else."""
    prof = default_profile("town77")
    style = random_style(4, prof, art="dark")
    env = random_environment(random.Random(4), (640, 360), prof, degrade={"noise": 1.0, "jpeg_quality": None},
                             light={"glare": []})
    cells = [{"row": 0, "col": 0, "shape": 0, "colour": 0}, {"row": 0, "col": 1, "shape": 1, "colour": 1}]
    a = render_scene(city_scene(cells, style, env, seed=1))
    b = render_scene(city_scene(cells + [{"row": 1, "col": 0, "shape": 2, "colour": 2}], style, env, seed=2))
    diff = np.abs(a.image.astype(int) - b.image.astype(int)).max(axis=2)
    moved = float((diff > 40).mean())
    assert 0.0 < moved < 0.02
    assert a.truth["tiles"][0]["centre_mm"] == b.truth["tiles"][0]["centre_mm"]


def test_tiles_generator_options() -> None:
    """'tiles' with rows x cols and N x M sets gives that grid and those set sizes."""
    sc = random_scene("tiles", 3, resolution=(320, 180), rows=3, cols=4, shapes=5, colours=4)
    t = sc["meta"]
    assert len(t["tiles"]) == 12 and len(t["shape_set"]) == 5 and len(t["colour_set"]) == 4
    assert max(x["shape"] for x in t["tiles"]) < 5 and max(x["colour"] for x in t["tiles"]) < 4


def test_colour_sets_are_separated() -> None:
    """Each scene's 7 colours are distinct and all differ from the tile face."""
    from vision.synth.colour import lab_distance

    for seed in range(10):
        st_ = random_style(seed)
        cols = st_["colour_bgr"]
        assert len(cols) == 7
        for i in range(7):
            assert lab_distance(cols[i], st_["tile"]["face"]) >= 35
            for j in range(i):
                assert lab_distance(cols[i], cols[j]) >= 20


def test_charuco_truth_matches_detection() -> None:
    """ChArUco views through a strong wide lens: OpenCV finds the board's corners where
    the truth's corners_px say (median under 0.3 px, 90 % under 1 px; the rest are the
    detector's misses on the smallest, most tilted squares)."""
    lens = make_lens(102.0, 0.8, (960, 540))
    errs = []
    for seed in range(2):
        r = render_scene(random_scene("charuco", seed, lens=lens, resolution=(960, 540), fill=(0.6, 0.9)))
        c, ids = detect_charuco(r.image, CharucoSpec.from_dict(r.truth["board"]))
        assert len(ids) >= 8
        truth = np.array(r.truth["charuco"]["corners_px"])[ids]
        errs.extend(np.linalg.norm(c - truth, axis=1).tolist())
        assert r.truth["camera"]["dist"] == lens["dist"]
    assert float(np.median(errs)) < 0.3 and float(np.percentile(errs, 90)) < 1.0


def test_wobble_drifts_a_little() -> None:
    """wobble moves exposure and the camera by small seeded amounts, never the table."""
    from vision.synth.town77 import wobble_env

    prof = default_profile("town77")
    env = random_environment(random.Random(9), (320, 180), prof)
    a, b = wobble_env(env, 1, 1.0), wobble_env(env, 2, 1.0)
    assert a["surface"] == env["surface"] == b["surface"]
    assert a["light"]["stops"] != b["light"]["stops"]
    assert abs(a["light"]["stops"] - env["light"]["stops"]) <= 0.08
    assert abs(a["camera"]["target_mm"][0] - env["camera"]["target_mm"][0]) <= 0.3
    assert wobble_env(env, 1, 0.0) is env


def test_tiles_look_the_same_in_every_frame() -> None:
    """With noise off, two frames of one city (different seeds) are pixel-identical:
    each tile's print quirks and sheen follow the tile, not the frame."""
    prof = default_profile("town77")
    style = random_style(6, prof)
    style["tile"]["gloss"] = 1.0
    env = random_environment(random.Random(6), (480, 270), prof,
                             degrade={"noise": 0.0, "jpeg_quality": None})
    cells = [{"row": 0, "col": c, "shape": c, "colour": c} for c in range(4)]
    a = render_scene(city_scene(cells, style, env, seed=1))
    b = render_scene(city_scene(cells, style, env, seed=2))
    assert np.array_equal(a.image, b.image)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10 ** 6), n=st.integers(1, 49))
def test_a_city_holds_each_tile_of_the_box_once(seed: int, n: int) -> None:
    """No two tiles of a city share both shape and colour: the box has each pair once."""
    cells = random_city(random.Random(seed), n)
    assert len({(c["shape"], c["colour"]) for c in cells}) == len(cells)
