"""A lattice k times too fine (pipeline._coarser, _spacing): symbols that sit only in
every k-th cell are one tile per k x k cells, since tiles are laid side by side; a
candidate between them (a back) keeps the fine lattice."""

from __future__ import annotations

import math

import numpy as np

from vision.tiles.config import TilesConfig
from vision.tiles.face import CellLook
from vision.tiles.grid import GridFit
from vision.tiles.pipeline import TileReading, _coarser, _spacing

CPX = 1.5
FINE = GridFit(0.0, 18.0, (0.0, 0.0), 1.0)
TRUE_PITCH = 36.0
CENTRES = [(9.0 + 36.0 * i, 9.0 + 36.0 * j) for i, j in ((0, 0), (1, 0), (1, 1))]


def _look(symbol: bool, offset: tuple[float, float] = (0.0, 0.0)) -> CellLook:
    return CellLook(np.array([95.0, 0.0, 0.0]), 1.0, 0.2 if symbol else 0.0, np.array([50.0, 60.0, 40.0]),
                    np.zeros(64 * 16, np.float32), 0.0, offset, 60.0)


def _read_on(g: GridFit) -> list[TileReading]:
    """What a read on lattice g finds: each tile's symbol in the cell holding its centre,
    offset from that cell's middle as it lies."""
    out = []
    for c in CENTRES:
        col, row = (int(v) for v in g.cell_of(np.array([c]))[0])
        mid = g.cell_centre_mm(col, row)
        ux, uy = g.axes
        d = (np.array(c) - mid) / g.pitch_mm
        out.append(TileReading(col, row, c, False, _look(True, (float(d @ ux), float(d @ uy)))))
    return out


def _flat() -> np.ndarray:
    return np.full((300, 300), 0.9, dtype=np.float32)


def test_spacing_is_the_common_step() -> None:
    """Cells 2 apart along both axes have spacing 2; neighbours 1; a lone cell 0."""
    assert _spacing(np.array([(0, 0), (2, 0), (2, 2)])) == 2
    assert _spacing(np.array([(3, 3), (6, 3)])) == 3
    assert _spacing(np.array([(0, 0), (1, 0), (1, 2)])) == 1
    assert _spacing(np.array([(4, 4)])) == 0


def test_symbols_every_other_cell_take_the_double_lattice() -> None:
    """Three tiles read on a lattice half their pitch (symbols 2 cells apart) are read on
    a lattice of their own pitch, each symbol mid-cell."""
    fine = _read_on(FINE)
    assert _spacing(np.array([(t.col, t.row) for t in fine])) == 2
    got = _coarser(fine, FINE, _flat(), lambda: None, CPX, (0.0, 0.0), TilesConfig(), _read_on)
    assert got is not None
    g, tiles = got
    assert math.isclose(g.pitch_mm, TRUE_PITCH, rel_tol=0.02)
    assert len({(t.col, t.row) for t in tiles}) == 3


def test_a_back_between_the_symbols_keeps_the_fine_lattice() -> None:
    """A candidate cell without a symbol between two symbols (a back in the city) is a
    tile of the fine lattice: it is kept."""
    fine = _read_on(FINE)
    back = TileReading(1, 0, (27.0, 9.0), False, _look(False))
    assert _coarser(fine + [back], FINE, _flat(), lambda: None, CPX, (0.0, 0.0), TilesConfig(), _read_on) is None


def test_neighbouring_symbols_keep_the_lattice() -> None:
    """Symbols in neighbouring cells are already on their own lattice."""
    g = GridFit(0.0, TRUE_PITCH, (0.0, 0.0), 1.0)
    assert _coarser(_read_on(g), g, _flat(), lambda: None, CPX, (0.0, 0.0), TilesConfig(), _read_on) is None
