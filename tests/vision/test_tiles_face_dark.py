"""A lamp's sheen on glossy dark fronts lifts some more than others; the face-down call
also weighs each face ring's darker part, which the sheen leaves (vision.tiles.face
.face_dark, pipeline._mark_face_down)."""

from __future__ import annotations

import numpy as np

from tests.vision.seeded_cities import score_city
from vision.tiles.config import TilesConfig
from vision.tiles.face import CellGeometry, face_dark


def test_face_dark_is_the_face_under_a_sheen_over_half_the_ring() -> None:
    """A black face with a sheen lifting half its ring by 40 L reads about black on
    its darker part (the ring's median lies half way)."""
    geo = CellGeometry.make(60)
    lab = np.zeros((60, 60, 3), np.float32)
    lab[..., 0] = 5.0
    lab[:, :30, 0] = 45.0
    dark = face_dark(lab, geo, TilesConfig())
    assert abs(dark[0] - 5.0) < 1e-6 and np.allclose(dark[1:], 0.0)


def test_dark_fronts_under_a_sheen_are_read_face_up() -> None:
    """City 5048 (dark glossy fronts on a noisy table): four fronts a sheen lifted less
    than the rest were called face down; now every tile found, every back face down and
    no front called down."""
    s = score_city(5048)
    assert (s.found, s.face_down_found, s.face_up_called_down) == (s.tiles, s.face_down, 0)
