"""A tiny, fast Town 77 table for loop tests: real ArUco markers and pixels, a trivial
reader that decodes tile colours from pixels only, and hands/cups that the reader
misreads as tiles on purpose (the loop's guard, not the reader, must stop them).

Tile (shape s, colour c) is a 44 mm square of BGR (40 + 25 s, 40 + 25 c, 220); a
face-down tile is dark grey; the table cloth is green-grey. Cells are 400/7 mm apart
from the play area origin (30, 30) of the shipped town77 profile.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

import cv2
import numpy as np

from calibration.geometry import TableFit, rectify
from calibration.profile import default_profile

PROFILE = default_profile("town77")
PITCH = 400.0 / 7.0
ORIGIN = (30.0, 30.0)
SKIN = (140, 170, 225)
CUP = (235, 235, 240)

Cells = dict[tuple[int, int], Any]   # (row, col) -> (shape, colour) or "##"


def cell_centre(row: int, col: int) -> tuple[float, float]:
    return (ORIGIN[0] + PITCH * (col + 0.5), ORIGIN[1] + PITCH * (row + 0.5))


def _homography(size: tuple[int, int], tilt: float) -> np.ndarray:
    """Table mm -> image px: the 520 mm around the markers, slightly tilted."""
    w, h = size
    s = min(w, h) / 540.0
    src = np.float32([[-30, -30], [490, -30], [490, 490], [-30, 490]])
    cx = w / 2.0
    dst = np.float32([[cx - 260 * s + tilt, 10], [cx + 260 * s - tilt, 10],
                      [cx + 260 * s, 10 + 520 * s], [cx - 260 * s, 10 + 520 * s]])
    return cv2.getPerspectiveTransform(src, dst)


def render(cells: Cells, occluders: Sequence[dict[str, Any]] = (), seed: int = 0,
           size: tuple[int, int] = (640, 480), tilt: float = 6.0,
           brightness: float = 1.0) -> np.ndarray:
    """A BGR frame of the table (drawn top-down in mm at 2 px/mm, then warped)."""
    k = 2.0
    top = np.zeros((int(520 * k), int(520 * k), 3), np.uint8)
    top[:] = (110, 125, 115)
    off = 30.0

    def px(x: float, y: float) -> tuple[int, int]:
        return (int(round((x + off) * k)), int(round((y + off) * k)))

    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    for m in PROFILE.markers:
        side = int(m.size_mm * k)
        img = cv2.aruco.generateImageMarker(dictionary, m.id, side)
        x0, y0 = px(m.centre_mm[0] - m.size_mm / 2, m.centre_mm[1] - m.size_mm / 2)
        pad = int(6 * k)
        cv2.rectangle(top, (x0 - pad, y0 - pad), (x0 + side + pad, y0 + side + pad), (255, 255, 255), -1)
        top[y0:y0 + side, x0:x0 + side] = img[:, :, None]
    for (r, c), what in cells.items():
        cx, cy = cell_centre(r, c)
        colour = (60, 60, 60) if what == "##" else (40 + 25 * what[0], 40 + 25 * what[1], 220)
        cv2.rectangle(top, px(cx - 22, cy - 22), px(cx + 22, cy + 22), colour, -1)
    for o in occluders:
        if o["kind"] == "cup":
            cv2.circle(top, px(*o["at"]), int(o.get("r", 40) * k), CUP, -1)
        elif o["kind"] == "pinch":   # fingers just over one cell, the arm to the near edge
            x, y = o["at"]
            cv2.ellipse(top, px(x, y), (int(18 * k), int(22 * k)), 0, 0, 360, SKIN, -1)
            cv2.line(top, px(x, y), px(x + 20, 520), SKIN, int(30 * k))
        else:   # a hand and forearm reaching in from the bottom edge (a sleeve's colour: "sleeve")
            x, y = o["at"]
            cv2.line(top, px(x, y), px(x + o.get("dx", 40), 520), o.get("sleeve", o.get("skin", SKIN)),
                     int(70 * k))
            cv2.ellipse(top, px(x, y), (int(45 * k), int(55 * k)), 0, 0, 360, o.get("skin", SKIN), -1)
    h = _homography(size, tilt) @ np.array([[1 / k, 0, -off], [0, 1 / k, -off], [0, 0, 1]])
    img = cv2.warpPerspective(top, h, size, flags=cv2.INTER_AREA, borderValue=(90, 90, 90))
    rng = np.random.default_rng(seed)
    noisy = img.astype(np.float32) * brightness + rng.normal(0, 2.0, img.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


def analyze(image: np.ndarray, fit: TableFit, options: Any = None) -> dict[str, Any]:
    """The reader contract (vision.api): register as READERS["town77"] = "minitable"."""
    return read(image, fit, options)


def read(image: np.ndarray, fit: TableFit, options: Any = None) -> dict[str, Any]:
    """Decode the cells from pixels: red tiles carry shape/colour in blue/green."""
    top = rectify(image, fit, ORIGIN, (400.0, 400.0), 1.0)
    tiles = []
    for r in range(7):
        for c in range(7):
            cx, cy = cell_centre(r, c)
            x, y = int(cx - ORIGIN[0]), int(cy - ORIGIN[1])
            patch = top[y - 8:y + 8, x - 8:x + 8].reshape(-1, 3).astype(np.float32)
            b, g, red = np.median(patch, axis=0)
            entry: dict[str, Any] = {"row": r, "col": c, "centre_mm": [cx, cy]}
            if red > 185:
                entry.update(face_down=False, shape=int(np.clip(round((b - 40) / 25), 0, 6)),
                             colour=int(np.clip(round((g - 40) / 25), 0, 6)))
            elif red < 80 and g < 80 and b < 80:
                entry.update(face_down=True)
            else:
                continue
            tiles.append(entry)
    return {"game": "town77", "tiles": tiles, "conflicts": []}


def loop_analyze(game: str, image: np.ndarray, fit: TableFit, options: Any) -> dict[str, Any]:
    """The loop's injectable analyse function."""
    return read(image, fit, options)


