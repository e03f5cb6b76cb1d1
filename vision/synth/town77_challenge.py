"""Town 77 solo Challenge tables: the city plus three face-up piles below it, frame by
frame for a seeded game played by the rules (the hint search, or random legal moves).

The piles stand in lattice row 8 (one empty row under the city) at columns 0, 3 and 6
(docs/rules-notes.md, "Town 77 Challenge on the device"), so the style's grid has 9
rows and the whole lattice fits the play area. A pile is a "stack" of plain tile
bodies (their cut edges show) with the top tile drawn as a normal face-up tile on it,
at the pile's real height, so its top sits above the table as on a real table.

    frames = challenge_game(seed, policy="hint")       # rules only: states, no pixels
    scene = challenge_scene(frames[k], style, env, seed=k)   # one frame's scene dict

Truth (scene["meta"]): the city's "tiles" as in vision.synth.town77, plus "piles":
[{"pile", "count", "top": {"shape", "colour"} | None}] and "move" (the frame's move).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from calibration.profile import default_profile
from rules.town77 import Cell, ChallengeGame, Tile, legal_cells
from vision.synth.randomize import random_environment
from vision.synth.town77 import GRID, cell_centre, city_scene, random_style

PILE_ROW = 8
PILE_COLS = (0, 3, 6)
LEVELS_PER_BLOCK = 4     # pile bodies drawn 4 tiles to a level: same height, fewer passes


@dataclass
class ChallengeFrame:
    """The table after a move: the city (placement order kept), the piles top first."""

    city: list[tuple[Cell, Tile]]
    piles: tuple[tuple[Tile, ...], ...]
    move: dict[str, Any] = field(default_factory=dict)
    misplaced: bool = False


def challenge_game(seed: int, policy: str = "hint", max_moves: int | None = None,
                   misplace_at: int | None = None) -> list[ChallengeFrame]:
    """A seeded solo game: frame 0 is the dealt piles, then one frame per placement.

    policy "hint" plays rules.town77's hint (depth 1: fast), "random" a random legal
    (pile, cell). misplace_at=k makes the k-th placement (k >= 1) break a rule, the last frame."""
    rng = random.Random(f"town77-challenge:{seed}")
    game = ChallengeGame.new(rng)
    placed: list[tuple[Cell, Tile]] = []
    frames = [ChallengeFrame([], game.piles)]
    while not game.is_over() and (max_moves is None or len(placed) < max_moves):
        k = len(placed) + 1
        if game.city.is_empty:
            pile = 0 if policy == "hint" else rng.randrange(3)
            while game.tops[pile] is None:
                pile = (pile + 1) % 3
            tile, cell = game.tops[pile], Cell(0, 0)
            assert tile is not None
        elif misplace_at == k:
            bad = _misplacement(game, rng)
            if bad is None:
                break
            pile, tile, cell = bad
        elif policy == "hint":
            h = game.hint(depth=1)
            if h is None:
                break
            pile, tile, cell = h.pile, h.tile, h.cell
        else:
            options = [(i, t, c) for i, t in enumerate(game.tops) if t is not None
                       for c in legal_cells(game.city, t)]
            if not options:
                break
            pile, tile, cell = rng.choice(options)
        if misplace_at == k:
            piles = tuple(p[1:] if i == pile else p for i, p in enumerate(game.piles))
            frames.append(ChallengeFrame(placed + [(cell, tile)], piles,
                                         {"pile": pile, "tile": tile.token, "cell": cell.name},
                                         misplaced=True))
            break
        game.place(0, tile, cell)
        placed.append((cell, tile))
        frames.append(ChallengeFrame(list(placed), game.piles,
                                     {"pile": pile, "tile": tile.token, "cell": cell.name}))
    return frames


def _misplacement(game: ChallengeGame, rng: random.Random) -> tuple[int, Tile, Cell] | None:
    """A pile top put on a free cell touching the city where the rules refuse it."""
    from rules.town77 import why_illegal

    options = []
    occupied = set(game.city.tiles())
    for i, t in enumerate(game.tops):
        if t is None:
            continue
        for r in range(GRID):
            for c in range(GRID):
                cell = Cell(r, c)
                touches = any(Cell(r + dr, c + dc) in occupied
                              for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)))
                if cell not in occupied and touches and why_illegal(game.city, t, cell) is not None:
                    options.append((i, t, cell))
    return rng.choice(options) if options else None


def challenge_style(seed: int, **options: Any) -> dict[str, Any]:
    """A Town 77 style whose grid has room for the pile row (9 rows x 7 columns)."""
    return random_style(seed, default_profile("town77"), rows=PILE_ROW + 1, cols=GRID, **options)


def pile_pieces(frame: ChallengeFrame, style: dict[str, Any], flat: bool = False
                ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The three piles as scene pieces, and their truth (flat: only the top tile, lying
    on the table, to tell a reader's trouble with pile height from its layout)."""
    tile_style = style["tile"]
    th = float(tile_style.get("thickness_mm", 2.0))
    pieces: list[dict[str, Any]] = []
    truth: list[dict[str, Any]] = []
    for i, pile in enumerate(frame.piles):
        top = pile[0] if pile else None
        truth.append({"pile": i, "count": len(pile),
                      "top": None if top is None else {"shape": top.shape, "colour": top.colour}})
        if top is None:
            continue
        cx, cy = cell_centre(style, PILE_ROW, PILE_COLS[i])
        r = random.Random(f"town77-pile:{style['seed']}:{i}:{len(pile)}")
        centre = [cx + r.uniform(-2.5, 2.5), cy + r.uniform(-2.5, 2.5)]
        truth[-1]["centre_mm"] = centre
        under = 0 if flat else len(pile) - 1
        blocks = (under + LEVELS_PER_BLOCK - 1) // LEVELS_PER_BLOCK
        angle = float(style["angle_deg"])
        if blocks:
            pieces.append({"kind": "stack", "centre_mm": [cx, cy], "side_mm": style["side_mm"],
                           "angle_deg": angle, "style": "tiles",
                           "thickness_mm": th * under / blocks,
                           "levels": [{"colour": list(tile_style.get("face", [235, 238, 240])),
                                       "shape": None,
                                       "offset_mm": [r.uniform(-1.5, 1.5), r.uniform(-1.5, 1.5)],
                                       "angle_deg": r.uniform(-3, 3)} for _ in range(blocks)],
                           "key": f"pile:{i}:{len(pile)}"})
        pieces.append({"kind": "tile",
                       "centre_mm": centre,
                       "side_mm": style["side_mm"], "angle_deg": angle + r.uniform(-4, 4),
                       "shape": style["shape_set"][top.shape],
                       "colour": style["colour_bgr"][top.colour], "face_down": False,
                       "style": "tiles", "base_height_mm": th * under,
                       "row": PILE_ROW, "col": PILE_COLS[i], "pile": i,
                       "key": f"pile-top:{top.token}"})
    return pieces, truth


