"""Random Paperclip Railways tables: stations, the Metropolis board, obstacles, the River,
cubes and links of interlocked clips, with the ground truth a reader is scored against.

Why generated this way: every hard case of the real game must occur on random tables
(bunched and taut slack, clips on edge, tight curves, links crossing each other, the
River and obstacles, white on light and black on dark tables, cubes over chain ends), and
the truth (counts, end stations, crossing lists) is computed from the very clip
geometry that is drawn, never from a simpler model.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.synth import clips as C
from vision.synth.colour import lin

F64 = NDArray[np.float64]

# sRGB BGR 0-255, as scene dicts carry colours.
CLIP_COLOURS: dict[str, tuple[int, int, int]] = {
    "red": (38, 36, 196), "white": (236, 236, 232), "green": (52, 150, 36),
    "black": (28, 28, 30), "yellow": (30, 208, 236),
    "blue": (196, 96, 28), "silver": (172, 170, 166),
}
PLAYER_COLOURS = ("red", "white", "green", "black", "yellow")
CUBE_COLOURS: dict[str, tuple[int, int, int]] = {
    "red": (50, 46, 186), "white": (222, 224, 220), "green": (64, 140, 48),
    "black": (40, 38, 36), "yellow": (40, 196, 228),
}
STATION_COLOURS: dict[str, tuple[int, int, int]] = {
    "city": (64, 212, 246), "town": (36, 140, 238), "suburban": (70, 64, 204),
    "countryside": (86, 172, 92), "start": (214, 186, 196),
}
OBSTACLE_COLOURS = {"mountain": (96, 118, 132), "lake": (178, 138, 92)}
STATION_MM = 60.0
METRO_MM = 140.0
METRO_TYPES = ("town", "suburban", "town", "suburban")
RIVER_CLIPS = 32
SILVER_AT = (12, 16)          # 1-based positions from the river's Metropolis end


# ----- geometry helpers ------------------------------------------------------------------

def square(centre: Any, side: float, angle_deg: float) -> F64:
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    h = side / 2
    local = np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
    return np.asarray(local @ np.array([[c, s], [-s, c]]) + np.asarray(centre), dtype=np.float64)


def rect(centre: Any, w: float, h: float, angle_deg: float) -> F64:
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return np.asarray(local @ np.array([[c, s], [-s, c]]) + np.asarray(centre), dtype=np.float64)


def convex_touch(a: F64, b: F64) -> bool:
    """Do two convex polygons touch or overlap?"""
    if (a[:, 0].max() < b[:, 0].min() or b[:, 0].max() < a[:, 0].min()
            or a[:, 1].max() < b[:, 1].min() or b[:, 1].max() < a[:, 1].min()):
        return False
    area, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return bool(area > 1e-3)


def obstacle_parts(ob: dict[str, Any]) -> list[F64]:
    """An obstacle as convex parts (an L is two rectangles)."""
    return [np.asarray(p, dtype=np.float64) for p in ob["parts"]]


def bezier(p0: F64, p1: F64, p2: F64, p3: F64, n: int = 200) -> F64:
    t = np.linspace(0, 1, n)[:, None]
    return np.asarray((1 - t) ** 3 * p0 + 3 * (1 - t) ** 2 * t * p1 + 3 * (1 - t) * t ** 2 * p2
                      + t ** 3 * p3, dtype=np.float64)


def min_radius(path: F64) -> float:
    """Smallest radius of curvature along a densely sampled path (mm)."""
    d1 = np.gradient(path, axis=0)
    d2 = np.gradient(d1, axis=0)
    num = np.abs(d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0])
    speed = np.hypot(d1[:, 0], d1[:, 1])
    k = num / np.maximum(speed ** 3, 1e-12)
    return float(1.0 / max(float(k.max()), 1e-9))


def _pose_dict(p: C.ClipPose) -> dict[str, Any]:
    return {"start": [round(p.start[0], 3), round(p.start[1], 3)],
            "end": [round(p.end[0], 3), round(p.end[1], 3)],
            "twist": round(p.twist_deg, 2), "flipped": p.flipped, "mirrored": p.mirrored}


def pose_from_dict(d: dict[str, Any]) -> C.ClipPose:
    return C.ClipPose((float(d["start"][0]), float(d["start"][1])),
                      (float(d["end"][0]), float(d["end"][1])),
                      float(d.get("twist", 0.0)), bool(d.get("flipped", False)),
                      bool(d.get("mirrored", False)))


# ----- the generator -----------------------------------------------------------------------

class _Table:
    """The pieces placed so far, for overlap checks while generating."""

    def __init__(self, origin: tuple[float, float], size: tuple[float, float]) -> None:
        self.x0, self.y0 = origin
        self.x1, self.y1 = origin[0] + size[0], origin[1] + size[1]
        self.stations: list[dict[str, Any]] = []
        self.obstacles: list[dict[str, Any]] = []

    def inside(self, pts: F64, margin: float = 0.0) -> bool:
        return bool((pts[:, 0] >= self.x0 + margin).all() and (pts[:, 0] <= self.x1 - margin).all()
                    and (pts[:, 1] >= self.y0 + margin).all() and (pts[:, 1] <= self.y1 - margin).all())


def _grow(poly: F64, by: float) -> F64:
    c = poly.mean(axis=0)
    v = poly - c
    n = np.linalg.norm(v, axis=1, keepdims=True)
    return np.asarray(c + v * (1 + by / np.maximum(n, 1e-9)), dtype=np.float64)


def _place_station(rng: np.random.Generator, t: _Table, sid: str, stype: str,
                   near: dict[str, Any] | None = None, gap: float = 20.0,
                   tries: int = 60) -> dict[str, Any] | None:
    for _ in range(tries):
        ang = float(rng.uniform(-25, 25))
        if near is None:
            c = (float(rng.uniform(t.x0 + 20, t.x1 - 20)), float(rng.uniform(t.y0 + 20, t.y1 - 20)))
        else:
            a = rng.uniform(0, 2 * math.pi)
            d = STATION_MM + gap * float(rng.uniform(0.3, 1.6))
            c = (near["centre"][0] + d * math.cos(a), near["centre"][1] + d * math.sin(a))
        poly = square(c, STATION_MM, ang)
        if not t.inside(poly.mean(axis=0).reshape(1, 2), 10):
            continue
        big = _grow(poly, 4.0)
        if any(convex_touch(big, np.asarray(s["polygon"])) for s in t.stations):
            continue
        if any(convex_touch(big, p) for ob in t.obstacles for p in obstacle_parts(ob)):
            continue
        st = {"kind": "station", "id": sid, "type": stype, "centre": [c[0], c[1]],
              "size": STATION_MM, "angle": ang, "polygon": poly.tolist(), "cubes": []}
        t.stations.append(st)
        return st
    return None


def _obstacle(rng: np.random.Generator, t: _Table, shape: str, i: int) -> dict[str, Any] | None:
    for _ in range(60):
        c = (float(rng.uniform(t.x0 + 90, t.x1 - 90)), float(rng.uniform(t.y0 + 90, t.y1 - 90)))
        ang = float(rng.uniform(0, 360))
        mat = "mountain" if i % 2 == 0 else "lake"
        if shape == "rect":
            parts = [rect(c, float(rng.uniform(110, 150)), float(rng.uniform(50, 70)), ang)]
        else:
            arm, w = float(rng.uniform(100, 130)), float(rng.uniform(45, 60))
            a = math.radians(ang)
            u, v = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
            cc = np.asarray(c)
            parts = [rect(cc + u * (arm / 2 - w / 2), arm, w, ang),
                     rect(cc + v * (arm / 2), w, arm - w, ang)]
        allp = np.vstack(parts)
        if not t.inside(allp, 5):
            continue
        big = [_grow(p, 6.0) for p in parts]
        if any(convex_touch(b, q) for b in big for ob in t.obstacles for q in obstacle_parts(ob)):
            continue
        ob = {"kind": "obstacle", "shape": shape, "material": mat,
              "parts": [p.tolist() for p in parts], "index": i}
        t.obstacles.append(ob)
        return ob
    return None


def _path_between(rng: np.random.Generator, a: dict[str, Any], b: dict[str, Any],
                  length_mm: float) -> tuple[F64, float, float] | None:
    """A centre curve from a point inside station a to a point inside b (end clip depth)."""
    ca, cb = np.asarray(a["centre"]), np.asarray(b["centre"])
    d = cb - ca
    dist = float(np.linalg.norm(d))
    if dist < 1e-6:
        return None
    u = d / dist
    nrm = np.array([-u[1], u[0]])
    half = STATION_MM / 2
    # exit points: where the straight line leaves each square (approx, by sampling)
    pa = _exit(np.asarray(a["polygon"]), ca, u)
    pb = _exit(np.asarray(b["polygon"]), cb, -u)
    depth_a = float(rng.uniform(4.0, 0.42 * length_mm))
    depth_b = float(rng.uniform(4.0, 0.42 * length_mm))
    # start and end slightly off the centre line, inside the cards
    off_a = float(rng.uniform(-0.3, 0.3)) * half
    off_b = float(rng.uniform(-0.3, 0.3)) * half
    p0 = pa - u * depth_a + nrm * off_a
    p3 = pb + u * depth_b + nrm * off_b
    span = float(np.linalg.norm(p3 - p0))
    style = rng.uniform()
    if style < 0.35 or span < 60:
        bend1 = bend2 = 0.0
    elif style < 0.75:
        bend1 = bend2 = float(rng.uniform(-0.45, 0.45)) * span
    else:
        bend1 = float(rng.uniform(-0.4, 0.4)) * span
        bend2 = -bend1 * float(rng.uniform(0.5, 1.2))
    # the curve leaves each station straight for about one clip so the end clip sits in it
    lead = min(length_mm * 0.9, span / 3)
    p1 = p0 + u * (depth_a + lead) + nrm * bend1
    p2 = p3 - u * (depth_b + lead) + nrm * bend2
    path = bezier(p0, p1, p2, p3, n=max(60, int(span / 2)))
    return path, depth_a, depth_b


def _exit(poly: F64, c: F64, u: F64) -> F64:
    for r in np.arange(0, STATION_MM, 0.5):
        p = c + u * r
        if cv2.pointPolygonTest(poly.astype(np.float32).reshape(-1, 1, 2), (float(p[0]), float(p[1])), False) < 0:
            return np.asarray(p, dtype=np.float64)
    return np.asarray(c + u * STATION_MM / 2, dtype=np.float64)


def _chain_touches(outlines: list[F64], poly: F64) -> bool:
    return any(convex_touch(o, poly) for o in outlines)


def chain_wires(poses: Sequence[C.ClipPose], width_mm: float, wire_mm: float) -> list[F64]:
    """Each clip's drawn wire centre line (table mm, every 0.25 mm), as the renderer draws it."""
    return [C.clip_points(p, width_mm, wire_mm, step_mm=0.25)[0] for p in poses]


