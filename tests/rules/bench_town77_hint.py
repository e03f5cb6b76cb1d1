"""Benchmark (not a test): how many tiles the Challenge hint places, and how fast it is.

Run: .venv/bin/python tests/rules/bench_town77_hint.py [games]
Plays seeded solo Challenges to the end with random legal moves and with the hint at
depths 1-3, printing tiles placed (mean/median/min/max) and the hint's time per call.
"""

from __future__ import annotations

import random
import statistics
import sys
import time

from rules.town77.challenge import ChallengeGame
from rules.town77.placement import legal_cells


def play(seed: int, depth: int | None, times: list[float]) -> int:
    game = ChallengeGame.new(random.Random(seed))
    chooser = random.Random(seed + 10_000)
    while not game.is_over():
        if depth is None:
            moves = [(t, c) for t in game.tops if t for c in legal_cells(game.city, t)]
            tile, cell = chooser.choice(moves)
        else:
            start = time.perf_counter()
            hint = game.hint(depth)
            times.append(time.perf_counter() - start)
            assert hint is not None
            tile, cell = hint.tile, hint.cell
        game.place(0, tile, cell)
    return game.placed


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    for depth in (None, 1, 2, 3):
        times: list[float] = []
        placed = [play(seed, depth, times) for seed in range(games)]
        label = "random" if depth is None else f"hint depth {depth}"
        timing = (f"; hint worst {max(times) * 1000:.1f} ms, mean "
                  f"{statistics.mean(times) * 1000:.2f} ms") if times else ""
        print(f"{label:13s} placed mean {statistics.mean(placed):.1f} median "
              f"{statistics.median(placed)} min {min(placed)} max {max(placed)}{timing}")


if __name__ == "__main__":
    main()