def legal_game(seed: int, moves: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """A random legal sequence of (cell, tile) placements, pioneer first (via the rules)."""
    import random

    from rules.town77.city import City
    from rules.town77.placement import legal_cells
    from rules.town77.tiles import ALL_TILES

    rng = random.Random(seed)
    bag = list(ALL_TILES)
    rng.shuffle(bag)
    pioneer = bag.pop()
    city = City.with_pioneer(pioneer)
    out = [((0, 0), (pioneer.shape, pioneer.colour))]
    while len(out) < moves and bag:
        options = [(t, cells) for t in bag for cells in [legal_cells(city, t)] if cells]
        if not options:
            break
        t, cells = options[rng.randrange(len(options))]
        cell = cells[rng.randrange(len(cells))]
        city = city.with_tile(cell, t)
        bag.remove(t)
        out.append(((cell.row, cell.col), (t.shape, t.colour)))
    return out


def game_frames(placements: Iterable[tuple[tuple[int, int], tuple[int, int]]], seed: int,
                hands: bool = True, size: tuple[int, int] = (640, 480)) -> list[np.ndarray]:
    """Frames of a game as still moments: the empty table, then per move maybe a hand
    (big, or pinching the tile just over its cell with the arm to the edge) or a cup
    put down somewhere and left for a while, then the tile placed."""
    return [render(c, o, seed=s, size=size) for c, o, s in game_script(placements, seed, hands)]


def game_script(placements: Iterable[tuple[tuple[int, int], tuple[int, int]]], seed: int,
                hands: bool = True) -> list[tuple[Cells, list[dict[str, Any]], int]]:
    """(cells, occluders, noise seed) per frame, for game_frames and benches."""
    rng = np.random.default_rng(seed)
    cells: Cells = {}
    out: list[tuple[Cells, list[dict[str, Any]], int]] = [({}, [], seed)]
    cup: list[dict[str, Any]] = []
    for i, (cell, tile) in enumerate(placements):
        kind = rng.choice(["hand", "pinch", "cup", "none"]) if hands else "none"
        cx, cy = cell_centre(*cell)
        if kind in ("hand", "pinch"):
            held = dict(cells)
            held[cell] = tile
            occ = [{"kind": "hand", "at": (cx + 10, cy + 35)}] if kind == "hand" else \
                [{"kind": "pinch", "at": (cx + 5, cy + 12)}]
            out.append((held, occ + cup, seed * 1000 + i))
        elif kind == "cup":
            # put down beside the city (on the table, partly in view), later taken away
            side = [(float(rng.uniform(0, 460)), float(rng.uniform(445, 470))),
                    (float(rng.uniform(445, 470)), float(rng.uniform(0, 460)))][int(rng.integers(2))]
            cup = [] if cup else [{"kind": "cup", "at": side, "r": 40}]
            out.append((dict(cells), list(cup), seed * 1000 + 100 + i))
        cells = dict(cells)
        cells[cell] = tile
        out.append((cells, list(cup), seed * 1000 + 500 + i))
        if cup:
            out.append((cells, list(cup), seed * 1000 + 700 + i))   # the next still look
    return out