def _boxes(wires: list[F64]) -> F64:
    return np.asarray([[w[:, 0].min(), w[:, 1].min(), w[:, 0].max(), w[:, 1].max()] for w in wires],
                      dtype=np.float64).reshape(-1, 4)


def wires_touch(a: list[F64], b: list[F64], reach_mm: float) -> bool:
    """Whether two chains' drawn wires touch: centre lines within `reach_mm` (half of each
    wire's thickness) somewhere. Why wires, not clip outlines: a clip's stadium outline
    covers the empty corner beside its middle bend (another chain's wire 2 mm away was
    listed) and leaves out the wire's thickness round its bends (wires overlapping by
    0.8 mm were not)."""
    ba, bb = _boxes(a), _boxes(b)
    near = ((ba[:, None, 0] - reach_mm <= bb[None, :, 2]) & (bb[None, :, 0] - reach_mm <= ba[:, None, 2])
            & (ba[:, None, 1] - reach_mm <= bb[None, :, 3]) & (bb[None, :, 1] - reach_mm <= ba[:, None, 3]))
    for i, j in zip(*np.nonzero(near)):
        p, q = a[int(i)], b[int(j)]
        d2 = (p[:, None, 0] - q[None, :, 0]) ** 2 + (p[:, None, 1] - q[None, :, 1]) ** 2
        if float(d2.min()) <= reach_mm * reach_mm:
            return True
    return False


