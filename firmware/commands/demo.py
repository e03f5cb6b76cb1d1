"""`tableref demo`: the referee loop on the synthetic table, for a machine without camera.

A scripted Town 77 game is rendered frame by frame (vision.synth) while the loop watches
it: hands reach over the table, tiles appear, one tile breaks the row rule and is taken
back. The OLED screens are drawn in the terminal and saved as PNGs (out/demo). In a
terminal the keyboard is the three buttons (a/s/d, capitals for long presses); otherwise
a built-in button script ends the game after the recording and shows the ranking, so
the demo stops by itself in about a minute.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path
from typing import Any, Iterator

from firmware.loop import LoopConfig, RealClock
from firmware.motion import MotionConfig

DEMO_RESOLUTION = (1280, 720)
# After the recording: MENU, PREV (wraps to "End game"), SELECT; tiles left P1 = 1, P2 = 0.
END_SCRIPT = "menu\nprev\nselect\nnext\nselect\nselect\nselect\n"


def game_scenes(seed: int, moves: int = 8, resolution: tuple[int, int] = DEMO_RESOLUTION,
                hands: bool = True, illegal_at: int | None = 4,
                clean: bool = True) -> Iterator[dict[str, Any]]:
    """Scene dicts of a legal Town 77 game on one fixed table and style: the empty table,
    then per move (sometimes) a hand over the city, then the tile down. At `illegal_at` a
    tile breaking the row/column rule is put down first and then taken back."""
    from calibration.profile import default_profile
    from rules.town77.city import Cell, City
    from rules.town77.placement import line_mistakes, random_placement
    from rules.town77.tiles import ALL_TILES
    from vision.synth.occluders import random_hand
    from vision.synth.randomize import easy_environment, random_environment
    from vision.synth.town77 import city_scene, random_style

    prof = default_profile("town77")
    rng = random.Random(seed)
    style = random_style(seed, prof)
    # The demo plays on a clean, evenly lit table seen straight down, where today's
    # reader is dependable; the hard tables (poses, lenses, light, glare) are measured by
    # `tableref bench --game town77` and reported in docs/benchmarks.md.
    env = easy_environment(resolution, prof) if clean else random_environment(
        random.Random(seed), resolution, prof)
    env["profile"] = prof.name
    bag = list(ALL_TILES)
    rng.shuffle(bag)
    city = City.empty()
    cells: list[dict[str, Any]] = []
    n = 0

    def scene(c: list[dict[str, Any]], occ: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        nonlocal n
        n += 1
        return city_scene(list(c), style, env, seed * 1000 + n, occ or [])

    yield scene(cells)
    while len(cells) < moves:
        if city.is_empty:
            tile, cell = bag.pop(), Cell(0, 0)
        else:
            pick = random_placement(city, bag, rng)
            if pick is None:
                return
            tile, cell = pick
            bag.remove(tile)
        if illegal_at is not None and len(cells) == illegal_at:
            wrong = line_mistakes(city, bag)
            if wrong:
                t, c = wrong[rng.randrange(len(wrong))]
                bad = cells + [{"row": c.row, "col": c.col, "shape": t.shape, "colour": t.colour}]
                yield scene(bad)
                yield scene(bad)
        if hands and rng.random() < 0.5:
            yield scene(cells, [random_hand(rng, prof)])
        city = city.with_tile(cell, tile)
        cells.append({"row": cell.row, "col": cell.col, "shape": tile.shape, "colour": tile.colour})
        yield scene(cells)


def main(args: argparse.Namespace) -> int:
    from firmware.commands.run import build, report

    interactive = sys.stdin is not None and sys.stdin.isatty() and not args.buttons
    out = Path("out/demo")
    if not args.display:
        out.mkdir(parents=True, exist_ok=True)
        for old in out.glob("[0-9]*.png"):  # a fresh demo, not the last one's screens too
            old.unlink()
        args.display = f"terminal+png:{out}"
    script = None
    if not args.buttons:
        if interactive:
            args.buttons = "keyboard"
        else:
            script = Path(tempfile.mkdtemp(prefix="tableref-demo-")) / "buttons.txt"
            script.write_text(END_SCRIPT, encoding="utf-8")
            args.buttons = f"script:{script}"
    if not args.state_dir:
        args.state_dir = tempfile.mkdtemp(prefix="tableref-demo-state-")
    args.game = args.game or "town77"
    if args.game != "town77":
        from firmware.cli import UserError
        raise UserError(f"--game {args.game}: the demo plays town77; use tableref run for others")
    if args.players is None:
        args.players = 2
    cfg = LoopConfig(motion=MotionConfig(still_seconds=0.6), preview_interval=0.05,
                     flash_times=3, flash_period=0.2, prompt_timeout=30.0,
                     linger_seconds=120.0 if interactive else 0.0,
                     auto_dismiss=not interactive and script is not None)
    scenes = game_scenes(args.seed)
    ref = build(args, demo_scenes=scenes, clock=RealClock(), replay=not interactive,
                loop_config=cfg)
    ref.install_signal_handlers()
    rc = ref.run()
    report(ref)
    if "png:" in args.display:
        where = args.display.split("png:", 1)[1].split("+")[0]
        print(f"tableref demo: the screens are in {where}/ (one PNG per screen)")
    return rc
