"""`tableref bench --game town77`: the tile reader on seeded synthetic cities, its speed
against the frame floor, the real Qwirkle photos, and illegal-placement alerts over
simulated games. The reader only ever sees pixels; truth is compared afterwards.
"""

from __future__ import annotations

import itertools
import json
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from firmware.bench.common import floor_seconds, md_table, median, pct, verdict

REAL_DIR = Path("/work/shared/realdata/qwirkle-game1")
REAL_CELL_MM = 22.0


@dataclass
class Score:
    """Counts for the accuracy targets (pairs agree when same-truth == same-group)."""

    tiles: int = 0
    found: int = 0
    extra: int = 0
    face_down: int = 0
    face_down_found: int = 0
    face_up_called_down: int = 0
    pairs: int = 0
    shape_ok: int = 0
    colour_ok: int = 0
    labelled: int = 0
    shape_label_ok: int = 0
    colour_label_ok: int = 0
    times: list[float] = field(default_factory=list)
    floors: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def add(self, other: "Score") -> None:
        for k, v in vars(other).items():
            if isinstance(v, int):
                setattr(self, k, getattr(self, k) + v)
            elif isinstance(v, list):
                getattr(self, k).extend(v)


def score_frame(truth: Sequence[dict[str, Any]], pred: Sequence[dict[str, Any]],
                match_mm: float) -> tuple[Score, dict[int, dict[str, Any]]]:
    """Match predicted tiles to true ones by centre (nearest within match_mm), then
    count occupancy, face-down and pair agreement. A true tile the reader missed or
    called face down makes every pair it belongs to count as a disagreement."""
    s = Score()
    s.tiles = len(truth)
    used: set[int] = set()
    match: dict[int, dict[str, Any]] = {}
    if pred:
        pc = np.array([p["centre_mm"] for p in pred], dtype=np.float64)
        for i, t in enumerate(truth):
            d = np.linalg.norm(pc - np.asarray(t["centre_mm"], dtype=np.float64), axis=1)
            for j in np.argsort(d):
                if d[j] > match_mm:
                    break
                if int(j) not in used:
                    used.add(int(j))
                    match[i] = pred[int(j)]
                    break
    s.found = len(match)
    s.extra = len(pred) - len(used)
    for i, t in enumerate(truth):
        if t["face_down"]:
            s.face_down += 1
            if i in match and match[i]["face_down"]:
                s.face_down_found += 1
        elif i in match and match[i]["face_down"]:
            s.face_up_called_down += 1
    up = [i for i, t in enumerate(truth) if not t["face_down"]]
    for a, b in itertools.combinations(up, 2):
        s.pairs += 1
        pa, pb = match.get(a), match.get(b)
        if pa is None or pb is None or pa["face_down"] or pb["face_down"]:
            continue
        ta, tb = truth[a], truth[b]
        s.shape_ok += int((ta["shape"] == tb["shape"]) == (pa["shape"] == pb["shape"]))
        s.colour_ok += int((ta["colour"] == tb["colour"]) == (pa["colour"] == pb["colour"]))
    return s, match


# ---- real photos ------------------------------------------------------------------

def real_truth(ann: dict[str, Any], name: str) -> dict[tuple[int, int], tuple[str, str]]:
    """(row, col) 0-based -> (shape code, colour code) of every tile on the board."""
    game = ann["games"][str(ann["images"][name]["game"])]
    out: dict[tuple[int, int], tuple[str, str]] = {}
    for cell, code in game["start_tiles_visual"].items():
        out[(int(cell[:-1]) - 1, ord(cell[-1]) - 65)] = (code[0], code[1])
    for t in ann["images"][name]["tiles"]:
        out[(int(t["row"]) - 1, ord(t["col"]) - 65)] = (str(t["shape"]), str(t["colour"]))
    return out