def challenge_scene(frame: ChallengeFrame, style: dict[str, Any], env: dict[str, Any], seed: int,
                    wobble: float = 0.0, flat: bool = False) -> dict[str, Any]:
    """One frame of a Challenge as a scene dict (render it with render_scene)."""
    cells = [{"row": c.row, "col": c.col, "shape": t.shape, "colour": t.colour, "serial": 0}
             for c, t in frame.city]
    scene = city_scene(cells, style, env, seed, game="town77", wobble=wobble)
    pieces, truth = pile_pieces(frame, style, flat)
    scene["pieces"] += pieces
    scene["meta"]["piles"] = truth
    scene["meta"]["move"] = dict(frame.move)
    scene["meta"]["misplaced"] = frame.misplaced
    return scene


def challenge_table(seed: int, resolution: tuple[int, int] = (1280, 720),
                    **options: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A fixed style and environment for one game (options as town77.random_scene's)."""
    rng = random.Random(f"town77-challenge-env:{seed}")
    profile = default_profile("town77")
    style_opts = {k: options[k] for k in ("art", "side_mm", "gap_mm", "angle_deg", "max_angle_deg",
                                          "jitter_deg", "jitter_mm") if k in options}
    style = challenge_style(seed, **style_opts)
    env_opts = {k: options[k] for k in ("height", "tilt", "yaw", "lens_kind", "camera", "lens", "light",
                                        "surface", "degrade") if k in options}
    env = random_environment(rng, resolution, profile, **env_opts)
    env["profile"] = profile.name
    return style, env


def random_scene(seed: int, **options: Any) -> dict[str, Any]:
    """A random frame of a random Challenge (the "town77-challenge" generator).
    options: resolution=(W, H), policy=, frame= (index; default random), plus
    challenge_table's."""
    res = tuple(options.get("resolution", (1280, 720)))
    style, env = challenge_table(seed, (int(res[0]), int(res[1])), **options)
    frames = challenge_game(seed, str(options.get("policy", "random")))
    k = int(options.get("frame", random.Random(f"town77-challenge-frame:{seed}").randrange(len(frames))))
    return challenge_scene(frames[min(k, len(frames) - 1)], style, env, seed)


def truth_observation(meta: dict[str, Any], seed: int) -> dict[str, Any]:
    """What a reader that never errs would report for a frame (scene["meta"]), naming
    shapes and colours by group ids numbered afresh for each frame, as the tile reader
    does without a taught palette: for loop tests and the session's own measurement."""
    rng = random.Random(f"town77-challenge-labels:{seed}")
    shapes, colours = list(range(GRID)), list(range(GRID))
    rng.shuffle(shapes)
    rng.shuffle(colours)
    tiles = [{"row": t["row"], "col": t["col"], "centre_mm": list(t["centre_mm"]),
              "face_down": bool(t["face_down"]), "shape": f"shape-{shapes[t['shape']] + 1}",
              "colour": f"colour-{colours[t['colour']] + 1}"} for t in meta["tiles"]]
    for p in meta["piles"]:
        top = p["top"]
        if top is not None:
            tiles.append({"row": PILE_ROW, "col": PILE_COLS[p["pile"]],
                          "centre_mm": list(p["centre_mm"]), "face_down": False,
                          "shape": f"shape-{shapes[top['shape']] + 1}",
                          "colour": f"colour-{colours[top['colour']] + 1}"})
    return {"game": "town77", "tiles": tiles, "conflicts": []}
