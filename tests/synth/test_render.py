"""Core guarantees of the synthetic table: determinism, truth that matches the pixels,
JSON round trips. Small frames so the whole file runs in seconds."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from calibration.geometry import detect_markers
from calibration.profile import default_profile
from vision.synth import SceneError, random_scene, render_scene
from vision.synth.randomize import easy_environment, random_environment

RES = (640, 360)


def _scene(seed: int = 1, **kw: object) -> dict:
    return random_scene("town77", seed, resolution=RES, **kw)


def test_same_seed_same_image() -> None:
    """Rendering the same scene twice gives bit-identical frames and truth."""
    sc = _scene(5)
    a, b = render_scene(sc), render_scene(sc)
    assert np.array_equal(a.image, b.image)
    assert a.truth == b.truth


def test_different_seed_different_image() -> None:
    """Two seeds give different frames (the generator really is randomised)."""
    a, b = render_scene(_scene(1)), render_scene(_scene(2))
    assert a.image.shape == b.image.shape == (RES[1], RES[0], 3)
    assert not np.array_equal(a.image, b.image)


def test_scene_and_truth_survive_json() -> None:
    """A scene written to JSON and read back renders the same frame; truth is JSON-ready."""
    sc = _scene(3)
    back = json.loads(json.dumps(sc))
    a, b = render_scene(sc), render_scene(back)
    assert np.array_equal(a.image, b.image)
    json.dumps(a.truth)
    json.dumps(a.camera)


def _clean_env(seed: int, lens_kind: str) -> tuple[dict, object]:
    prof = default_profile("town77")
    env = random_environment(random.Random(seed), (1280, 720), prof, height=(600.0, 800.0),
                             lens_kind=lens_kind,
                             degrade={"noise": 0.0, "jpeg_quality": None, "sharpen": 0.0,
                                      "blur": {"defocus_px": 0.0, "motion_px": 0.0}},
                             light={"glare": [], "stops": 0.0})
    return dict(env, seed=seed, game="town77", pieces=[]), prof


@pytest.mark.parametrize("seed", [11, 12])
def test_markers_found_where_truth_says(seed: int) -> None:
    """With noise, blur and JPEG off and a standard lens, ArUco finds every marker corner
    within 1 px of table_to_image of the profile's corners (random pose and light)."""
    sc, prof = _clean_env(seed, "standard")
    r = render_scene(sc)
    found = detect_markers(r.image)
    for m in prof.markers:  # type: ignore[attr-defined]
        assert m.id in found, f"marker {m.id} not found"
        want = r.table_to_image(np.array(m.corners_mm()))
        err = np.abs(found[m.id] - want).max()
        assert err < 1.0, f"marker {m.id} corner off by {err:.2f} px"


def test_markers_under_wide_lens() -> None:
    """Through a strong wide-angle lens the marker centres still land within 0.6 px of
    the truth (corners within 2.5 px: ArUco fits straight edges to curved ones)."""
    sc, prof = _clean_env(13, "wide")
    r = render_scene(sc)
    found = detect_markers(r.image)
    for m in prof.markers:  # type: ignore[attr-defined]
        assert m.id in found, f"marker {m.id} not found"
        want = r.table_to_image(np.array(m.corners_mm()))
        assert np.abs(found[m.id].mean(axis=0) - want.mean(axis=0)).max() < 0.6
        assert np.abs(found[m.id] - want).max() < 2.5


def test_truth_corner_px_matches_projection() -> None:
    """Truth's corners_px of each marker are table_to_image of its corners_mm."""
    r = render_scene(_scene(4))
    for m in r.truth["markers"]:
        px = r.table_to_image(np.array(m["corners_mm"]))
        assert np.allclose(px, np.array(m["corners_px"]))


def test_tiles_drawn_where_truth_says() -> None:
    """On a dark mat under even light, every face-up light tile is bright at its truth
    centre and the mat is dark a tile-width away from the city."""
    prof = default_profile("town77")
    env = easy_environment((800, 800), prof)
    from vision.synth.town77 import city_scene, random_style

    style = random_style(7, prof, art="light")
    cells = [{"row": r, "col": c, "shape": (r + c) % 7, "colour": (2 * r + c) % 7} for r in range(3) for c in range(3)]
    res = render_scene(city_scene(cells, style, env, seed=1))
    img = res.image.astype(float).mean(axis=2)
    assert len(res.truth["tiles"]) == 9
    for t in res.truth["tiles"]:
        # sample near a corner of the tile (inside the face, outside the symbol)
        off = np.array([0.4, 0.4]) * res.truth["tile_side_mm"]
        ang = np.radians(t["angle_deg"])
        rot = np.array([[np.cos(ang), -np.sin(ang)], [np.sin(ang), np.cos(ang)]])
        p = np.array(t["centre_mm"]) - rot @ off
        x, y = res.table_to_image(p[None, :])[0]
        assert img[int(round(y)), int(round(x))] > 150
    g = res.truth["grid"]
    far = np.array(g["origin_mm"]) + rot @ np.array([5.0, 5.0]) * res.truth["pitch_mm"]
    x, y = res.table_to_image(far[None, :])[0]
    assert img[int(round(y)), int(round(x))] < 110


def test_bad_scene_is_one_line_error() -> None:
    """A scene with a piece lacking a kind fails with a SceneError naming it."""
    with pytest.raises(SceneError, match="'pieces' #1 needs a 'kind'"):
        render_scene({"resolution": [64, 48], "profile": "town77", "pieces": [{"centre_mm": [0, 0]}]})


def test_piece_missing_key_is_one_line_error() -> None:
    """A tile without its centre fails with a SceneError naming the piece and the key."""
    with pytest.raises(SceneError, match=r"scene 'pieces' #1 \(tile\) lacks 'centre_mm'; add it"):
        render_scene({"resolution": [64, 48], "profile": "town77", "pieces": [{"kind": "tile"}]})


def test_unknown_surface_is_one_line_error() -> None:
    """An unknown surface kind names the kinds there are."""
    with pytest.raises(SceneError, match="unknown surface kind 'marble'; use one of: wood, felt"):
        render_scene({"resolution": [64, 48], "profile": "town77", "surface": {"kind": "marble"}})


@pytest.mark.parametrize("game,opts", [("town77", {"hands": 2, "cup": True, "clutter": 3}),
                                       ("tiles", {"rows": 2, "cols": 3}), ("charuco", {})])
def test_generated_scenes_are_plain_json(game: str, opts: dict) -> None:
    """Every generator's scene is plain JSON (no numpy scalars): json round trip is equal."""
    sc = random_scene(game, 8, resolution=(320, 180), **opts)
    assert json.loads(json.dumps(sc)) == sc
