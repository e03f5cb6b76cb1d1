"""A simulated Paperclip Railways game, frame by frame, on one synthetic table.

Why: the device referees a game from stills taken after each build, each read with the
frame before it. rules.railways.simulate plays random legal games and lays every link
out as a path; this module turns the table after move k into a scene dict using
vision.synth.railways' own piece kinds (stations with colour bands and cubes, the
Metropolis board, obstacles, the River and interlocked clip chains with random slack and
twist), so the reader sees exactly the pieces it is tested on elsewhere. Everything the
table keeps (camera, light, surface, each chain's clip poses, each cube's spot) is drawn
once per game and reused, so consecutive frames differ only by what the move changed.

Coordinates: the simulator works in play-area millimetres; scenes are in table
millimetres (the profile's area origin added).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

import numpy as np
from numpy.typing import NDArray

from calibration.profile import default_profile
from rules.railways.cards import Catalogue, Role, StationType
from rules.railways.geometry import Rect, trim
from rules.railways.simulate import SimGame, SimGeometry, placeholder_catalogue, replayed, scene_after
from rules.railways.state import BuiltLink, Move
from vision.synth import clips as C
from vision.synth import railways as R
from vision.synth.colour import lin
from vision.synth.pieces import register_piece

F64 = NDArray[np.float64]
Point = tuple[float, float]

TYPE_NAMES = {StationType.CITY: "city", StationType.TOWN: "town", StationType.SUBURBAN: "suburban",
              StationType.COUNTRYSIDE: "countryside"}


def _pose_json(p: C.ClipPose) -> dict[str, Any]:
    return {"start": [round(p.start[0], 3), round(p.start[1], 3)],
            "end": [round(p.end[0], 3), round(p.end[1], 3)],
            "twist": round(p.twist_deg, 2), "flipped": p.flipped, "mirrored": p.mirrored}


def densify(path: Sequence[Point], step: float = 1.0) -> F64:
    """A polyline resampled every `step` mm (chains are laid as chords of a dense curve)."""
    out: list[Point] = []
    for a, b in zip(path, path[1:]):
        n = max(1, int(math.dist(a, b) / step))
        out += [(a[0] + (b[0] - a[0]) * i / n, a[1] + (b[1] - a[1]) * i / n) for i in range(n)]
    out.append(path[-1])
    return np.asarray(out, dtype=np.float64)


def lay_chain(rng: np.random.Generator, path: Sequence[Point], count: int,
              length_mm: float) -> list[C.ClipPose]:
    """`count` clips along `path` ending at its end: vision.synth.railways' slack and twist
    generator first; an even-slack chain when that cannot fit."""
    dense = densify(path)
    poses = R._make_chain(rng, dense, length_mm, count, exact=True)
    if poses is not None and len(poses) == count:
        return poses
    ov = C.fit_overlaps(dense, count, length_mm, [0.5] * max(1, count - 1))
    if ov is None:
        arc = float(np.sum(np.hypot(*np.diff(dense, axis=0).T)))
        even = (count * length_mm - arc) / max(1, count - 1)
        ov = [min(length_mm * C.OVERLAP_MAX, max(length_mm * C.OVERLAP_MIN, even))] * max(0, count - 1)
    return C.layout_chain(dense, count, length_mm, ov, [float(abs(rng.normal(0, 8))) for _ in range(count)],
                          list(rng.uniform(size=count) < 0.5), list(rng.uniform(size=count) < 0.5))


@dataclass
class GameTable:
    """What stays the same for a whole game: environment, clip look, and the chains and
    cubes already laid (so a link looks the same in every later frame)."""

    game: SimGame
    seed: int
    resolution: tuple[int, int]
    env: dict[str, Any]
    catalogue: Catalogue
    origin: Point = (40.0, 40.0)
    clip_length_mm: float = 32.0
    chains: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    cube_spots: dict[tuple[str, str], tuple[Point, float]] = field(default_factory=dict)
    piece_seeds: dict[str, int] = field(default_factory=dict)

    def mm(self, p: Point) -> Point:
        return (p[0] + self.origin[0], p[1] + self.origin[1])

    def seed_for(self, key: str) -> int:
        if key not in self.piece_seeds:
            self.piece_seeds[key] = random.Random(f"{self.seed}:{key}").randrange(2 ** 31)
        return self.piece_seeds[key]


def new_table(game: SimGame, seed: int, resolution: Sequence[int] = (2304, 1296),
              catalogue: Catalogue | None = None, geometry: SimGeometry | None = None,
              environment: dict[str, Any] | None = None) -> GameTable:
    """The game's table: a random environment as vision.synth.railways.random_scene draws it
    (camera 1.0-1.4 m up), unless one is given."""
    res = (int(resolution[0]), int(resolution[1]))
    profile = default_profile("railways")
    if environment is None:
        from vision.synth.randomize import random_environment
        environment = dict(random_environment(np.random.default_rng([seed, 77]), res, profile,
                                              height=(1000.0, 1400.0)))
    g = geometry or SimGeometry()
    return GameTable(game, seed, res, dict(environment), catalogue or placeholder_catalogue(),
                     (float(profile.area_origin_mm[0]), float(profile.area_origin_mm[1])),
                     float(g.clip_length_mm))


def draw_blank_board(canvas: Any, piece: dict[str, Any], ctx: Any = None) -> dict[str, Any] | None:
    """The Gigantopolis board: the Metropolis board's blank side, under its four cards."""
    c, size = piece["centre"], float(piece["size"])
    canvas.fill_polygon(R.square(c, size, float(piece.get("angle", 0.0))), lin((90, 90, 96)), 0.3)
    return None