def real_photos(directory: Path = REAL_DIR) -> tuple[Score, list[list[Any]]]:
    """Read every annotated photo through its given grid corners; the reader's lattice
    is matched to the board's by the integer cell offset that agrees best (the tiles'
    tops stand above the board, so their lattice is magnified a little)."""
    import cv2

    from calibration.geometry import fit_from_corners
    from calibration.profile import default_profile
    from vision.api import AnalyzeOptions
    from vision.tiles.reader import read

    ann = json.loads((directory / "annotations.json").read_text(encoding="utf-8"))
    side = 16 * REAL_CELL_MM
    profile = replace(default_profile("tiles"), markers=())
    total = Score()
    rows: list[list[Any]] = []
    for name in sorted(ann["images"]):
        image = np.asarray(cv2.imread(str(directory / name)), dtype=np.uint8)
        fit = fit_from_corners(ann["images"][name]["corners"], (side, side))
        opts = AnalyzeOptions(profile, None, {"area_mm": (side, side), "shapes": 6, "colours": 6})
        t0 = time.perf_counter()
        reading = read(image, fit, opts)
        dt = time.perf_counter() - t0
        truth = real_truth(ann, name)
        tiles = reading.tiles
        best = (-1, 0, 0)
        for dr, dc in itertools.product(range(-20, 20), repeat=2):
            m = sum((t.row + dr, t.col + dc) in truth for t in tiles)
            if m > best[0]:
                best = (m, dr, dc)
        _, dr, dc = best
        truth_list = [{"centre_mm": [float(r), float(c)], "face_down": False, "shape": sh,
                       "colour": co} for (r, c), (sh, co) in sorted(truth.items())]
        pred = [{"centre_mm": [float(t.row + dr), float(t.col + dc)], "face_down": t.face_down,
                 "shape": t.shape, "colour": t.colour} for t in tiles]
        s, _ = score_frame(truth_list, pred, 0.1)
        s.times.append(dt)
        total.add(s)
        rows.append([name, s.tiles, s.found, s.extra, s.face_up_called_down,
                     f"{s.shape_ok}/{s.pairs}", f"{s.colour_ok}/{s.pairs}", f"{dt * 1000:.0f}"])
    return total, rows


# ---- synthetic cities ---------------------------------------------------------------

def synthetic(scenes: int, seed: int, resolution: tuple[int, int]) -> Score:
    """Render seeded random cities, read each (pixels only), then compare with truth."""
    from calibration.geometry import locate_table
    from calibration.profile import default_profile
    from vision.api import AnalyzeOptions
    from vision.synth import random_scene, render_scene
    from vision.town77 import reader

    profile = default_profile("town77")
    total = Score()
    for k in range(scenes):
        s_seed = seed + k
        scene = random_scene("town77", s_seed, resolution=resolution)
        image = render_scene(scene).image
        try:
            fit = locate_table(image, profile)
            t0 = time.perf_counter()
            obs = reader.analyze(image, fit, AnalyzeOptions(profile))
            dt = time.perf_counter() - t0
        except Exception as e:  # a failed frame is counted, never hidden
            total.tiles += len(scene["meta"]["tiles"])
            total.failures.append(f"seed {s_seed}: {e.__class__.__name__}: {e}")
            continue
        s, _ = score_frame(scene["meta"]["tiles"], obs["tiles"], scene["meta"]["pitch_mm"] / 2)
        s.times.append(dt)
        s.floors.append(floor_seconds(image))
        total.add(s)
    return total


def labels(scenes: int, seed: int, resolution: tuple[int, int]) -> dict[str, Any]:
    """Tile labels with a taught palette: for each seeded city, the same tile set, table
    and light photographed as a teaching row (7 tiles of distinct shapes and colours,
    `tableref teach --game town77`), then the city read with that palette. Counts face-up
    tiles found whose shape and colour labels are the true names."""
    import random

    from calibration.geometry import locate_table
    from calibration.profile import default_profile
    from vision.api import AnalyzeOptions
    from vision.synth import random_scene, render_scene
    from vision.synth.town77 import city_scene, random_style
    from vision.town77 import reader
    from vision.town77.teach import teach

    profile = default_profile("town77")
    out: dict[str, Any] = {"scenes": 0, "taught": 0, "tiles": 0, "shape_ok": 0, "colour_ok": 0,
                           "both_ok": 0, "teach_failed": 0, "why": []}
    for k in range(scenes):
        s_seed = seed + k
        scene = random_scene("town77", s_seed, resolution=resolution)
        style = random_style(s_seed, profile)
        perm = list(range(7))
        random.Random(s_seed).shuffle(perm)
        row = [{"row": 0, "col": i, "shape": i, "colour": perm[i]} for i in range(7)]
        names = [f"{style['shape_set'][i]}:{style['colour_set'][perm[i]]}" for i in range(7)]
        out["scenes"] += 1
        try:
            # the city's own scene is the environment (table, camera, light; its pieces
            # are replaced by the teaching row)
            teach_img = render_scene(city_scene(row, style, scene, s_seed + 7)).image
            palette = teach(teach_img, locate_table(teach_img, profile), names, AnalyzeOptions(profile))
            image = render_scene(scene).image
            obs = reader.analyze(image, locate_table(image, profile), AnalyzeOptions(profile, palette=palette))
        except Exception as e:  # noqa: BLE001  a failed teach or read is counted, never hidden
            out["teach_failed"] += 1
            out["why"].append(f"seed {s_seed}: {e}")
            out["tiles"] += sum(1 for t in scene["meta"]["tiles"] if not t["face_down"])
            continue
        out["taught"] += 1
        truth = scene["meta"]["tiles"]
        _, match = score_frame(truth, obs["tiles"], scene["meta"]["pitch_mm"] / 2)
        for i, t in enumerate(truth):
            if t["face_down"]:
                continue
            out["tiles"] += 1
            got = match.get(i)
            if got is None or got["face_down"]:
                continue
            s_ok = got["shape"] == t["shape_name"]
            c_ok = got["colour"] == t["colour_name"]
            out["shape_ok"] += int(s_ok)
            out["colour_ok"] += int(c_ok)
            out["both_ok"] += int(s_ok and c_ok)
    return out


