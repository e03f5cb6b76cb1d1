"""Town 77 scenes: a city of up to 7 x 7 house tiles grown from the Pioneering Tile
(row 0, col 0 = the city's top-left), on a grid at any position and turn in the play
area, each tile a little off its cell. Also the generic "tiles" grid generator.

Two entry points:
- random_scene(seed, **options): a random city in a random environment;
- city_scene(cells, style, env, seed): a GIVEN city with a FIXED style and environment,
  so the device loop and game benches can render a whole game frame by frame on the
  same table (only the tiles, hands and sensor noise change).

A city style (random_style) holds everything about the tiles that stays fixed over a
game: the shape set and colour set (names + sRGB BGR), the art style, tile side, pitch,
grid origin (centre of cell 0,0) and angle, and the per-tile jitter ranges.
Truth (in Rendered.truth): "tiles" [{row, col, centre_mm, centre_px, face_down, shape,
colour (indices into the sets), shape_name, colour_name, angle_deg}], "shape_set",
"colour_set", "colour_bgr", "tile_side_mm", "pitch_mm", "grid".
"""

from __future__ import annotations

import math
import random
from typing import Any, Sequence

from calibration.profile import TableProfile, default_profile
from vision.synth.canvas import transform
from vision.synth.randomize import random_environment
from vision.synth.tiles import random_colour_set, random_shape_set, random_tile_style

GRID = 7


def random_style(seed: int, profile: TableProfile | None = None, n_shapes: int = GRID,
                 n_colours: int = GRID, rows: int = GRID, cols: int = GRID, **options: Any) -> dict[str, Any]:
    """A random but fixed look for one game's tiles and where its grid lies.

    options: art= (one of tiles.ARTS), side_mm=, gap_mm=, angle_deg= (grid turn),
    max_angle_deg= (default 20), jitter_deg= (default 5), jitter_mm= (default 2)."""
    rng = random.Random(f"town77-style:{seed}")
    prof = profile or default_profile("town77")
    tile = random_tile_style(rng, options.get("art"))
    face = tile["face"]
    shapes = random_shape_set(rng, n_shapes)
    cnames, cbgr = random_colour_set(rng, n_colours, face)
    side = float(options.get("side_mm", rng.uniform(30.0, 45.0)))
    gap = float(options.get("gap_mm", rng.uniform(0.3, 3.0)))
    pitch = side + gap
    max_ang = float(options.get("max_angle_deg", 20.0))
    angle = float(options.get("angle_deg", rng.uniform(-max_ang, max_ang)))
    jit_deg = float(options.get("jitter_deg", 5.0))
    jit_mm = float(options.get("jitter_mm", 2.0))
    ax, ay = prof.area_origin_mm
    aw, ah = prof.area_size_mm
    # place the whole rows x cols grid (plus jitter) inside the play area, shrinking the
    # turn if a large grid cannot fit at this angle
    for _ in range(40):
        local = [(-0.5 * pitch - jit_mm - side * 0.1, -0.5 * pitch - jit_mm - side * 0.1),
                 ((cols - 0.5) * pitch + jit_mm + side * 0.1, -0.5 * pitch - jit_mm - side * 0.1),
                 ((cols - 0.5) * pitch + jit_mm + side * 0.1, (rows - 0.5) * pitch + jit_mm + side * 0.1),
                 (-0.5 * pitch - jit_mm - side * 0.1, (rows - 0.5) * pitch + jit_mm + side * 0.1)]
        pts = transform(local, (0.0, 0.0), angle)
        lo_x, hi_x = ax - pts[:, 0].min(), ax + aw - pts[:, 0].max()
        lo_y, hi_y = ay - pts[:, 1].min(), ay + ah - pts[:, 1].max()
        if lo_x <= hi_x and lo_y <= hi_y:
            break
        angle *= 0.8
        if abs(angle) < 0.5:
            side *= 0.95
            pitch = side + gap
    origin = [float(options.get("origin_x", rng.uniform(lo_x, max(lo_x, hi_x)))),
              float(options.get("origin_y", rng.uniform(lo_y, max(lo_y, hi_y))))]
    return {"tile": tile, "shape_set": shapes, "colour_set": cnames, "colour_bgr": cbgr,
            "side_mm": side, "pitch_mm": pitch, "origin_mm": origin, "angle_deg": angle,
            "jitter_deg": jit_deg, "jitter_mm": jit_mm, "seed": seed, "rows": rows, "cols": cols}


