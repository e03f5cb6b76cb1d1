"""`tableref bench`: figures for docs/benchmarks.md. Benchmarks are not tests.

Each suite is a module firmware/bench/<name>.py with
`run(scenes: int | None, seed: int, resolution: tuple[int, int] | None) -> str`
returning a Markdown section; suites are imported only when run.
"""

SUITES: dict[str, str] = {
    "geometry": "firmware.bench.geometry",
    "calibration": "firmware.bench.calibration",
    "town77": "firmware.bench.town77",
    "town77-challenge": "firmware.bench.town77_challenge",
    "railways": "firmware.bench.railways",
    "railways-games": "firmware.bench.railways_games",
    "railways-setups": "firmware.bench.railways_setups",
    "loop": "firmware.bench.loop",
}