def labels_rows(lb: dict[str, Any]) -> list[list[Any]]:
    return [[f"tile labels with a palette ({lb['scenes']} cities, {lb['teach_failed']} teachings failed)",
             pct(lb["both_ok"], lb["tiles"]), ">= 99.9%", verdict(lb["both_ok"] >= 0.999 * lb["tiles"])],
            ["  shape label right", pct(lb["shape_ok"], lb["tiles"]), "", ""],
            ["  colour label right", pct(lb["colour_ok"], lb["tiles"]), "", ""]]


# what one look is charged in the alerts games (about a hinted look's time on this machine)
LOOK_SECONDS = 0.3


def alerts(games: int, seed: int, resolution: tuple[int, int],
           each: Callable[[str], None] | None = None) -> dict[str, int]:
    """Whole games through the device loop (vision.synth frames, the town77 reader): a
    quarter of the moves are first tried on a cell the rules forbid, then taken back.
    Counts illegal placements alerted, and alerts on frames that hold no illegal tile, by
    the look's verdict (`alerted`, `false_alerts`) and after the players picked an
    illegal reading from a question of which tile it is (`alerted_on_answer`,
    `false_on_answer`: frames not alerted by a verdict); `questions` asked;
    `illegal_taken`: illegal tiles the device applied as moves. `each` gets a line a game.

    The players answer the device's questions and fix the alerts on tiles they laid
    legally (bench.loop.Players), and every look is charged LOOK_SECONDS on a virtual
    clock: on the real clock a slow look let a frame go by unseen, so which placements
    were alerted changed with the machine's load."""
    from firmware.bench.loop import END_HOLD, bench_latency, real_game

    out = {"games": 0, "illegal": 0, "alerted": 0, "placements": 0, "false_alerts": 0,
           "frames": 0, "alerted_on_answer": 0, "false_on_answer": 0, "questions": 0,
           "illegal_taken": 0}
    for g in range(games):
        labels: list[str] = []
        tiles: list[tuple[int, int]] = []
        wrong: dict[int, tuple[tuple[int, int], tuple[int, int]]] = {}
        frames, placed = real_game(seed + g, 10, resolution, illegal=0.25, labels=labels, tiles=tiles,
                                   tried=wrong)
        run = bench_latency(frames, players=(placed, tiles, labels, wrong), look_seconds=LOOK_SECONDS,
                            hold=END_HOLD)

        def frames_with(kind: str) -> set[int]:
            return {int(e.split(":")[0].split()[1]) for e in run["events"]
                    if e.startswith("frame ") and f": {kind}" in e}

        # alerted by the look's verdict, or after the players picked an illegal reading
        # from the device's question of which tile it is (firmware.loop: "Picked illegal")
        flagged, picked = frames_with("Illegal"), frames_with("Picked illegal") - frames_with("Illegal")
        # an illegal tile the device applied as a move (its look's frame, its cell)
        frame, taken = -1, 0
        for e in run["events"]:
            if e.startswith("frame "):
                frame = int(e.split(":")[0].split()[1])
            elif e.startswith("applied ") and frame in wrong:
                rc = wrong[frame][0]
                taken += int(e.split()[-1] == "ABCDEFG"[rc[1]] + str(rc[0] + 1))
        out["illegal_taken"] += taken
        if each is not None:
            ill = [i for i, lab in enumerate(labels) if lab == "illegal"]
            each(f"game {seed + g}: illegal {len(ill)} alerted {len(flagged & set(ill))} "
                 f"on answer {len(picked & set(ill))} taken {taken} "
                 f"false {len(flagged - set(ill))} false on answer {len(picked - set(ill))}")
        out["games"] += 1
        out["frames"] += len(frames)
        out["questions"] += sum(1 for e in run["events"] if e.startswith("frame ") and ": Ask " in e)
        for i, label in enumerate(labels):
            if label == "illegal":
                out["illegal"] += 1
                out["alerted"] += int(i in flagged)
                out["alerted_on_answer"] += int(i in picked)
            else:
                out["placements"] += int(label == "legal")
                out["false_alerts"] += int(i in flagged)
                out["false_on_answer"] += int(i in picked)
    return out