def cell_centre(style: dict[str, Any], row: int, col: int) -> tuple[float, float]:
    """The ideal table position (mm) of a cell's centre."""
    p = transform([[col * style["pitch_mm"], row * style["pitch_mm"]]], style["origin_mm"], style["angle_deg"])
    return float(p[0, 0]), float(p[0, 1])


def _jitter(style: dict[str, Any], row: int, col: int, serial: int) -> tuple[float, float, float]:
    """A tile's own turn and offset, fixed by where (and the how-manieth time) it was placed."""
    r = random.Random(f"town77-jitter:{style['seed']}:{row}:{col}:{serial}")
    j = float(style["jitter_mm"])
    d = float(style["jitter_deg"])
    return r.uniform(-d, d), r.uniform(-j, j), r.uniform(-j, j)


def _index(value: Any, names: Sequence[str], what: str) -> int:
    if isinstance(value, int):
        if not 0 <= value < len(names):
            raise ValueError(f"{what} index {value} out of range 0..{len(names) - 1}")
        return value
    if value in names:
        return list(names).index(value)
    raise ValueError(f"unknown {what} {value!r}; use an index or one of: {', '.join(names)}")


def wobble_env(env: dict[str, Any], seed: int, amount: float) -> dict[str, Any]:
    """The same table a moment later: auto-exposure and white balance drift a little,
    the camera mount shakes a little (amount 1: +-0.08 stop, +-80 K, +-0.3 mm, +-0.05 deg)."""
    if amount <= 0:
        return env
    r = random.Random(f"wobble:{seed}")
    out = dict(env)
    light = dict(env.get("light") or {})
    light["stops"] = float(light.get("stops", 0.0)) + amount * r.uniform(-0.08, 0.08)
    light["kelvin"] = float(light.get("kelvin", 5000.0)) + amount * r.uniform(-80, 80)
    cam = dict(env.get("camera") or {})
    if "target_mm" in cam:
        cam["target_mm"] = [float(v) + amount * r.uniform(-0.3, 0.3) for v in cam["target_mm"]]
    for k in ("yaw_deg", "tilt_deg"):
        if k in cam:
            cam[k] = float(cam[k]) + amount * r.uniform(-0.05, 0.05)
    out["light"], out["camera"] = light, cam
    return out


def city_scene(cells: list[dict[str, Any]], style: dict[str, Any], env: dict[str, Any], seed: int,
               occluders: list[dict[str, Any]] | None = None, game: str = "town77",
               wobble: float = 0.0) -> dict[str, Any]:
    """The scene of a given city. cells: [{row, col, shape, colour, face_down?, serial?,
    angle_deg?, offset_mm?}] with shape/colour as indices into the style's sets (or names).
    wobble > 0 lets exposure, white balance and the camera mount drift a little with
    the seed (see wobble_env), as between two real frames of one game."""
    env = wobble_env(env, seed, wobble)
    pieces = []
    truth_tiles = []
    for c in cells:
        row, col = int(c["row"]), int(c["col"])
        si = _index(c.get("shape", 0), style["shape_set"], "shape")
        ci = _index(c.get("colour", 0), style["colour_set"], "colour")
        ja, jx, jy = _jitter(style, row, col, int(c.get("serial", 0)))
        if "angle_deg" in c:
            ja = float(c["angle_deg"]) - float(style["angle_deg"])
        if "offset_mm" in c:
            jx, jy = (float(v) for v in c["offset_mm"])
        cx, cy = cell_centre(style, row, col)
        centre = [cx + jx, cy + jy]
        angle = float(style["angle_deg"]) + ja
        fd = bool(c.get("face_down", False))
        pieces.append({"kind": "tile", "centre_mm": centre, "side_mm": style["side_mm"], "angle_deg": angle,
                       "shape": style["shape_set"][si], "colour": style["colour_bgr"][ci],
                       "face_down": fd, "style": "tiles", "row": row, "col": col,
                       "key": f"{row}:{col}:{int(c.get('serial', 0))}"})
        truth_tiles.append({"row": row, "col": col, "centre_mm": centre, "face_down": fd,
                            "shape": si, "colour": ci, "shape_name": style["shape_set"][si],
                            "colour_name": style["colour_set"][ci], "angle_deg": angle})
    scene = dict(env)
    scene.update({
        "game": game, "seed": int(seed), "styles": {"tiles": style["tile"]},
        "pieces": pieces, "occluders": list(occluders or []),
        "meta": {"tiles": truth_tiles, "shape_set": list(style["shape_set"]),
                 "colour_set": list(style["colour_set"]), "colour_bgr": [list(c) for c in style["colour_bgr"]],
                 "tile_side_mm": style["side_mm"], "pitch_mm": style["pitch_mm"],
                 "art": style["tile"]["art"],
                 "grid": {"origin_mm": list(style["origin_mm"]), "angle_deg": style["angle_deg"],
                          "rows": style.get("rows", GRID), "cols": style.get("cols", GRID)}},
    })
    return scene


