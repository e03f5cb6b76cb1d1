"""A mat's ruled lines read as prints (pipeline._without_repeats): cells mostly bare
table that repeat one print colour on one face, unlike any front off the table, are
dropped; fronts of about the table's colour (no front off the table) all stay."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.tiles.config import TilesConfig
from vision.tiles.face import CellLook
from vision.tiles.grid import GridFit
from vision.tiles.pipeline import TileReading, _without_repeats

CPX = 1.5
GRID = GridFit(0.0, 32.0, (0.0, 0.0), 1.0)
MAT = (30.0, 0.0, 0.0)
LINES = (60.0, 1.0, 1.0)
FRONTS = [((5, 2), (50.0, 70.0, 50.0)), ((6, 2), (60.0, -50.0, 40.0)), ((5, 3), (40.0, 20.0, -60.0))]
CROSSINGS = [(3, 1), (6, 4), (5, 6), (8, 7), (4, 12)]


def _tile(col: int, row: int, mark: tuple[float, float, float], seed: int) -> TileReading:
    rng = np.random.default_rng(seed)
    look = CellLook(np.array(MAT), 2.0, 0.25, np.array(mark), rng.random(64 * 16).astype(np.float32), 0.0,
                    (0.0, 0.0), 25.0)
    c = GRID.cell_centre_mm(col, row)
    return TileReading(col, row, (float(c[0]), float(c[1])), False, look)


def _table(off: list[tuple[int, int]]) -> np.ndarray:
    """Bare table everywhere but the given cells."""
    near = np.ones((700, 700), dtype=bool)
    p = GRID.pitch_mm * CPX
    for c, r in off:
        near[int(r * p):int((r + 1) * p), int(c * p):int((c + 1) * p)] = False
    return near


def _read(cells: list[TileReading], off: list[tuple[int, int]]) -> list[tuple[int, int]]:
    table = _table(off)
    out = _without_repeats(cells, lambda: table, GRID, CPX, (0.0, 0.0), TilesConfig())
    return sorted((t.col, t.row) for t in out)


def test_mat_crossings_beside_a_city_are_dropped() -> None:
    """Three fronts off a dark mat and five mat crossings (one grey ink, each cut
    differently by the lattice) on bare mat: the fronts alone stay (dev game 132)."""
    fronts = [_tile(c, r, m, i) for i, ((c, r), m) in enumerate(FRONTS)]
    lines = [_tile(c, r, LINES, 10 + i) for i, (c, r) in enumerate(CROSSINGS)]
    assert _read(fronts + lines, [cr for cr, _ in FRONTS]) == sorted(cr for cr, _ in FRONTS)


def test_fronts_of_the_tables_colour_stay() -> None:
    """With no front off the table (faces of about the table's colour), prints that
    repeat one colour are kept: they may be a game's fronts."""
    tiles = [_tile(c, r, LINES, i) for i, (c, r) in enumerate(CROSSINGS)]
    assert _read(tiles, []) == sorted(CROSSINGS)


def test_a_front_with_the_same_look_keeps_them() -> None:
    """When a front off the table has the repeated look, the repeats may be fronts too."""
    fronts = [_tile(c, r, m, i) for i, ((c, r), m) in enumerate(FRONTS)] + [_tile(7, 2, LINES, 9)]
    lines = [_tile(c, r, LINES, 10 + i) for i, (c, r) in enumerate(CROSSINGS)]
    off = [cr for cr, _ in FRONTS] + [(7, 2)]
    assert len(_read(fronts + lines, off)) == len(fronts) + len(lines)


def test_a_lone_glare_print_beside_a_city_off_the_table_is_dropped() -> None:
    """Three fronts off a dark mat and one cell of bare mat whose lines a glare spot
    lifted (one print, no repeat): most fronts are off the table, so it goes."""
    fronts = [_tile(c, r, m, i) for i, ((c, r), m) in enumerate(FRONTS)]
    glare = _tile(2, 11, (25.0, 0.0, -1.0), 20)
    assert _read(fronts + [glare], [cr for cr, _ in FRONTS]) == sorted(cr for cr, _ in FRONTS)


def test_a_white_front_half_bare_beside_fronts_off_the_table_stays() -> None:
    """A front that is bare table round its symbol only (a white face on a white table:
    its middle is less than stray_bare bare) is kept beside fronts off the table."""
    fronts = [_tile(c, r, m, i) for i, ((c, r), m) in enumerate(FRONTS)]
    white = _tile(2, 11, (25.0, 0.0, -1.0), 20)
    table = _table([cr for cr, _ in FRONTS])
    p = GRID.pitch_mm * CPX
    table[int(11.45 * p):int(11.55 * p), int(2.2 * p):int(2.8 * p)] = False    # its symbol
    out = _without_repeats(fronts + [white], lambda: table, GRID, CPX, (0.0, 0.0), TilesConfig())
    assert len(out) == 4


def test_a_front_the_bare_mask_took_in_beside_fronts_off_the_table_stays() -> None:
    """A cell all "bare" whose face is far from the bare table's colour is a front the
    mask's smooth spread took in (a white front beside a light wood table's: city 5042),
    and stays; a glare print on the mat (its face the mat's) still goes."""
    fronts = [_tile(c, r, m, i) for i, ((c, r), m) in enumerate(FRONTS)]
    white = _tile(2, 11, (60.0, 30.0, 10.0), 20)
    white.look = replace(white.look, face_lab=np.array([95.0, 0.0, 0.0]))
    glare = _tile(8, 11, (25.0, 0.0, -1.0), 21)
    table = _table([cr for cr, _ in FRONTS])
    lab = np.zeros(table.shape + (3,), dtype=np.float32)
    lab[...] = MAT
    out = _without_repeats(fronts + [white, glare], lambda: table, GRID, CPX, (0.0, 0.0), TilesConfig(), lab)
    assert sorted((t.col, t.row) for t in out) == sorted([cr for cr, _ in FRONTS] + [(2, 11)])


def test_pale_fronts_of_several_inks_on_bare_table_stay() -> None:
    """Fronts of about the table's colour read as bare table, three of each of four
    inks, beside fronts off the table (white fronts on a white mat: city 5016): no one
    ink holds most of them, so none is a mat's lines and all stay."""
    fronts = [_tile(c, r, m, i) for i, ((c, r), m) in enumerate(FRONTS)]
    inks = [(60.0, 40.0, 20.0), (60.0, -30.0, 20.0), (60.0, 20.0, -30.0), (90.0, -10.0, 60.0)]
    pale = [_tile(1 + 2 * k, 8 + j, ink, 30 + 3 * k + j) for k, ink in enumerate(inks) for j in range(3)]
    assert len(_read(fronts + pale, [cr for cr, _ in FRONTS])) == len(fronts) + len(pale)


def _logo(col: int, row: int, seed: int, offset: tuple[float, float]) -> TileReading:
    """A back of the mat's colour with a ring logo in a grey ink: one shape on every
    back, read with a little noise."""
    ring = np.zeros((64, 16), dtype=np.float32)
    ring[:, 6:9] = 1.0
    noise = np.random.default_rng(seed).normal(0.0, 0.02, ring.shape).astype(np.float32)
    t = _tile(col, row, LINES, seed)
    t.look = replace(t.look, shape=(ring + noise).ravel(), offset=offset)
    return t


def test_backs_sharing_one_logo_mid_cell_stay() -> None:
    """Three fronts off a dark mat and five backs of the mat's colour showing one ring
    logo, each in the middle of its cell (city 5169: eight such backs were dropped as
    the mat's lines): the backs stay."""
    fronts = [_tile(c, r, m, i) for i, ((c, r), m) in enumerate(FRONTS)]
    backs = [_logo(c, r, 10 + i, (0.03, -0.02)) for i, (c, r) in enumerate(CROSSINGS)]
    out = _read(fronts + backs, [cr for cr, _ in FRONTS])
    assert out == sorted([cr for cr, _ in FRONTS] + CROSSINGS)


def test_one_shape_off_the_cells_middles_is_still_the_mats() -> None:
    """The same ink and shape, but off the cells' middles (a mat's crossing falls
    where the lattice puts it): dropped as before."""
    fronts = [_tile(c, r, m, i) for i, ((c, r), m) in enumerate(FRONTS)]
    lines = [_logo(c, r, 10 + i, (0.2 * (i % 2) - 0.1, 0.15)) for i, (c, r) in enumerate(CROSSINGS)]
    assert _read(fronts + lines, [cr for cr, _ in FRONTS]) == sorted(cr for cr, _ in FRONTS)
