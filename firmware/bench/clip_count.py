"""The clip counter alone: `python -m firmware.bench.clip_count SEED0 N [WxH ...]`.

A diagnostic of the counting step only, NOT the product's figure (that is
`tableref bench --game railways`, which also has to find and trace each chain). Why
separate: a wrong count of the whole reader may come from the tracer (a path cut short,
two links joined) or from the counter; here every true link (and the River) is counted on
its TRUE centre line with the TRUE clip length (or, with --learnt, the length the
reader learns from the table's chains), over the very wire maps that
vision.railways.pipeline.read_table builds from the pixels, so what is left is the
counter's own error. Truth is used only to say where to count and to score.

Renders are slow: each scene is cached as a pickle (image, truth, camera) under
$CLIP_BENCH_CACHE (default /tmp/C/cache), the wire maps beside it.
"""

from __future__ import annotations

import math
import os
import pickle
import sys
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

BUCKETS = ((1, 5), (6, 15), (16, 30))


@dataclass
class Counted:
    """One chain counted on its true centre line."""

    seed: int
    kind: str              # "link" or "river"
    colour: str
    true: int
    read: int
    confidence: float
    confident: bool


@dataclass
class TableMaps:
    """What read_table has made by the time it counts links (geometry-only view)."""

    view: Any
    wires: dict[str, Any]
    blind: dict[str, Any]
    size: tuple[int, int]


def cache_dir() -> str:
    return os.environ.get("CLIP_BENCH_CACHE", "/tmp/C/cache")


def scene(seed: int, res: tuple[int, int]) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """(image, railways truth, camera) of one seeded table, from the cache when there."""
    path = os.path.join(cache_dir(), f"{seed}_{res[0]}.pkl")
    if os.path.exists(path):
        with open(path, "rb") as f:
            img, truth, cam = pickle.load(f)
        return img, truth, cam
    from vision.synth import random_scene, render_scene
    r = render_scene(random_scene("railways", seed, resolution=res))
    out = (r.image, r.truth["railways"], r.camera)
    os.makedirs(cache_dir(), exist_ok=True)
    with open(path, "wb") as f:
        pickle.dump(out, f)
    return out


def profile_for(cam: dict[str, Any]) -> Any:
    from calibration.profile import Lens, default_profile
    lens = Lens((int(cam["resolution"][0]), int(cam["resolution"][1])),
                tuple(tuple(float(v) for v in r) for r in cam["K"]),
                tuple(float(v) for v in cam["dist"]))
    return default_profile("railways").with_lens(lens)


def table_maps(seed: int, res: tuple[int, int], cfg: Any) -> TableMaps:
    """The wire maps exactly as read_table makes them (cached beside the render)."""
    from vision.railways.frame import TopView
    path = os.path.join(cache_dir(), f"{seed}_{res[0]}.maps.pkl")
    if os.path.exists(path):
        with open(path, "rb") as f:
            origin, ppm, wires, blind, size = pickle.load(f)
        return TableMaps(TopView(np.zeros((0, 0, 3), np.uint8), np.zeros((0, 0, 3), np.uint8),
                                 origin, ppm), wires, blind, size)
    from calibration.geometry import locate_table
    from vision.railways.chains import wire_maps
    from vision.railways.config import CLIP_COLOURS
    from vision.railways.frame import background, top_view
    img, _, cam = scene(seed, res)
    prof = profile_for(cam)
    fit = locate_table(img, prof)
    view = top_view(img, fit, prof, cfg)
    bg = background(view.image, int(round(12.0 * cfg.px_per_mm)))
    wires, blind = wire_maps(view, CLIP_COLOURS, cfg, bg)
    h, w = view.image.shape[:2]
    with open(path, "wb") as f:
        pickle.dump((view.origin_mm, view.px_per_mm, wires, blind, (w, h)), f)
    return TableMaps(TopView(np.zeros((0, 0, 3), np.uint8), np.zeros((0, 0, 3), np.uint8),
                             view.origin_mm, view.px_per_mm), wires, blind, (w, h))