def random_city(rng: random.Random, n_tiles: int, face_down_p: float = 0.08,
                n_shapes: int = GRID, n_colours: int = GRID) -> list[dict[str, Any]]:
    """A city grown from the pioneer (0, 0) through side-adjacent cells of the 7 x 7 grid,
    each tile's shape and colour chosen to repeat nothing in its row and column when
    that is still possible (legal-ish: a reader must not rely on it).

    The box holds each (shape, colour) once (the rulebook's 49 tiles), so no pair is
    drawn twice: until session 34 a drawn pair already in the city was kept, and 78% of
    the bench's cities held a tile the box does not have. The draws go on exactly as
    before (from the pairs as drawn), and a pair already used is then swapped for a free
    one by a generator of its own (_free_pair): the city's cells, its face-down tiles,
    its environment and every tile that was unique stay as they were."""
    n = max(1, min(n_tiles, GRID * GRID))
    drawn: dict[tuple[int, int], tuple[int, int]] = {}
    placed: dict[tuple[int, int], dict[str, Any]] = {}
    order = [(0, 0)]
    frontier = {(0, 0)}
    while len(placed) < n and frontier:
        cell = rng.choice(sorted(frontier)) if placed else (0, 0)
        frontier.discard(cell)
        r, c = cell
        pair = (rng.choice(_free(drawn, r, c, 0, n_shapes)), rng.choice(_free(drawn, r, c, 1, n_colours)))
        drawn[cell] = pair
        final = {k: (v["shape"], v["colour"]) for k, v in placed.items()}
        free_s, free_c = _free(final, r, c, 0, n_shapes), _free(final, r, c, 1, n_colours)
        # a swap earlier may leave the drawn pair repeating its line: swapped as well
        if pair in final.values() or pair[0] not in free_s or pair[1] not in free_c:
            pair = _free_pair(random.Random(f"{pair}:{cell}:{len(placed)}"), free_s, free_c,
                              set(final.values()), n_shapes, n_colours)
        placed[cell] = {"row": r, "col": c, "shape": pair[0], "colour": pair[1],
                        "face_down": len(placed) > 0 and rng.random() < face_down_p}
        order.append(cell)
        for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            nr, nc = r + dr, c + dc
            if 0 <= nr < GRID and 0 <= nc < GRID and (nr, nc) not in placed:
                frontier.add((nr, nc))
    return list(placed.values())


def _free(pairs: dict[tuple[int, int], tuple[int, int]], r: int, c: int, kind: int, count: int) -> list[int]:
    """The shapes (kind 0) or colours (kind 1) row r and column c do not show yet (all
    when they show every one)."""
    seen = {p[kind] for (rr, cc), p in pairs.items() if rr == r or cc == c}
    return [i for i in range(count) if i not in seen] or list(range(count))


def _free_pair(rng: random.Random, free_s: list[int], free_c: list[int], used: set[tuple[int, int]],
               n_shapes: int, n_colours: int) -> tuple[int, int]:
    """A pair not in the city yet: one its row and column allow if there is one, else any."""
    for shapes, colours in ((free_s, free_c), (range(n_shapes), range(n_colours))):
        pool = [(s, c) for s in shapes for c in colours if (s, c) not in used]
        if pool:
            return rng.choice(pool)
    raise ValueError(f"a city of more than {n_shapes * n_colours} tiles: the box holds each pair once")


