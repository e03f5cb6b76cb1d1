"""The face-down call (vision.tiles.pipeline._mark_face_down) on what a lamp does to
glossy dark fronts."""

from __future__ import annotations

import numpy as np

from vision.tiles.config import TilesConfig
from vision.tiles.face import CellLook
from vision.tiles.pipeline import TileReading, _mark_face_down


def _tile(col: int, face: tuple[float, float, float], mark: tuple[float, float, float] | None,
          ) -> TileReading:
    frac = 0.3 if mark is not None else 0.0
    look = CellLook(np.array(face), 2.0, frac, np.array(mark if mark is not None else face),
                    np.zeros(64 * 16, np.float32), 0.0, (0.0, 0.0), 40.0 if frac else 0.0)
    return TileReading(col, 0, (40.0 * col, 0.0), False, look)


def test_two_printed_tiles_are_fronts_however_their_faces_differ() -> None:
    """Two tiles with a print, one dark face lifted 55 L by glare: neither is a back
    (two tiles cannot show which face is the fronts')."""
    tiles = [_tile(0, (12.0, 0.0, 0.0), (55.0, 60.0, 40.0)),
             _tile(1, (67.0, 0.0, 0.0), (60.0, -50.0, 30.0))]
    _mark_face_down(tiles, TilesConfig())
    assert [t.face_down for t in tiles] == [False, False]


def test_glare_on_dark_fronts_is_not_a_back_but_a_coloured_face_is() -> None:
    """Dark fronts lifted by glare (L 8-50, no hue) stay face up; a plain green face with
    a print among them is a back."""
    fronts = [_tile(k, (8.0 + 7 * k, 0.0, 0.0), (50.0 + k, 40.0 * (-1) ** k, 30.0))
              for k in range(7)]
    back = _tile(7, (70.0, -45.0, 35.0), (90.0, -30.0, 25.0))
    tiles = fronts + [back]
    _mark_face_down(tiles, TilesConfig())
    assert [t.face_down for t in tiles] == [False] * 7 + [True]


def test_a_pale_logo_near_white_prints_is_a_back_when_the_fronts_print_alike() -> None:
    """Seven faces of seven colours with one white print (within 1 delta E) and two
    backs of one face whose cream logo lies 15 delta E off that white: the backs are
    face down (the fronts vary far less than 15), the fronts face up."""
    faces = [(50.0, 80.0, -56.0), (73.0, -29.0, -28.0), (51.0, -43.0, 15.0), (24.0, 19.0, 28.0),
             (31.0, 54.0, -60.0), (53.0, 62.0, -13.0), (38.0, 62.0, 52.0)]
    fronts = [_tile(k, f, (89.0 + 0.3 * k, -0.2 * k, -3.0)) for k, f in enumerate(faces)]
    backs = [_tile(7 + k, (71.0, 19.0, 16.0), (90.0, 5.0, 11.0)) for k in range(2)]
    tiles = fronts + backs
    assert _mark_face_down(tiles, TilesConfig())
    assert [t.face_down for t in tiles] == [False] * 7 + [True, True]


def test_two_tiles_whose_faces_differ_and_prints_agree_carry_their_colour_on_the_face() -> None:
    """A game's first two tiles, white symbols on a green and a blue face: two colours,
    not one white (read off the prints, the second tile was alerted as the pioneer's colour)."""
    tiles = [_tile(0, (60.0, -45.0, 40.0), (95.0, 0.0, -1.0)),
             _tile(1, (60.0, -10.0, -40.0), (94.0, 0.5, -2.0))]
    assert _mark_face_down(tiles, TilesConfig())
    assert [t.face_down for t in tiles] == [False, False]
    assert tiles[0].colour_lab is not None and tiles[1].colour_lab is not None
    assert float(np.linalg.norm(tiles[0].colour_lab - tiles[1].colour_lab)) > 40.0


def test_two_tiles_of_one_print_colour_stay_one_colour_under_glare() -> None:
    """Two white-faced tiles with red prints, one face lifted 55 L by glare: the colour is
    still the prints' (one colour), not the faces'."""
    tiles = [_tile(0, (40.0, 2.0, 3.0), (50.0, 60.0, 40.0)),
             _tile(1, (95.0, 0.0, 0.0), (52.0, 58.0, 41.0))]
    assert not _mark_face_down(tiles, TilesConfig())
    assert float(np.linalg.norm(tiles[0].colour_lab - tiles[1].colour_lab)) < 5.0


def test_three_tiles_of_two_face_colours_and_one_print_colour_are_all_face_up() -> None:
    """White symbols on two green faces and a blue one: the colour is on the face, and the
    blue tile is a front, not a back."""
    tiles = [_tile(0, (60.0, -45.0, 40.0), (95.0, 0.0, -1.0)),
             _tile(1, (60.0, -10.0, -40.0), (94.0, 0.5, -2.0)),
             _tile(2, (61.0, -44.0, 41.0), (95.0, -0.5, -1.5))]
    assert _mark_face_down(tiles, TilesConfig())
    assert [t.face_down for t in tiles] == [False, False, False]


def test_a_grey_and_a_cyan_face_under_white_symbols_are_two_colours() -> None:
    """Faces 30 apart with lightness weighted down but 28 apart in a*b*: two colours (the
    alerts bench's game 5046: its second tile was alerted as the pioneer's 'white')."""
    tiles = [_tile(0, (60.6, -0.4, -1.6), (98.3, -0.4, -1.8)),
             _tile(1, (86.0, -21.3, -20.1), (99.4, -0.8, -0.8))]
    assert _mark_face_down(tiles, TilesConfig())
    assert float(np.linalg.norm(tiles[0].colour_lab - tiles[1].colour_lab)) > 30.0


def test_two_dark_faces_one_under_glare_keep_the_prints_colour() -> None:
    """Dark neutral faces, one lifted 60 L by a lamp, blue prints alike: one colour."""
    tiles = [_tile(0, (15.0, 0.5, -1.0), (45.0, 10.0, -50.0)),
             _tile(1, (75.0, -1.0, -4.0), (47.0, 8.0, -48.0))]
    assert not _mark_face_down(tiles, TilesConfig())
    assert float(np.linalg.norm(tiles[0].colour_lab - tiles[1].colour_lab)) < 5.0