register_piece("blank_board", draw_blank_board)


def _square(r: Rect) -> list[list[float]]:
    return [[r.x0, r.y0], [r.x1, r.y0], [r.x1, r.y1], [r.x0, r.y1]]


def _chain_piece(t: GameTable, key: str, colour: str, poses: list[C.ClipPose]) -> dict[str, Any]:
    L = t.clip_length_mm
    return {"kind": "clip_chain", "colour": colour, "clips": [_pose_json(p) for p in poses],
            "length_mm": L, "width_mm": L * 9.0 / 32.0, "wire_mm": C.COATED_WIRE_MM * L / 32.0,
            "seed": t.seed_for(key)}


def link_piece(t: GameTable, key: str, colour: str, clips: int, path: Sequence[Point]) -> dict[str, Any]:
    """A clip chain along a play-area path; laid once per key and reused."""
    rng = np.random.default_rng(t.seed_for("chain:" + key))
    poses = lay_chain(rng, [t.mm(p) for p in path], clips, t.clip_length_mm)
    return _chain_piece(t, key, colour, poses)


def _cubes_after(t: GameTable, moves: int) -> dict[str, list[str]]:
    """Cubes each station holds after `moves` moves (Metropolis: one per colour)."""
    starts = {s.sid: s.card for s in t.game.start.stations}
    out: dict[str, list[str]] = {}
    for m in t.game.moves[:moves]:
        b = m.move
        if not isinstance(b, BuiltLink):
            continue
        if b.new_card is not None:
            starts[b.to_station] = b.new_card
        for sid in (b.from_station, b.to_station):
            held = out.setdefault(sid, [])
            card = t.catalogue[starts[sid]] if starts.get(sid) in t.catalogue else None
            if card is not None and card.role is Role.METROPOLIS and b.colour in held:
                continue
            held.append(b.colour)
    return out