def random_scene(seed: int, **options: Any) -> dict[str, Any]:
    """A random Town 77 frame. options: resolution=(W, H) (default 1920x1080),
    n_tiles= (default random 1..49), face_down_p=, hands= (number of hands over the
    table, default 0), cup= (bool), clutter= (number of distractor props off the
    grid, default 0), style options (see random_style) and environment options (see
    randomize.random_environment)."""
    rng = random.Random(f"town77:{seed}")
    profile = default_profile(str(options.get("profile", "town77")))
    res = tuple(options.get("resolution", (1920, 1080)))
    style_opts = {k: options[k] for k in ("art", "side_mm", "gap_mm", "angle_deg", "max_angle_deg",
                                          "jitter_deg", "jitter_mm") if k in options}
    style = random_style(seed, profile, **style_opts)
    env_opts = {k: options[k] for k in ("height", "tilt", "yaw", "lens_kind", "camera", "lens", "light",
                                        "surface", "degrade") if k in options}
    env = random_environment(rng, res, profile, **env_opts)
    env["profile"] = profile.name
    n = int(options.get("n_tiles", rng.randint(1, GRID * GRID)))
    cells = random_city(rng, n, float(options.get("face_down_p", 0.08)))
    occ = random_occluders(rng, profile, int(options.get("hands", 0)), bool(options.get("cup", False)))
    scene = city_scene(cells, style, env, seed, occ)
    scene["pieces"] += clutter(rng, style, profile, int(options.get("clutter", 0)))
    return scene


def clutter(rng: random.Random, style: dict[str, Any], profile: TableProfile, n: int) -> list[dict[str, Any]]:
    """n distractors (cards, tokens, cubes, meeples) on the table but clear of the
    city's 7 x 7 grid: a reader must not take them for tiles."""
    if n <= 0:
        return []
    from vision.synth.props import random_props

    (ax, ay), (aw, ah) = profile.area_origin_mm, profile.area_size_mm
    pitch = float(style["pitch_mm"])
    rows, cols = int(style.get("rows", GRID)), int(style.get("cols", GRID))
    out: list[dict[str, Any]] = []
    pool = random_props(rng, (ax - 60, ay - 60, ax + aw + 60, ay + ah + 60), n, n, n, n)
    rng.shuffle(pool)
    ang = math.radians(-float(style["angle_deg"]))
    ox, oy = (float(v) for v in style["origin_mm"])
    for p in pool:
        if len(out) >= n:
            break
        x, y = (float(v) for v in p["centre_mm"])
        # in grid coordinates (cells), with a margin of one pitch around the grid
        u = ((x - ox) * math.cos(ang) - (y - oy) * math.sin(ang)) / pitch
        v = ((x - ox) * math.sin(ang) + (y - oy) * math.cos(ang)) / pitch
        if -1.6 < u < cols + 0.6 and -1.6 < v < rows + 0.6:
            continue
        out.append(p)
    return out


def tiles_scene(seed: int, **options: Any) -> dict[str, Any]:
    """The generic "tiles" generator: a rows x cols grid (fully or partly filled) of tiles
    with N shapes x M colours. options: shapes= (N, default 6), colours= (M, default 6),
    rows=, cols= (default 6 x 6), fill= (fraction of cells, default 1), plus the
    options of town77.random_scene."""
    rng = random.Random(f"tiles:{seed}")
    profile = default_profile(str(options.get("profile", "tiles")))
    n_s, n_c = int(options.get("shapes", 6)), int(options.get("colours", 6))
    rows, cols = int(options.get("rows", 6)), int(options.get("cols", 6))
    res = tuple(options.get("resolution", (1920, 1080)))
    style_opts = {k: options[k] for k in ("art", "side_mm", "gap_mm", "angle_deg", "max_angle_deg",
                                          "jitter_deg", "jitter_mm") if k in options}
    style = random_style(seed, profile, n_shapes=n_s, n_colours=n_c, rows=rows, cols=cols, **style_opts)
    env_opts = {k: options[k] for k in ("height", "tilt", "yaw", "lens_kind", "camera", "lens", "light",
                                        "surface", "degrade") if k in options}
    env = random_environment(rng, res, profile, **env_opts)
    env["profile"] = profile.name
    fill = float(options.get("fill", 1.0))
    cells = []
    for r in range(rows):
        for c in range(cols):
            if rng.random() <= fill:
                cells.append({"row": r, "col": c, "shape": rng.randrange(n_s), "colour": rng.randrange(n_c),
                              "face_down": rng.random() < float(options.get("face_down_p", 0.0))})
    occ = random_occluders(rng, profile, int(options.get("hands", 0)), bool(options.get("cup", False)))
    return city_scene(cells, style, env, seed, occ, game="tiles")


def random_occluders(rng: random.Random, profile: TableProfile, hands: int, cup: bool) -> list[dict[str, Any]]:
    """Hands reaching in from the table's edges and a cup put down near the play area."""
    if hands <= 0 and not cup:
        return []
    from vision.synth.occluders import random_cup, random_hand

    out = [random_hand(rng, profile) for _ in range(hands)]
    if cup:
        out.append(random_cup(rng, profile))
    return out