def count_table(seed: int, res: tuple[int, int], learnt: bool = False) -> tuple[list[Counted], float]:
    """Every true link and the River of one table, counted on the true centre line, and
    the clip length used. learnt: the length the reader learns from the table's chains
    (pipeline.table_clip_length over the true links' strips, the standard 32 mm when it
    learns none), else the true one."""
    from vision.railways import pipeline as pl
    from vision.railways.clip_counter import CountResult, load_river_detector
    from vision.railways.chains import LazyMap
    from vision.railways.config import RailwaysConfig
    from vision.railways.frame import blind_full
    cfg = RailwaysConfig()
    _, truth, _ = scene(seed, res)
    tm = table_maps(seed, res, cfg)
    covers: dict[str, Any] = {}
    strips: list[Any] = []
    for lk in truth["links"]:
        colour = lk["colour"]
        if colour not in covers:
            covers[colour] = (pl._cover(tm.wires, colour),
                              LazyMap.of(blind_full(tm.blind[colour], tm.size)))
        cover, same = covers[colour]
        path = np.asarray(lk["path_mm"], dtype=np.float64)
        if learnt:
            strips.append(pl._chain_strip(tm.view, LazyMap.over255(tm.wires[colour]), cover, same, path,
                                          cfg.default_clip_mm, cfg))
        else:
            strips.append((LazyMap.over255(tm.wires[colour]), cover, same, path))
    if learnt:
        clip_len = pl.table_clip_length([s for s in strips if s is not None], cfg) or cfg.default_clip_mm
    else:
        clip_len = float(truth["clip_length_mm"])
    out: list[Counted] = []
    for lk, st in zip(truth["links"], strips):
        if learnt:
            res_ = pl._count_strip(st, clip_len, cfg)[0] if st is not None else CountResult(0, (), 0.0, 0.0, 1.0)
        else:
            res_ = pl._count_chain(tm.view, st[0], st[1], st[2], st[3], clip_len, cfg)[0]
        out.append(Counted(seed, "link", lk["colour"], int(lk["clips"]), res_.count, res_.confidence,
                           res_.confidence >= cfg.confident))
    rw = np.maximum(tm.wires["blue"], tm.wires["silver"])
    nothing = LazyMap(rw.shape, lambda r, c: np.zeros((r.stop - r.start, c.stop - c.start), np.float32))
    path = np.asarray(truth["river"]["path_mm"], dtype=np.float64)
    rr, _ = pl._count_chain(tm.view, LazyMap.over255(rw), nothing, None, path, clip_len, cfg, load_river_detector())
    out.append(Counted(seed, "river", "blue", int(truth["river"]["clips"]), rr.count, rr.confidence,
                       rr.confidence >= cfg.confident))
    return out, clip_len


def summarise(rows: list[Counted]) -> dict[str, Any]:
    """Exact %, within +-1 %, mean signed error, and the honesty of `confident`."""
    def stats(rs: list[Counted]) -> dict[str, Any]:
        n = len(rs)
        if n == 0:
            return {"n": 0}
        conf = [r for r in rs if r.confident]
        return {"n": n,
                "exact": sum(r.read == r.true for r in rs) / n,
                "within1": sum(abs(r.read - r.true) <= 1 for r in rs) / n,
                "mean_err": sum(r.read - r.true for r in rs) / n,
                "confident_share": len(conf) / n,
                "confident_exact": (sum(r.read == r.true for r in conf) / len(conf)) if conf else math.nan}
    links = [r for r in rows if r.kind == "link"]
    out: dict[str, Any] = {"links": stats(links), "river": stats([r for r in rows if r.kind == "river"])}
    for lo, hi in BUCKETS:
        out[f"{lo}-{hi}"] = stats([r for r in links if lo <= r.true <= hi])
    return out


def _line(name: str, s: dict[str, Any]) -> str:
    if not s.get("n"):
        return f"  {name:>7}: none"
    ce = s["confident_exact"]
    return (f"  {name:>7}: n {s['n']:4d}  exact {s['exact']:6.1%}  +-1 {s['within1']:6.1%}  "
            f"mean err {s['mean_err']:+.2f}  confident {s['confident_share']:6.1%} "
            f"of which exact {'-' if math.isnan(ce) else f'{ce:.1%}'}")


def run(seed0: int, n: int, res: tuple[int, int], verbose: bool = False,
        learnt: bool = False) -> tuple[list[Counted], dict[str, Any]]:
    rows: list[Counted] = []
    length_err: list[float] = []
    t0 = time.perf_counter()
    for s in range(seed0, seed0 + n):
        got, clip_len = count_table(s, res, learnt)
        length_err.append(clip_len - float(scene(s, res)[1]["clip_length_mm"]))
        rows += got
        if verbose:
            bad = [(r.true, r.read) for r in got if r.read != r.true]
            print(f"    seed {s}: {sum(r.read == r.true for r in got)}/{len(got)} exact; wrong (true, read) {bad}",
                  flush=True)
    summ = summarise(rows)
    summ["length_err"] = length_err
    summ["seconds"] = time.perf_counter() - t0
    return rows, summ


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    verbose = "-v" in args
    learnt = "--learnt" in args
    args = [a for a in args if a not in ("-v", "--learnt")]
    if len(args) < 2:
        print("usage: python -m firmware.bench.clip_count SEED0 N [WxH ...] [--learnt] [-v]", file=sys.stderr)
        return 2
    seed0, n = int(args[0]), int(args[1])
    resolutions = [tuple(int(v) for v in a.lower().split("x")) for a in args[2:]] or [(4608, 2592), (2304, 1296)]
    for res in resolutions:
        r2 = (int(res[0]), int(res[1]))
        rows, s = run(seed0, n, r2, verbose, learnt)
        print(f"clip counter alone (true centre line, {'learnt' if learnt else 'true'} clip length), "
              f"seeds {seed0}-{seed0 + n - 1} at {r2[0]}x{r2[1]}:")
        if learnt:
            err = np.abs(np.asarray(s["length_err"]))
            print(f"  clip length learnt - true (mm): mean |err| {err.mean():.2f}, worst {err.max():.2f}, "
                  f"over 1 mm on {int((err > 1.0).sum())} of {len(err)} tables")
        for key in ("links", "1-5", "6-15", "16-30", "river"):
            print(_line(key, s[key]))
        wrong = [(r.true, r.read) for r in rows if r.kind == "link" and r.read != r.true]
        print(f"  wrong (true, read): {wrong[:40]}")
        print(f"  {s['seconds']:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
