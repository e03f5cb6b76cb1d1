"""The printed ArUco corner markers, true size at their profile positions, each on its
own slip of paper with a white quiet zone (which readers and detectors rely on)."""

from __future__ import annotations

import random
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.profile import Marker, TableProfile
from vision.synth.canvas import TableCanvas, rotated_rect
from vision.synth.colour import lin

PAPER = [228, 232, 235]     # sRGB BGR of printer paper
INK = [22, 22, 24]


def marker_bits(dictionary: str, marker_id: int) -> NDArray[np.uint8]:
    """The marker's cells including the black border (6x6 for 4x4 dictionaries), 1 = white."""
    d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
    cells = d.markerSize + 2
    img = cv2.aruco.generateImageMarker(d, marker_id, cells, borderBits=1)
    return (img > 127).astype(np.uint8)


def marker_image(dictionary: str, marker_id: int, paper: list[int] | None = None,
                 ink: list[int] | None = None, px_per_cell: int = 24) -> NDArray[np.uint8]:
    """The marker as an sRGB BGR uint8 image, crisp cells (no quiet zone)."""
    bits = marker_bits(dictionary, marker_id)
    big = cv2.resize(bits, None, fx=px_per_cell, fy=px_per_cell, interpolation=cv2.INTER_NEAREST)
    p = np.array(paper or PAPER, dtype=np.uint8)
    k = np.array(ink or INK, dtype=np.uint8)
    return np.where(big[..., None] > 0, p, k).astype(np.uint8)


def draw_marker(canvas: TableCanvas, m: Marker, dictionary: str, rng: random.Random | None = None,
                quiet_mm: float | None = None, paper: list[int] | None = None) -> None:
    """One marker on a paper slip (slip slightly turned; the marker itself axis-aligned)."""
    r = rng or random.Random(m.id)
    q = quiet_mm if quiet_mm is not None else max(m.size_mm / 6.0, 4.0) + r.uniform(1.0, 10.0)
    slip = m.size_mm + 2 * q
    paper_c = paper or PAPER
    cx, cy = m.centre_mm
    ang = r.uniform(-2.0, 2.0)
    # keep the quiet zone intact whatever the slip's turn: grow the slip by the turn's overhang
    canvas.fill_polygon(rotated_rect((cx + r.uniform(-1, 1), cy + r.uniform(-1, 1)), (slip + 4, slip + 4), ang),
                        lin(paper_c), height_mm=0.1)
    canvas.paste(marker_image(dictionary, m.id, paper_c), m.corners_mm(), height_mm=0.1)


def draw_markers(canvas: TableCanvas, profile: TableProfile, spec: dict[str, Any] | None = None,
                 seed: int = 0) -> list[dict[str, Any]]:
    """All profile markers; spec may hide some ("hidden": [ids]) to test a lost marker.
    Returns each drawn marker's truth (id, corners in mm)."""
    spec = spec or {}
    hidden = {int(i) for i in spec.get("hidden", [])}
    r = random.Random(seed)
    out = []
    for m in profile.markers:
        if m.id in hidden:
            continue
        draw_marker(canvas, m, profile.dictionary, r, spec.get("quiet_mm"), spec.get("paper"))
        out.append({"id": m.id, "size_mm": m.size_mm, "centre_mm": list(m.centre_mm),
                    "corners_mm": [list(c) for c in m.corners_mm()]})
    return out


def marker_bounds(profile: TableProfile, margin_mm: float = 0.0) -> tuple[float, float, float, float]:
    """Bounding box of the play area and every marker with its quiet zone."""
    xs = [profile.area_origin_mm[0], profile.area_origin_mm[0] + profile.area_size_mm[0]]
    ys = [profile.area_origin_mm[1], profile.area_origin_mm[1] + profile.area_size_mm[1]]
    for m in profile.markers:
        q = m.size_mm / 2 + max(m.size_mm / 6.0, 4.0)
        xs += [m.centre_mm[0] - q, m.centre_mm[0] + q]
        ys += [m.centre_mm[1] - q, m.centre_mm[1] + q]
    return (min(xs) - margin_mm, min(ys) - margin_mm, max(xs) + margin_mm, max(ys) + margin_mm)


