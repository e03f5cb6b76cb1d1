"""Render-speed benchmark of the synthetic table (not a test):

    python -m vision.synth.bench 2304 1296 8 town77

prints the median CPU and wall seconds per render_scene and the process's peak memory.
"""

from __future__ import annotations

import resource
import statistics
import sys
import time

from vision.synth import random_scene, render_scene


def main(argv: list[str]) -> int:
    w, h = int(argv[0]) if argv else 2304, int(argv[1]) if len(argv) > 1 else 1296
    n = int(argv[2]) if len(argv) > 2 else 5
    game = argv[3] if len(argv) > 3 else "town77"
    wall: list[float] = []
    cpu: list[float] = []
    for seed in range(n):
        opts = {"hands": 1, "cup": True} if game == "town77" else {}
        scene = random_scene(game, 100 + seed, resolution=(w, h), **opts)
        t, c = time.perf_counter(), time.process_time()
        render_scene(scene)
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{game} {w}x{h}, {n} scenes: CPU median {statistics.median(cpu):.2f} s, "
          f"wall median {statistics.median(wall):.2f} s (max {max(wall):.2f} s), peak RSS {peak:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
