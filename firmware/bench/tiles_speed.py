"""The Town 77 tile reader's speed, stage by stage, and its readings for regression checks.

    python -m firmware.bench.tiles_speed [--seed 7300] [--count 40] [--hint]
        [--save FILE | --compare FILE]

Renders each seeded city once (cached as a pickle in $TMPDIR/tiles_speed/), reads it,
and prints the CPU time (time.process_time) of the whole read and of its costly stages,
with the frame floor (one cvtColor plus one warpPerspective, firmware.bench.common)
measured in the same process, in CPU and in wall time. --hint reads each frame again
with its own lattice as the hint (the device loop's usual look). --save stores every
reading (each tile's row, col, face_down, groups, centre to 0.1 mm, the lattice);
--compare checks the readings against such a file, so a change meant to be only
faster can be shown to read the same (on this machine and its numpy and OpenCV build;
compare a file saved with the same --seed, --count and --hint: a hinted look reads on
the hint's lattice, which differs a little from the searched one).
"""

from __future__ import annotations

import argparse
import collections
import os
import pickle
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
from numpy.typing import NDArray

from firmware.bench.common import floor_seconds

STAGES = {
    "vision.tiles.pipeline": ["_read_cells", "fit_grid", "table_near", "measure_reference", "cell_stats",
                              "cell_table", "warp_view", "_outlined_backs", "_group", "analyse_cell", "normalise_crop",
                              "normalise_crops", "to_lab"],
    "vision.tiles.grid": ["cornerness", "line_profiles", "refine_orientation", "orientations"],
}


def cpu_floor(image: NDArray[np.uint8], repeats: int = 3) -> float:
    """floor_seconds in CPU time (every OpenCV thread's)."""
    return floor_seconds(image, repeats, time.process_time)


def frame(seed: int, cache: Path) -> dict[str, Any]:
    """The rendered city and its table fit, rendered once per seed."""
    path = cache / f"town77_{seed}.pkl"
    if path.exists():
        with path.open("rb") as f:
            out: dict[str, Any] = pickle.load(f)
            return out
    from calibration.geometry import locate_table
    from calibration.profile import default_profile
    from vision.synth import random_scene, render_scene

    image = render_scene(random_scene("town77", seed, resolution=(2304, 1296))).image
    out = {"image": image, "fit": locate_table(image, default_profile("town77"))}
    cache.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        pickle.dump(out, f)
    return out


def record(reading: Any) -> dict[str, Any]:
    """What a speed-only change must leave exactly as it was."""
    g = reading.grid
    tiles = sorted((t.row, t.col, t.face_down, t.shape_group, t.colour_group,
                    round(t.centre_mm[0], 1), round(t.centre_mm[1], 1)) for t in reading.tiles)
    return {"tiles": tiles, "grid": None if g is None else (g.angle_rad, g.pitch_mm, g.origin_mm),
            "origin": reading.origin_cell, "groups": (reading.shape_groups, reading.colour_groups)}


def _timed(acc: dict[str, float], name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def run(*a: Any, **k: Any) -> Any:
        t = time.process_time()
        try:
            return fn(*a, **k)
        finally:
            acc[name] += time.process_time() - t
    return run


def main(argv: list[str] | None = None) -> None:
    import importlib

    from calibration.profile import default_profile
    from vision.api import AnalyzeOptions
    from vision.tiles import reader

    ap = argparse.ArgumentParser(description="The tile reader's speed, stage by stage, and its readings.")
    ap.add_argument("--seed", type=int, default=7300)
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--hint", action="store_true")
    ap.add_argument("--save")
    ap.add_argument("--compare")
    a = ap.parse_args(argv)
    cache = Path(os.environ.get("TMPDIR", tempfile.gettempdir())) / "tiles_speed"
    profile = default_profile("town77")
    stages: dict[str, float] = collections.defaultdict(float)
    for mod_name, names in STAGES.items():
        mod = importlib.import_module(mod_name)
        for name in names:
            setattr(mod, name, _timed(stages, name, getattr(mod, name)))
    times: list[float] = []
    walls: list[float] = []
    floors: list[float] = []
    cpu_floors: list[float] = []
    readings: dict[int, dict[str, Any]] = {}
    total: dict[str, float] = collections.defaultdict(float)
    for seed in range(a.seed, a.seed + a.count):
        fr = frame(seed, cache)
        extra: dict[str, Any] = {}
        if a.hint:
            extra["grid"] = reader.grid_dict(reader.read(fr["image"], fr["fit"], AnalyzeOptions(profile),
                                                         shapes=7, colours=7))
        stages.clear()      # only the timed read's stages count
        t, w = time.process_time(), time.perf_counter()
        r = reader.read(fr["image"], fr["fit"], AnalyzeOptions(profile, extra=extra), shapes=7, colours=7)
        times.append(time.process_time() - t)
        walls.append(time.perf_counter() - w)
        for k, v in stages.items():
            total[k] += v
        readings[seed] = record(r)
        floors.append(floor_seconds(fr["image"]))
        cpu_floors.append(cpu_floor(fr["image"]))
    count = len(times)
    med, fl, cfl = statistics.median(times), statistics.median(floors), statistics.median(cpu_floors)
    print(f"{count} cities from {a.seed}{' (hinted looks)' if a.hint else ''}: read CPU median {med * 1000:.0f} ms, "
          f"total {sum(times):.1f} s; wall median {statistics.median(walls) * 1000:.0f} ms")
    print(f"floor median: wall {fl * 1000:.1f} ms, CPU {cfl * 1000:.1f} ms; "
          f"wall/wall floor {statistics.median(walls) / fl:.1f}x, CPU/CPU floor {med / cfl:.1f}x")
    for k, v in sorted(total.items(), key=lambda kv: -kv[1]):
        print(f"  {k:20s} {v / count * 1000:7.1f} ms a frame (CPU, nested stages overlap)")
    if a.save:
        with open(a.save, "wb") as f:
            pickle.dump(readings, f)
    if a.compare:
        with open(a.compare, "rb") as f:
            old = pickle.load(f)
        differ = [s for s in readings if old.get(s) != readings[s]]
        print(f"readings identical on {count - len(differ)} of {count}" + (f"; differ: {differ}" if differ else ""))


if __name__ == "__main__":
    main()