def scene_after_move(t: GameTable, moves: int, extra_links: Sequence[dict[str, Any]] = (),
                     occluders: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """The scene dict of the table after the first `moves` moves of the game; `extra_links`
    (pieces from link_piece) are laid on top, e.g. an illegal build the players take back."""
    sc = scene_after(t.game, moves)
    pieces: list[dict[str, Any]] = []
    start_of = {s.sid: s.start for s in t.game.start.stations}
    for sid, (r, card_id) in sc.stations.items():
        card = t.catalogue[card_id]
        c = t.mm((r.cx, r.cy))
        if card.role is Role.METROPOLIS:
            pieces.append({"kind": "metropolis", "centre": list(c), "size": r.w, "angle": 0.0,
                           "types": list(R.METRO_TYPES)})
    if t.game.variant == "gigantopolis":
        board = SimGeometry().board_mm
        c = t.mm((SimGeometry().area_mm / 2, SimGeometry().area_mm / 2))
        pieces.append({"kind": "blank_board", "centre": list(c), "size": board, "angle": 0.0})
    for i, ob in enumerate(sc.obstacles):
        pieces.append({"kind": "obstacle", "shape": "rect" if len(ob) == 1 else "L",
                       "material": "mountain" if i % 2 == 0 else "lake",
                       "parts": [[list(t.mm((x, y))) for x, y in _square(r)] for r in ob],
                       "seed": t.seed_for(f"obstacle:{i}")})
    for sid, (r, card_id) in sc.stations.items():
        card = t.catalogue[card_id]
        if card.role is Role.METROPOLIS:
            continue
        c = t.mm((r.cx, r.cy))
        start = start_of.get(sid)
        kind = "start" if card.role is Role.STARTING_CITY else TYPE_NAMES[card.type]
        pieces.append({"kind": "station", "id": sid, "type": kind, "centre": list(c), "size": r.w,
                       "angle": 0.0, "player": start, "seed": t.seed_for(f"station:{sid}")})
    if -1 not in t.chains:
        rng = np.random.default_rng(t.seed_for("chain:river"))
        # the River starts at the board's edge (as vision.synth.railways lays it), not under
        # it; on the Gigantopolis board, clear of its four cards
        half = SimGeometry().board_mm / 2
        river_path = trim(sc.river, half + 2.0 if t.game.variant == "gigantopolis" else half - 20.0, 0.0)
        poses = lay_chain(rng, [t.mm(p) for p in river_path], R.RIVER_CLIPS, t.clip_length_mm)
        river = _chain_piece(t, "river", "blue", poses)
        river["kind"] = "river"
        cols = ["blue"] * len(poses)
        for s in R.SILVER_AT:
            if s - 1 < len(cols):
                cols[s - 1] = "silver"
        river["colours"] = cols
        t.chains[-1] = [river]
    pieces += t.chains[-1]
    for i, (lid, colour, clips, path) in enumerate(sc.links):
        if i not in t.chains:
            t.chains[i] = [link_piece(t, lid, colour, clips, path)]
        pieces += t.chains[i]
    pieces += list(extra_links)
    for sid, held in _cubes_after(t, moves).items():
        r = sc.stations[sid][0]
        for k, colour in enumerate(held):
            key = (sid, f"{colour}:{k}")
            if key not in t.cube_spots:
                rr = random.Random(f"{t.seed}:cube:{sid}:{colour}:{k}")
                spread = 0.3 * r.w
                t.cube_spots[key] = (t.mm((r.cx + rr.uniform(-spread, spread), r.cy + rr.uniform(-spread, spread))),
                                     rr.uniform(0, 90))
            c, ang = t.cube_spots[key]
            pieces.append({"kind": "rail_cube", "colour": colour, "centre": list(c), "angle": ang, "size": 10.0})
    return {"game": "railways", "seed": t.seed * 1000 + moves, "profile": "railways",
            **t.env, "resolution": list(t.resolution), "pieces": pieces, "occluders": list(occluders),
            "meta": {"railways_game": {"moves": moves, "links": len(sc.links)}}}


def build_moves(game: SimGame) -> list[int]:
    """Indices k (1-based move counts) after which a link was built: the frames to take."""
    return [k + 1 for k, m in enumerate(game.moves) if isinstance(m.move, BuiltLink)]


def _wires(piece: dict[str, Any]) -> list[F64]:
    poses = [R.pose_from_dict(d) for d in piece["clips"]]
    return R.chain_wires(poses, float(piece["width_mm"]), float(piece["wire_mm"]))


def drawn_game(t: GameTable) -> SimGame:
    """The game with each build's crossings (links, obstacle tiles, the River) as its drawn
    chain makes them, scored again by the rules.

    Why: the simulator measures its ideal bowed path, but the chain is laid along it with
    slack and twist (and the River from the board's edge), so a drawn chain can touch what
    the path missed or miss what it touched; the camera sees the drawing. Two things touch
    where their drawn wires meet, as in vision.synth.railways' truth; links are compared
    without their end clips, as the simulator compares them (chains meet on a station).
    """
    n = len(t.game.moves)
    drawn = scene_after_move(t, n)              # lays every chain into t.chains
    lids = [lid for lid, _c, _k, _p in scene_after(t.game, n).links]
    wires = [_wires(t.chains[i][0]) for i in range(len(lids))]
    river = _wires(t.chains[-1][0])
    tiles = [R.obstacle_parts(p) for p in drawn["pieces"] if p["kind"] == "obstacle"]
    moves: list[Move] = []
    built = 0
    for m in t.game.moves:
        b = m.move
        if not isinstance(b, BuiltLink):
            moves.append(b)
            continue
        w = wires[built]
        reach = float(t.chains[built][0]["wire_mm"])
        inner = w[1:-1]
        links = tuple(lids[j] for j in range(built)
                      if inner and len(wires[j]) > 2 and R.wires_touch(inner, wires[j][1:-1], reach))
        obstacles = sum(1 for ob in tiles if any(R.wires_touch_polygon(w, p, reach / 2) for p in ob))
        river_parts = (max(1, b.river_parts) if R.wires_touch(w, river, reach) else 0)
        moves.append(replace(b, touches_links=links, obstacles=obstacles, river_parts=river_parts))
        built += 1
    return replayed(t.game, moves, t.catalogue)