def run(scenes: int | None, seed: int, resolution: tuple[int, int] | None) -> str:
    n = 500 if scenes is None else scenes
    games = 200 if scenes is None else max(2, scenes // 25)
    res = resolution or (2304, 1296)
    t0 = time.perf_counter()
    syn = synthetic(n, seed, res)
    real, real_rows = real_photos()
    al = alerts(games, seed, res)
    lb = labels(max(1, n // 5), seed, res)
    med_t, med_f = median(syn.times), median(syn.floors)
    ratio = med_t / med_f if med_f == med_f and med_f > 0 else float("nan")
    rows = [
        ["occupancy (true tiles found)", pct(syn.found, syn.tiles), "100%", verdict(syn.found == syn.tiles)],
        ["phantom tiles (per frame)", f"{syn.extra / max(1, n):.2f} ({syn.extra})", "0", verdict(syn.extra == 0)],
        ["shape group agreement, tile pairs", pct(syn.shape_ok, syn.pairs), ">= 99.9%",
         verdict(syn.shape_ok >= 0.999 * syn.pairs)],
        ["colour group agreement, tile pairs", pct(syn.colour_ok, syn.pairs), ">= 99.9%",
         verdict(syn.colour_ok >= 0.999 * syn.pairs)],
        ["face-down tiles found", pct(syn.face_down_found, syn.face_down), ">= 99.5%",
         verdict(syn.face_down_found >= 0.995 * syn.face_down)],
        ["face-up tiles called face down", str(syn.face_up_called_down), "0", verdict(syn.face_up_called_down == 0)],
        *labels_rows(lb),
        ["median analysis time / floor", f"{med_t * 1000:.0f} ms / {med_f * 1000:.1f} ms = {ratio:.1f}x",
         "<= 5x", verdict(ratio <= 5.0)],
        [f"illegal placements alerted ({al['games']} games, {al['frames']} frames)",
         pct(al["alerted"], al["illegal"]), "100%", verdict(al["alerted"] == al["illegal"])],
        ["false alerts (legal placements and other frames)",
         f"{al['false_alerts']} ({pct(al['false_alerts'], max(1, al['placements']))} of "
         f"{al['placements']} placements)", "<= 0.1%",
         verdict(al["false_alerts"] <= 0.001 * al["placements"])],
        ["real photos (21, given corners): tiles found", pct(real.found, real.tiles), "(check)", ""],
        ["real photos: phantom tiles", str(real.extra), "(check)", ""],
        ["real photos: shape group agreement", pct(real.shape_ok, real.pairs), "(check)", ""],
        ["real photos: colour group agreement", pct(real.colour_ok, real.pairs), "(check)", ""],
    ]
    out = [f"## town77 (tile reader)\n",
           f"{n} seeded synthetic cities from seed {seed} at {res[0]}x{res[1]} (random shape and colour "
           "sets, art styles, camera poses, lenses, lights, surfaces); the reader sees pixels only. "
           "Pairs count every pair of true face-up tiles; a missed tile or a face-up tile called "
           "face down makes all its pairs disagree. Floor = one cvtColor + one warpPerspective of "
           f"the same frame, measured in the same run. Wall time {time.perf_counter() - t0:.0f} s.\n",
           md_table(["measure", "value", "target", "verdict"], rows)]
    if syn.failures:
        out.append("\nFrames that failed to read: " + "; ".join(syn.failures[:10]))
    out.append("\n### Real photos, per image\n")
    out.append(md_table(["image", "tiles", "found", "phantom", "up called down", "shape pairs ok",
                         "colour pairs ok", "ms"], real_rows))
    return "\n".join(out)


if __name__ == "__main__":   # one part alone: python -m firmware.bench.town77 labels|alerts N SEED
    import sys

    part, count, first = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    size = (2304, 1296)
    if part == "labels":
        lb = labels(count, first, size)
        print(md_table(["measure", "value", "target", "verdict"], labels_rows(lb)))
        print("\n".join(lb["why"][:10]))
    else:
        print(alerts(count, first, size, each=lambda line: print(line, file=sys.stderr, flush=True)))
