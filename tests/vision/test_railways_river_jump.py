"""The River's path carried across a gap longer than following jumps (river.river_path with
river_jump_mm): onto a traced piece of River ahead on its own curve, only while the path is
too short to be 32 clips, and never onto a speck."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from vision.railways import skeleton as sk
from vision.railways.config import RailwaysConfig
from vision.railways.frame import TopView
from vision.railways.river import river_path

EMPTY = np.zeros((0, 0, 3), np.uint8)
VIEW = TopView(EMPTY, EMPTY, (0.0, 0.0), 4.0)


def _arc(a0: float, a1: float) -> np.ndarray:
    """Points (mm) of a 400 mm radius arc between two arc lengths (mm)."""
    s = np.arange(a0, a1, 1.0)
    a = np.pi + s / 400.0
    return np.stack([700 + 400 * np.cos(a), 900 + 400 * np.sin(a)], axis=1)


def _band(*parts: np.ndarray) -> np.ndarray:
    band = np.zeros((1000, 1000), np.uint8)
    for p in parts:
        cv2.polylines(band, [np.round(p).astype(np.int32).reshape(-1, 1, 2)], False, 255, 9)
    return band


def _reach(path: np.ndarray, target: np.ndarray) -> float:
    """How far (mm) the path's nearer end lies from target."""
    return float(min(np.hypot(*(path[0] - target)), np.hypot(*(path[-1] - target))))


def test_a_short_river_is_carried_across_a_long_gap_onto_its_next_piece() -> None:
    """A 300 mm River broken by a 110 mm gap (its blue lost beside the silver clips) reaches
    the far piece's end with the shipped settings, and stops at the gap without the jump."""
    near, far = _arc(0, 300), _arc(410, 640)
    band = _band(near, far)
    cfg = RailwaysConfig()
    assert cfg.river_jump_mm > 0
    got = river_path(band, VIEW, cfg, None, 32.0)
    assert got is not None
    assert _reach(got, far[-1]) < 8.0
    assert sk.path_length(got) > 600
    off = river_path(band, VIEW, dataclasses.replace(cfg, river_jump_mm=0.0), None, 32.0)
    assert off is not None
    assert _reach(off, far[-1]) > 200.0


def test_no_jump_onto_a_speck_or_once_the_river_is_long_enough() -> None:
    """A piece shorter than river_jump_piece_mm across the gap is not jumped to, where a
    piece of river_jump_piece_mm is; nor is a long piece when the path already is as long
    as a River of 32 clips can be short (river_jump_below_clips)."""
    cfg = RailwaysConfig()
    near = _arc(0, 300)
    speck = _arc(410, 410 + cfg.river_jump_piece_mm - 8)
    got = river_path(_band(near, speck), VIEW, cfg, None, 32.0)
    assert got is not None and sk.path_length(got) < 320
    piece = _arc(410, 410 + cfg.river_jump_piece_mm + 8)
    got = river_path(_band(near, piece), VIEW, cfg, None, 32.0)
    assert got is not None and _reach(got, piece[-1]) < 8.0
    start = cfg.river_jump_below_clips * 32.0 + 20
    long_near, far = _arc(0, start), _arc(start + 110, start + 260)
    got = river_path(_band(long_near, far), VIEW, cfg, None, 32.0)
    assert got is not None and _reach(got, far[-1]) > 100.0
