"""`tableref bench --game railways`: the railway reader on seeded random synthetic tables.

Measures, per resolution: links found, exact clip counts, colour and both end stations,
exact crossing lists, River count and silver positions, honesty of the confidence flag,
analysis time against the floor (one cvtColor + one warpPerspective of the same frame)
and the resident memory of a process that only analyses a frame.

The reader is given the true lens (as a calibrated device would have it) and locates
the table from the printed markers itself; it never sees the scene description.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any

import cv2
import numpy as np

from firmware.bench.common import floor_seconds, md_table, median, pct, verdict

DEFAULT_SCENES = 300
TARGET_RES = (4608, 2592)
SECOND_RES = (2304, 1296)


def _profile_for(rendered: Any) -> Any:
    from calibration.profile import Lens, default_profile
    cam = rendered.camera
    lens = Lens((int(cam["resolution"][0]), int(cam["resolution"][1])),
                tuple(tuple(float(v) for v in r) for r in cam["K"]),
                tuple(float(v) for v in cam["dist"]))
    return default_profile("railways").with_lens(lens)


def _poly_dist(a: Any, b: Any) -> float:
    """Mean distance (mm) from points of a to the polyline b (sampled densely)."""
    from vision.railways.skeleton import resample
    bb = resample(np.asarray(b, dtype=np.float64), 2.0)
    aa = resample(np.asarray(a, dtype=np.float64), 5.0)
    if len(aa) == 0 or len(bb) == 0:
        return float("inf")
    d = np.hypot(aa[:, None, 0] - bb[None, :, 0], aa[:, None, 1] - bb[None, :, 1]).min(axis=1)
    return float(d.mean())


def _match_stations(truth: list[dict[str, Any]], read: list[dict[str, Any]], tol: float = 25.0) -> dict[str, str]:
    """read id -> truth id, nearest centres first."""
    pairs = []
    for r in read:
        for t in truth:
            d = float(np.hypot(r["centre_mm"][0] - t["centre_mm"][0], r["centre_mm"][1] - t["centre_mm"][1]))
            if d < tol:
                pairs.append((d, r["id"], t["id"]))
    pairs.sort()
    out: dict[str, str] = {}
    used: set[str] = set()
    for _, rid, tid in pairs:
        if rid in out or tid in used:
            continue
        out[rid] = tid
        used.add(tid)
    return out


def _match_links(truth: list[dict[str, Any]], read: list[dict[str, Any]], tol: float = 12.0) -> dict[int, int]:
    """truth index -> read index, by symmetric mean path distance."""
    pairs = []
    for i, t in enumerate(truth):
        for j, r in enumerate(read):
            if len(r["path_mm"]) < 2:
                continue
            d = max(_poly_dist(np.asarray(t["path_mm"]), np.asarray(r["path_mm"])),
                    _poly_dist(np.asarray(r["path_mm"]), np.asarray(t["path_mm"])))
            if d < tol:
                pairs.append((d, i, j))
    pairs.sort()
    out: dict[int, int] = {}
    used: set[int] = set()
    for _, i, j in pairs:
        if i in out or j in used:
            continue
        out[i] = j
        used.add(j)
    return out


def _obstacle_map(truth: list[dict[str, Any]], read: list[dict[str, Any]]) -> dict[int, int]:
    """read obstacle index -> truth obstacle index, by centroid."""
    out: dict[int, int] = {}
    for j, r in enumerate(read):
        c = np.mean(np.asarray(r["polygon_mm"]), axis=0)
        best = None
        for t in truth:
            tc = np.mean(np.vstack([np.asarray(p) for p in t["parts_mm"]]), axis=0)
            d = float(np.hypot(*(c - tc)))
            if d < 60 and (best is None or d < best[0]):
                best = (d, int(t["index"]))
        if best is not None:
            out[j] = best[1]
    return out


def score_scene(truth: dict[str, Any], read: dict[str, Any]) -> dict[str, Any]:
    """Per-link and per-table outcomes of one reading against its truth."""
    st_map = _match_stations(truth["stations"], read["stations"])
    lk_map = _match_links(truth["links"], read["links"])
    inv = {j: i for i, j in lk_map.items()}
    ob_map = _obstacle_map(truth["obstacles"], read["obstacles"])
    links = []
    for i, t in enumerate(truth["links"]):
        j = lk_map.get(i)
        if j is None:
            links.append({"found": False, "count": False, "colour_ends": False, "crosses": False,
                          "confident": False, "true": t["clips"], "read": None})
            continue
        r = read["links"][j]
        ends = sorted(st_map.get(s, "?") for s in r["stations"])
        translated = set()
        for c in r["crosses"]:
            kind, _, arg = c.partition(":")
            if kind == "link":
                translated.add(f"link:{inv.get(int(arg), -1)}")
            elif kind == "obstacle":
                translated.add(f"obstacle:{ob_map.get(int(arg), -1)}")
            elif kind == "station":
                translated.add(f"station:{st_map.get(arg, '?')}")
            else:
                translated.add(c)
        links.append({
            "found": True, "count": r["clips"] == t["clips"],
            "colour_ends": r["colour"] == t["colour"] and ends == sorted(t["stations"]),
            "crosses": translated == set(t["crosses"]),
            "confident": bool(r.get("confident")), "true": t["clips"], "read": r["clips"],
        })
    rv = read.get("river") or {}
    river_ok = rv.get("clips") == truth["river"]["clips"] and rv.get("silver") == truth["river"]["silver"]
    return {"links": links, "river_ok": bool(river_ok), "river_read": [rv.get("clips"), rv.get("silver")],
            "obstacles_true": len(truth["obstacles"]), "obstacles_found": len(set(ob_map.values())),
            "obstacles_false": len(read["obstacles"]) - len(ob_map),
            "stations_found": len(st_map), "stations_true": len(truth["stations"]),
            "types_right": sum(1 for s in read["stations"] if s["id"] in st_map and any(
                t["id"] == st_map[s["id"]] and t["type"] == s["type"] for t in truth["stations"]))}


_MEM_SNIPPET = r"""
import sys, json, resource, cv2, numpy as np
from calibration.profile import Lens, default_profile
from calibration.geometry import locate_table
from vision.api import AnalyzeOptions
from vision.railways import reader
img = cv2.imread(sys.argv[1]); cam = json.load(open(sys.argv[2]))
prof = default_profile("railways").with_lens(Lens(tuple(cam["resolution"]), tuple(tuple(r) for r in cam["K"]), tuple(cam["dist"])))
fit = locate_table(img, prof)
def hwm():
    # VmHWM (this process's own peak), not ru_maxrss, which Linux carries over from the
    # parent across fork + exec
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024.0
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
base = hwm()
reader.analyze(img, fit, AnalyzeOptions(profile=prof))
print(json.dumps({"before_mb": base, "peak_mb": hwm()}))
"""


MEMORY_TABLES = 5
"""Tables whose memory is probed (each in a fresh process): the peak depends on the table
(a cluttered one costs the marker search and the reader more)."""


def _memory(image: Any, camera: dict[str, Any]) -> dict[str, float] | None:
    """Peak resident memory of a fresh process that reads the frame and analyses it."""
    with tempfile.TemporaryDirectory() as d:
        ip, cp = os.path.join(d, "f.png"), os.path.join(d, "c.json")
        cv2.imwrite(ip, image)
        with open(cp, "w", encoding="utf-8") as f:
            json.dump(camera, f)
        try:
            out = subprocess.run([sys.executable, "-c", _MEM_SNIPPET, ip, cp], capture_output=True,
                                 text=True, timeout=600, check=True)
            res: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
            return res
        except (subprocess.SubprocessError, ValueError, IndexError):
            return None


def run_resolution(scenes: int, seed: int, res: tuple[int, int], memory_probe: bool) -> dict[str, Any]:
    from calibration.geometry import locate_table
    from vision.api import AnalyzeOptions
    from vision.railways import reader
    from vision.synth import random_scene, render_scene

    results = []
    times: list[float] = []
    floors: list[float] = []
    mems: list[tuple[int, dict[str, float]]] = []
    failures = 0
    for k in range(scenes):
        s = seed + k
        scene = random_scene("railways", s, resolution=res)
        r = render_scene(scene)
        truth = r.truth["railways"]
        prof = _profile_for(r)
        try:
            fit = locate_table(r.image, prof)
            t0 = time.perf_counter()
            out = reader.analyze(r.image, fit, AnalyzeOptions(profile=prof))
            times.append(time.perf_counter() - t0)
        except Exception:       # a crash is a failed table, counted, not hidden
            failures += 1
            out = {"links": [], "stations": [], "obstacles": [], "river": None}
        floors.append(floor_seconds(r.image))
        if memory_probe and len(mems) < MEMORY_TABLES and res == TARGET_RES:
            m = _memory(r.image, r.camera)
            if m is not None:
                mems.append((s, m))
        results.append(score_scene(truth, out))
    worst = max(mems, key=lambda sm: sm[1]["peak_mb"], default=None)
    return {"results": results, "times": times, "floors": floors, "failures": failures,
            "memory": None if worst is None else dict(worst[1], seed=worst[0], tables=len(mems))}


def _summary(name: str, res: tuple[int, int], data: dict[str, Any]) -> tuple[list[list[str]], dict[str, float]]:
    links = [lk for r in data["results"] for lk in r["links"]]
    n = len(links)
    count_ok = sum(lk["count"] for lk in links)
    ce_ok = sum(lk["colour_ends"] for lk in links)
    cr_ok = sum(lk["crosses"] for lk in links)
    found = sum(lk["found"] for lk in links)
    conf = [lk for lk in links if lk["confident"]]
    conf_ok = sum(lk["count"] for lk in conf)
    tables = len(data["results"])
    river_ok = sum(r["river_ok"] for r in data["results"])
    rows = [
        ["links found (path within 12 mm)", pct(found, n), "-", "-"],
        ["exact clip count", pct(count_ok, n), ">= 99.5%", verdict(n > 0 and count_ok / n >= 0.995)],
        ["colour and both end stations", pct(ce_ok, n), ">= 99.9%", verdict(n > 0 and ce_ok / n >= 0.999)],
        ["crossing list exact", pct(cr_ok, n), ">= 99%", verdict(n > 0 and cr_ok / n >= 0.99)],
        ["River count and silver positions", pct(river_ok, tables), ">= 99.5%",
         verdict(tables > 0 and river_ok / tables >= 0.995)],
        ["obstacle tiles found (a read tile's centre within 60 mm)",
         pct(sum(r.get("obstacles_found", 0) for r in data["results"]),
             sum(r.get("obstacles_true", 0) for r in data["results"])), "-", "-"],
        ["read tiles that are no tile", str(sum(r.get("obstacles_false", 0) for r in data["results"])), "-", "-"],
        ["confident links with exact count", pct(conf_ok, len(conf)), ">= 99.9%",
         verdict(len(conf) > 0 and conf_ok / len(conf) >= 0.999)],
        ["links flagged confident", pct(len(conf), n), "-", "-"],
        ["tables that crashed the reader", pct(data["failures"], tables), "0", verdict(data["failures"] == 0)],
    ]
    figures = {"median_s": median(data["times"]), "floor_s": median(data["floors"])}
    return rows, figures


def run(scenes: int | None, seed: int, resolution: tuple[int, int] | None) -> str:
    n = scenes if scenes is not None else DEFAULT_SCENES
    resolutions = [resolution] if resolution else [TARGET_RES, SECOND_RES]
    parts = [f"## railways\n\n{n} seeded random tables per resolution (seeds {seed}..{seed + n - 1}), "
             "5-25 links of 1-30 clips, camera 1.0-1.4 m up (wide lens), true lens given to the reader."]
    for res in resolutions:
        data = run_resolution(n, seed, res, memory_probe=True)
        rows, fig = _summary("railways", res, data)
        ratio = fig["median_s"] / fig["floor_s"] if fig["floor_s"] > 0 else float("nan")
        rows.append(["median analysis time", f"{fig['median_s']:.2f} s", "-", "-"])
        rows.append(["floor (cvtColor + warpPerspective)", f"{fig['floor_s']:.3f} s", "-", "-"])
        rows.append(["analysis / floor", f"{ratio:.1f}x", "<= 10x",
                     verdict(ratio <= 10.0) if res == TARGET_RES else "-"])
        mem = data["memory"]
        if mem is not None:
            rows.append(["peak resident memory of a process that loads, locates and analyses "
                         f"one frame (the most of the first {mem['tables']:.0f} tables: table {mem['seed']:.0f})",
                         f"{mem['peak_mb']:.0f} MB (before analyze: {mem['before_mb']:.0f} MB)",
                         "< 250 MB",
                         verdict(mem["peak_mb"] < 250.0)])
        errs = [(lk["true"], lk["read"]) for r in data["results"] for lk in r["links"]
                if lk["found"] and not lk["count"]]
        parts.append(f"### {res[0]}x{res[1]}\n\n" + md_table(["measure", "value", "target", "verdict"], rows)
                     + (f"\n\nCount errors (true, read), first 20: {errs[:20]}" if errs else ""))
    return "\n\n".join(parts)
