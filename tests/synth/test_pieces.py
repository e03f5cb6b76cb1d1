"""Every piece and occluder kind draws something, where its truth says, with a shadow
when it stands tall; the registry accepts new kinds and rejects unknown ones."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from calibration.profile import default_profile
from vision.synth import render_scene
from vision.synth.pieces import DrawContext, UnknownPiece, register_piece
from vision.synth.randomize import easy_environment
from vision.synth.canvas import TableCanvas, lin

PROF = default_profile("town77")


def _env() -> dict[str, Any]:
    env = easy_environment((720, 720), PROF)
    env["surface"] = {"kind": "mat", "tone": "light", "colour": [128, 128, 128], "seed": 2}
    env["light"] = {"ambient": 0.4, "shadow": {"azimuth_deg": 0.0, "elevation_deg": 45.0, "softness": 0.02},
                    "awb": 1.0}
    return env


PIECES: list[dict[str, Any]] = [
    {"kind": "tile", "centre_mm": [80, 80], "side_mm": 40, "shape": "star5", "colour": [40, 40, 200],
     "style": {"art": "light", "face": [235, 238, 240]}},
    {"kind": "tile", "centre_mm": [150, 80], "side_mm": 40, "face_down": True,
     "style": {"back": [40, 120, 40], "back_logo": False}},
    {"kind": "stack", "centre_mm": [220, 80], "side_mm": 40,
     "levels": [{"colour": [200, 60, 40]}, {"colour": [40, 200, 220]}]},
    {"kind": "card", "centre_mm": [90, 200], "size_mm": [63, 88], "colour": [30, 30, 160], "title": "Giant"},
    {"kind": "meeple", "centre_mm": [200, 200], "colour": [200, 60, 30], "pose": "lying", "size_mm": 20},
    {"kind": "cube", "centre_mm": [260, 200], "size_mm": 10, "colour": [30, 200, 30]},
    {"kind": "token", "centre_mm": [330, 200], "radius_mm": 12, "colour": [30, 30, 30], "label": "3"},
]


def _diff_at(a: np.ndarray, b: np.ndarray, px: list[float], r: int = 4) -> float:
    x, y = int(round(px[0])), int(round(px[1]))
    pa = a[y - r:y + r + 1, x - r:x + r + 1].astype(float)
    pb = b[y - r:y + r + 1, x - r:x + r + 1].astype(float)
    return float(np.abs(pa - pb).mean())


def test_each_piece_kind_draws_at_its_truth() -> None:
    """Each kind changes the pixels at its truth centre_px against the empty table."""
    env = _env()
    empty = render_scene(dict(env, seed=1, pieces=[]))
    full = render_scene(dict(env, seed=1, pieces=PIECES))
    assert [t["kind"] for t in full.truth["pieces"]] == [p["kind"] for p in PIECES]
    for t in full.truth["pieces"]:
        assert _diff_at(full.image, empty.image, t["centre_px"]) > 25, t["kind"]


def test_occluders_draw_and_cast_shadows() -> None:
    """A hand over the table and a cup on it both change their pixels, and the table
    just beyond them, away from the light (+x here), is darker than without them."""
    env = _env()
    occ = [{"kind": "hand", "wrist_mm": [120, 300], "reach_deg": 0, "height_mm": 60,
            "skin": [104, 138, 184], "sleeve": None, "arm_mm": 300},
           {"kind": "cup", "centre_mm": [300, 100], "radius_mm": 35, "height_mm": 90, "handle_deg": 180}]
    empty = render_scene(dict(env, seed=1, pieces=[]))
    full = render_scene(dict(env, seed=1, occluders=occ))
    assert [t["kind"] for t in full.truth["occluders"]] == ["hand", "cup"]
    cup = full.truth["occluders"][1]
    assert _diff_at(full.image, empty.image, cup["centre_px"]) > 25
    # the shadow of the cup falls toward +x: 60 mm beyond its centre is in shade
    sh = full.table_to_image(np.array([[300 + 35 + 25, 100.0]]))[0]
    g_full = full.image.astype(float).mean(axis=2)
    g_empty = empty.image.astype(float).mean(axis=2)
    x, y = int(sh[0]), int(sh[1])
    assert g_full[y, x] < g_empty[y, x] - 15
    # the hand's palm centre (40 mm along the reach from the wrist)
    palm = full.table_to_image(np.array([[160.0, 300.0]]))[0]
    assert _diff_at(full.image, empty.image, palm.tolist()) > 15


def test_register_piece_adds_a_kind() -> None:
    """A kind registered from outside the package renders through render_scene."""
    def draw_bar(canvas: TableCanvas, piece: dict[str, Any], ctx: DrawContext) -> dict[str, Any]:
        canvas.polyline([[100, 300], [300, 300]], 6.0, lin((20, 20, 20)), height_mm=1.0)
        return {"kind": "test_bar", "centre_mm": [200.0, 300.0]}

    register_piece("test_bar", draw_bar)
    env = _env()
    r = render_scene(dict(env, seed=1, pieces=[{"kind": "test_bar"}]))
    x, y = (int(round(v)) for v in r.truth["pieces"][0]["centre_px"])
    assert r.image[y, x].mean() < 60


def test_unknown_kind_names_the_fix() -> None:
    """An unknown kind fails with a one-line message listing the known kinds."""
    with pytest.raises(UnknownPiece, match="unknown piece kind 'dragon'; use one of: .*tile"):
        render_scene(dict(_env(), seed=1, pieces=[{"kind": "dragon"}]))


def test_random_hands_vary() -> None:
    """town77 scenes with hands=2 carry two hand/arm occluders with varied skin."""
    from vision.synth import random_scene

    skins = set()
    for s in range(6):
        sc = random_scene("town77", s, resolution=(320, 180), hands=2, cup=True)
        kinds = [o["kind"] for o in sc["occluders"]]
        assert len(kinds) == 3 and kinds[-1] == "cup"
        skins.update(tuple(o["skin"]) for o in sc["occluders"][:2])
    assert len(skins) >= 3
    _ = random


def test_tall_piece_parallax() -> None:
    """A 30 mm cube 150 mm off the lens axis is seen with its top pushed outward by
    150 * 30 / (H - 30) mm, as a real camera sees it (and not at all with parallax off)."""
    env = _env()
    env["light"] = {"ambient": 1.0, "awb": 1.0}
    cube = {"kind": "cube", "centre_mm": [380.0, 230.0], "size_mm": 30.0, "colour": [20, 20, 220]}
    h = env["camera"]["height_mm"]
    cents = []
    for par in (True, False):
        r = render_scene(dict(env, seed=1, pieces=[cube], parallax=par))
        img = r.image.astype(int)
        red = (img[..., 2] > 200) & (img[..., 1] < 90) & (img[..., 0] < 90)     # the top, not the sides
        ys, xs = np.nonzero(red)
        cents.append(np.array([xs.mean(), ys.mean()]))
    px_per_mm = float(np.linalg.norm(r.table_to_image(np.array([[381.0, 230.0]]))
                                     - r.table_to_image(np.array([[380.0, 230.0]]))))
    shift_mm = (cents[0][0] - cents[1][0]) / px_per_mm
    expect = 150.0 * 30.0 / (h - 30.0)
    assert abs(shift_mm - expect) < 0.25 * expect + 0.3
    assert abs(cents[0][1] - cents[1][1]) < 1.0