def wires_touch_polygon(a: list[F64], poly: F64, reach_mm: float) -> bool:
    """Whether a chain's drawn wire (centre lines, `reach_mm` half thick) touches a polygon."""
    pb = np.asarray(poly, dtype=np.float64)
    box = (pb[:, 0].min() - reach_mm, pb[:, 1].min() - reach_mm, pb[:, 0].max() + reach_mm, pb[:, 1].max() + reach_mm)
    contour = pb.astype(np.float32).reshape(-1, 1, 2)
    for w in a:
        inside_box = ((w[:, 0] >= box[0]) & (w[:, 0] <= box[2]) & (w[:, 1] >= box[1]) & (w[:, 1] <= box[3]))
        for x, y in w[inside_box]:
            if cv2.pointPolygonTest(contour, (float(x), float(y)), True) >= -reach_mm:
                return True
    return False


def _twists(rng: np.random.Generator, n: int) -> list[float]:
    out = []
    for _ in range(n):
        r = rng.uniform()
        if r < 0.10:
            out.append(float(rng.uniform(78, 90)))           # on its edge
        elif r < 0.25:
            out.append(float(rng.uniform(25, 60)))
        else:
            out.append(float(abs(rng.normal(0, 8))))
    return out


def _slack_weights(rng: np.random.Generator, n: int) -> F64:
    level = rng.uniform()
    kind = rng.uniform()
    if kind < 0.3:          # uniform slack
        w = np.full(max(1, n - 1), level)
    elif kind < 0.7:        # noisy around a level
        w = np.clip(level + rng.normal(0, 0.25, max(1, n - 1)), 0, 1)
    else:                   # bunched in one part, taut elsewhere
        w = np.full(max(1, n - 1), 0.1)
        a = int(rng.integers(0, max(1, n - 1)))
        b = min(n - 1, a + int(rng.integers(1, max(2, n // 2 + 1))))
        w[a:b] = 1.0
    return np.asarray(w, dtype=np.float64)


def _make_chain(rng: np.random.Generator, path: F64, length_mm: float,
                count: int | None = None, exact: bool = False) -> list[C.ClipPose] | None:
    arc = float(np.sum(np.hypot(*np.diff(path, axis=0).T)))
    w = _slack_weights(rng, 40)
    if count is None:
        mean_ov = C.OVERLAP_MIN + (C.OVERLAP_MAX - C.OVERLAP_MIN) * float(w.mean())
        pitch = length_mm * (1 - mean_ov)
        count = max(1, int(round((arc - length_mm) / pitch)) + 1)
    for n in ((count,) if exact else (count, count + 1, count - 1, count + 2, count - 2)):
        if n < 1 or (n > 30 and not exact):
            continue
        if n == 1:
            # a single clip spans the whole path when the path is about one clip long
            chord = float(np.linalg.norm(path[-1] - path[0]))
            if abs(chord - length_mm) > 1.0:
                continue
            ov: list[float] | None = []
        else:
            ov = C.fit_overlaps(path, n, length_mm, w[: n - 1])
        if ov is None:
            continue
        poses = C.layout_chain(path, n, length_mm, ov, _twists(rng, n),
                               list(rng.uniform(size=n) < 0.5), list(rng.uniform(size=n) < 0.5))
        if len(poses) == n:
            return poses
    return None


def random_railways(seed: int, *, links: tuple[int, int] = (5, 25),
                    clip_length_mm: tuple[float, float] = (29.0, 35.0),
                    stations: tuple[int, int] = (10, 22),
                    area_origin: tuple[float, float] = (40.0, 40.0),
                    area_size: tuple[float, float] = (1000.0, 1000.0)) -> dict[str, Any]:
    """The pieces and truth of one random table (no camera/light: see random_scene)."""
    rng = np.random.default_rng(seed)
    t = _Table(area_origin, area_size)
    L = float(rng.uniform(*clip_length_mm))
    W = L * 9.0 / 32.0
    coated = True
    wire = C.COATED_WIRE_MM * L / 32.0 if coated else C.WIRE_MM

    # Metropolis in the middle, four quadrant stations
    mc = (area_origin[0] + area_size[0] / 2 + float(rng.uniform(-60, 60)),
          area_origin[1] + area_size[1] / 2 + float(rng.uniform(-60, 60)))
    mang = float(rng.uniform(-20, 20))
    metro = {"kind": "metropolis", "centre": [mc[0], mc[1]], "size": METRO_MM, "angle": mang,
             "polygon": square(mc, METRO_MM, mang).tolist()}
    a = math.radians(mang)
    u, v = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    q = METRO_MM / 4
    for k, (sx, sy) in enumerate(((-1, -1), (1, -1), (1, 1), (-1, 1))):
        qc = np.asarray(mc) + u * sx * q + v * sy * q
        t.stations.append({"kind": "metro_part", "id": f"M{k + 1}", "type": METRO_TYPES[k],
                           "centre": qc.tolist(), "size": METRO_MM / 2, "angle": mang,
                           "polygon": square(qc, METRO_MM / 2, mang).tolist(), "cubes": []})

    # the River: from the Metropolis edge outwards, gently curved, 32 clips
    river_poses: list[C.ClipPose] | None = None
    lo_arc = L + (RIVER_CLIPS - 1) * L * (1 - C.OVERLAP_MAX) + 10
    hi_arc = L + (RIVER_CLIPS - 1) * L * (1 - C.OVERLAP_MIN) - 10
    for _ in range(400):
        ang = rng.uniform(0, 2 * math.pi)
        dirv = np.array([math.cos(ang), math.sin(ang)])
        start = np.asarray(mc) + dirv * (METRO_MM / 2 - 20)
        end = np.array([rng.uniform(t.x0 + 30, t.x1 - 30), rng.uniform(t.y0 + 30, t.y1 - 30)])
        if np.linalg.norm(end - start) < 250:
            continue
        c1 = start + dirv * float(rng.uniform(100, 400))
        c2 = end + rng.uniform(-350, 350, 2)
        path = bezier(start, c1, c2, end, 400)
        arc = float(np.sum(np.hypot(*np.diff(path, axis=0).T)))
        if not lo_arc < arc < hi_arc:
            continue
        if not t.inside(path, 12) or min_radius(path) < 60:
            continue
        river_poses = _make_chain(rng, path, L, RIVER_CLIPS, exact=True)
        if river_poses is not None and len(river_poses) == RIVER_CLIPS:
            break
        river_poses = None
    if river_poses is None:
        raise RuntimeError(f"seed {seed}: could not lay the river")
    river_outlines = [C.clip_outline(p, W, wire) for p in river_poses]

    # obstacles: two rectangles, two Ls, clear of the river and the Metropolis
    metro_poly = np.asarray(metro["polygon"])
    for i, shape in enumerate(("rect", "rect", "L", "L")):
        for _ in range(10):
            ob = _obstacle(rng, t, shape, i)
            if ob is None:
                break
            parts = obstacle_parts(ob)
            if any(convex_touch(p, _grow(metro_poly, 10)) for p in parts) or (
                    rng.uniform() < 0.8 and any(_chain_touches(river_outlines, p) for p in parts)):
                t.obstacles.pop()
                continue
            break

    # stations
    n_st = int(rng.integers(stations[0], stations[1] + 1))
    kinds = ["city"] * 2 + ["town"] * 6 + ["suburban"] * 5 + ["countryside"] * 4
    n_players = int(rng.integers(2, 6))
    for p in range(n_players):
        st = _place_station(rng, t, f"P{p + 1}", "start")
        if st is not None:
            st["player"] = PLAYER_COLOURS[p]
    for i in range(n_st):
        near = t.stations[int(rng.integers(0, len(t.stations)))] if rng.uniform() < 0.25 else None
        st = _place_station(rng, t, f"S{i + 1:02d}", kinds[int(rng.integers(0, len(kinds)))],
                            near=near, gap=float(rng.uniform(5, 40)))
        if st is not None and any(_chain_touches(river_outlines, np.asarray(st["polygon"]))
                                  for _ in [0]):
            t.stations.remove(st)

    # links
    n_links = int(rng.integers(links[0], links[1] + 1))
    player_cols = list(PLAYER_COLOURS[:max(2, n_players)])
    all_links: list[dict[str, Any]] = []
    pairs_used: set[tuple[str, str]] = set()
    attempts = 0
    while len(all_links) < n_links and attempts < n_links * 40:
        attempts += 1
        sa, sb = rng.choice(len(t.stations), 2, replace=False)
        A, B = t.stations[int(sa)], t.stations[int(sb)]
        if A["id"].startswith("M") and B["id"].startswith("M"):
            continue
        key = (min(A["id"], B["id"]), max(A["id"], B["id"]))
        if key in pairs_used:
            continue
        dist = float(np.linalg.norm(np.asarray(A["centre"]) - np.asarray(B["centre"])))
        if dist > 30 * L * 0.75 or dist < STATION_MM + 2:
            continue
        got = _path_between(rng, A, B, L)
        if got is None:
            continue
        path, _, _ = got
        if min_radius(path) < 48 or not t.inside(path, W / 2 + 1):
            continue
        poses = _make_chain(rng, path, L)
        if poses is None:
            continue
        outl = [C.clip_outline(p, W, wire) for p in poses]
        # rules: only the end clips touch the end stations, no other station is crossed
        pa, pb = np.asarray(A["polygon"]), np.asarray(B["polygon"])
        if not (convex_touch(outl[0], pa) and convex_touch(outl[-1], pb)):
            continue
        if len(outl) > 1 and (_chain_touches(outl[1:], pa) or _chain_touches(outl[:-1], pb)):
            continue
        others = [s for s in t.stations if s is not A and s is not B]
        if any(_chain_touches(outl, np.asarray(s["polygon"])) for s in others):
            continue
        # a link never touches or crosses itself
        if any(convex_touch(outl[i], outl[j]) for i in range(len(outl)) for j in range(i + 2, len(outl))):
            continue
        if not all(t.inside(o, 0.5) for o in outl):
            continue
        colour = player_cols[int(rng.integers(0, len(player_cols)))]
        pairs_used.add(key)
        all_links.append({"colour": colour, "stations": [A["id"], B["id"]], "poses": poses,
                          "outlines": outl, "path": path})

    # cubes on stations of links (sometimes over the end clip)
    for lk in all_links:
        for sid in lk["stations"]:
            st = next(s for s in t.stations if s["id"] == sid)
            if any(c["colour"] == lk["colour"] for c in st["cubes"]):
                continue
            if rng.uniform() < 0.85:
                cc = np.asarray(st["centre"]) + rng.uniform(-0.28, 0.28, 2) * st["size"]
                st["cubes"].append({"colour": lk["colour"], "centre": cc.tolist(),
                                    "angle": float(rng.uniform(0, 90))})

    # truth: crossings from the drawn wires (all chains share one wire thickness): two
    # things touch where the wires the renderer draws meet (the rulebook's "touches or crosses")
    wires = [chain_wires(lk["poses"], W, wire) for lk in all_links]
    river_wires = chain_wires(river_poses, W, wire)
    truth_links = []
    for i, lk in enumerate(all_links):
        crosses: list[str] = []
        for j, other in enumerate(all_links):
            if j == i:
                continue
            if wires_touch(wires[i], wires[j], wire):
                crosses.append(f"link:{j}")
        if wires_touch(wires[i], river_wires, wire):
            crosses.append("river")
        for ob in t.obstacles:
            if any(wires_touch_polygon(wires[i], p, wire / 2) for p in obstacle_parts(ob)):
                crosses.append(f"obstacle:{ob['index']}")
        centre = [[(p.start[0] + p.end[0]) / 2, (p.start[1] + p.end[1]) / 2] for p in lk["poses"]]
        truth_links.append({
            "colour": lk["colour"], "clips": len(lk["poses"]), "stations": lk["stations"],
            "crosses": crosses,
            "path_mm": [list(lk["poses"][0].start)] + [c for c in centre] + [list(lk["poses"][-1].end)],
        })

    pieces: list[dict[str, Any]] = []
    pieces.append({"kind": "metropolis", "centre": metro["centre"], "size": METRO_MM,
                   "angle": mang, "types": list(METRO_TYPES)})
    for ob in t.obstacles:
        pieces.append({"kind": "obstacle", "shape": ob["shape"], "material": ob["material"],
                       "parts": ob["parts"], "seed": int(rng.integers(0, 2 ** 31))})
    for st in t.stations:
        if st["kind"] == "station":
            pieces.append({"kind": "station", "id": st["id"], "type": st["type"],
                           "centre": st["centre"], "size": st["size"], "angle": st["angle"],
                           "player": st.get("player"), "seed": int(rng.integers(0, 2 ** 31))})
    look = {"length_mm": L, "width_mm": W, "wire_mm": wire}
    river_cols = ["blue"] * RIVER_CLIPS
    for s in SILVER_AT:
        river_cols[s - 1] = "silver"
    pieces.append({"kind": "river", "clips": [_pose_dict(p) for p in river_poses], "colours": river_cols,
                   **look, "seed": int(rng.integers(0, 2 ** 31))})
    order = rng.permutation(len(all_links))
    for k in order:   # random z order: whose link is on top changes
        lk = all_links[int(k)]
        pieces.append({"kind": "clip_chain", "colour": lk["colour"],
                       "clips": [_pose_dict(p) for p in lk["poses"]], **look,
                       "seed": int(rng.integers(0, 2 ** 31))})
    for st in t.stations:
        for cube in st["cubes"]:
            pieces.append({"kind": "rail_cube", "colour": cube["colour"], "centre": cube["centre"],
                           "angle": cube["angle"], "size": 10.0})

    truth = {
        "game": "railways",
        "clip_length_mm": L,
        "links": truth_links,
        "river": {"clips": RIVER_CLIPS, "silver": list(SILVER_AT),
                  "path_mm": [list(river_poses[0].start)] + [[(p.start[0] + p.end[0]) / 2, (p.start[1] + p.end[1]) / 2]
                                                            for p in river_poses] + [list(river_poses[-1].end)]},
        "stations": [{"id": s["id"], "type": s["type"], "centre_mm": s["centre"],
                      "polygon_mm": s["polygon"],
                      "cubes": sorted(c["colour"] for c in s["cubes"])} for s in t.stations],
        "obstacles": [{"index": ob["index"], "shape": ob["shape"], "parts_mm": ob["parts"]}
                      for ob in t.obstacles],
    }
    return {"pieces": pieces, "truth": truth}


# ----- drawing -------------------------------------------------------------------------------

def _look(colour: str, wire: float) -> C.ClipLook:
    c = CLIP_COLOURS[colour]
    base = lin(c)
    if colour == "silver":
        return C.ClipLook(base, (1.0, 1.0, 1.0), wire * 0.85, metal=True)
    hl = tuple(min(1.0, 0.35 + 0.65 * v) for v in base)
    return C.ClipLook(base, (hl[0], hl[1], hl[2]), wire)


def draw_clip_chain(canvas: Any, piece: dict[str, Any], ctx: Any = None) -> dict[str, Any] | None:
    g = np.random.default_rng(int(piece.get("seed", 0)))
    poses = [pose_from_dict(d) for d in piece["clips"]]
    cols = piece.get("colours") or [piece["colour"]] * len(poses)
    wire = float(piece.get("wire_mm", C.COATED_WIRE_MM))
    looks = [_look(c, wire) for c in cols]
    # interlocks: at each joint either clip may lie on top
    order = list(range(len(poses)))
    for i in range(0, len(order) - 1, 2):
        if g.uniform() < 0.5:
            order[i], order[i + 1] = order[i + 1], order[i]
    C.draw_chain(canvas, poses, looks, float(piece.get("base_height_mm", 0.5)),
                 float(piece.get("width_mm", C.STANDARD_WIDTH_MM)), g, order)
    return None


def draw_station(canvas: Any, piece: dict[str, Any], ctx: Any = None) -> dict[str, Any] | None:
    g = np.random.default_rng(int(piece.get("seed", 0)))
    c, s, ang = piece["centre"], float(piece["size"]), float(piece["angle"])
    col = lin(STATION_COLOURS[piece["type"]])
    canvas.fill_polygon(square(c, s, ang), col, 0.4)
    a = math.radians(ang)
    u, v = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    cc = np.asarray(c, dtype=np.float64)
    # name plate (white), art blob, the row of minimum-length boxes
    plate = cc - v * s * 0.36
    canvas.fill_polygon(rect(plate, s * 0.8, s * 0.14, ang), lin((236, 240, 240)), 0.4)
    for k in range(int(g.integers(4, 9))):
        p0 = plate - u * s * 0.34 + u * s * 0.08 * k
        canvas.fill_polygon(rect(p0, s * 0.05, s * 0.04, ang), lin((60, 60, 60)), 0.4)
    art = cc + u * float(g.uniform(-0.1, 0.1)) * s
    dark = tuple(v_ * 0.55 for v_ in col)
    canvas.fill_polygon(rect(art, s * 0.3, s * 0.26, ang + float(g.uniform(-5, 5))), (dark[0], dark[1], dark[2]), 0.4)
    for k in range(4):
        bx = cc + v * s * 0.36 + u * s * (-0.3 + 0.2 * k)
        canvas.fill_polygon(rect(bx, s * 0.14, s * 0.12, ang), lin((242, 242, 242)), 0.4)
    if piece.get("player"):
        band = cc + v * s * 0.2
        canvas.fill_polygon(rect(band, s * 0.9, s * 0.08, ang), lin(CUBE_COLOURS[piece["player"]]), 0.4)
    return None


def draw_metropolis(canvas: Any, piece: dict[str, Any], ctx: Any = None) -> dict[str, Any] | None:
    c, s, ang = piece["centre"], float(piece["size"]), float(piece["angle"])
    canvas.fill_polygon(square(c, s, ang), lin((90, 90, 96)), 1.5)
    a = math.radians(ang)
    u, v = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    q = s / 4
    for k, (sx, sy) in enumerate(((-1, -1), (1, -1), (1, 1), (-1, 1))):
        qc = np.asarray(c) + u * sx * q + v * sy * q
        canvas.fill_polygon(square(qc, s / 2 - 4, ang), lin(STATION_COLOURS[piece["types"][k]]), 1.5)
        canvas.fill_polygon(rect(qc - v * s * 0.12, s * 0.3, s * 0.05, ang), lin((236, 240, 240)), 1.5)
    return None


def draw_obstacle(canvas: Any, piece: dict[str, Any], ctx: Any = None) -> dict[str, Any] | None:
    g = np.random.default_rng(int(piece.get("seed", 0)))
    col = lin(OBSTACLE_COLOURS[piece["material"]])
    for p in piece["parts"]:
        canvas.fill_polygon(np.asarray(p), col, 1.2)
    allp = np.vstack([np.asarray(p) for p in piece["parts"]])
    lo, hi = allp.min(axis=0), allp.max(axis=0)
    for _ in range(10):
        cc = g.uniform(lo, hi)
        if not any(cv2.pointPolygonTest(np.asarray(p, dtype=np.float32).reshape(-1, 1, 2),
                                        (float(cc[0]), float(cc[1])), False) > 0 for p in piece["parts"]):
            continue
        shade = tuple(v_ * float(g.uniform(0.7, 1.25)) for v_ in col)
        canvas.fill_polygon(rect(cc, float(g.uniform(8, 20)), float(g.uniform(5, 12)), float(g.uniform(0, 180))),
                            (shade[0], shade[1], shade[2]), 1.2)
    return None


def draw_cube(canvas: Any, piece: dict[str, Any], ctx: Any = None) -> dict[str, Any] | None:
    s = float(piece.get("size", 10.0))
    col = lin(CUBE_COLOURS[piece["colour"]])
    canvas.fill_polygon(square(piece["centre"], s, float(piece["angle"])), col, s + 0.4)
    top = tuple(min(1.0, v * 1.15) for v in col)
    canvas.fill_polygon(square(piece["centre"], s * 0.8, float(piece["angle"])), (top[0], top[1], top[2]), s + 0.4)
    return None


DRAWERS = {"clip_chain": draw_clip_chain, "river": draw_clip_chain, "station": draw_station,
           "metropolis": draw_metropolis, "obstacle": draw_obstacle, "rail_cube": draw_cube}


def _fallback_environment(rng: np.random.Generator, resolution: tuple[int, int]) -> dict[str, Any]:
    """Camera 1.0-1.4 m up with a lens just wide enough for the whole table (used when the
    shared environment randomiser is not available)."""
    h = float(rng.uniform(1000, 1400))
    w_px, h_px = resolution
    half_v = 640.0 / h
    hfov = 2 * math.degrees(math.atan(half_v * w_px / h_px))
    return {"camera": {"height_mm": h, "target_mm": [540.0 + float(rng.uniform(-10, 10)), 540.0],
                       "yaw_deg": float(rng.uniform(-3, 3))},
            "lens": {"hfov_deg": hfov, "dist": [0.0, 0.0, 0.0, 0.0, 0.0]},
            "surface": {"kind": "mat", "tone": "light" if rng.uniform() < 0.5 else "dark",
                        "seed": int(rng.integers(0, 2 ** 31))},
            "light": {}, "degrade": {"jpeg_quality": 92}}


def random_scene(seed: int, resolution: Sequence[int] = (4608, 2592), **options: Any) -> dict[str, Any]:
    """A full scene dict (environment + pieces) whose truth rides in scene["meta"]."""
    res = (int(resolution[0]), int(resolution[1]))
    gen = random_railways(seed, **{k: v for k, v in options.items()
                                   if k in ("links", "clip_length_mm", "stations")})
    rng = np.random.default_rng([seed, 77])
    env: dict[str, Any]
    try:
        from vision.synth.randomize import random_environment
        from calibration.profile import default_profile
        env = dict(random_environment(rng, res, default_profile("railways"),
                                      height=(1000.0, 1400.0),
                                      lens_kind=str(options.get("lens_kind", "wide"))))
    except (ImportError, TypeError):
        env = _fallback_environment(rng, res)
    for k in ("camera", "lens", "light", "surface", "degrade"):
        if k in options:
            env[k] = options[k]
    return {"game": "railways", "seed": seed, "profile": "railways", "resolution": list(res),
            **env, "pieces": gen["pieces"], "meta": {"railways": gen["truth"]}}


def _register() -> None:
    try:
        from vision.synth.pieces import register_piece
    except ImportError:  # pragma: no cover - renderer core not present
        return
    for kind, fn in DRAWERS.items():
        register_piece(kind, fn)


_register()
