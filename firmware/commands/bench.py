"""`tableref bench`: run the benchmark suites and print (optionally write) Markdown."""

from __future__ import annotations

import argparse
import importlib
import platform
import sys
import time

from firmware.bench import SUITES
from firmware.cli import UserError


def _resolution(text: str | None) -> tuple[int, int] | None:
    if not text:
        return None
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise UserError(f"--resolution '{text}': expected WxH like 2304x1296") from None
    return w, h


def main(args: argparse.Namespace) -> int:
    names = [args.game] if args.game else list(SUITES)
    for n in names:
        if n not in SUITES:
            raise UserError(f"unknown bench suite '{n}'; choose one of: {', '.join(SUITES)}")
    res = _resolution(args.resolution)
    cmd = "tableref " + " ".join(sys.argv[1:]) if sys.argv[0].endswith("tableref") else "tableref bench"
    parts = [f"<!-- {cmd} | {platform.machine()} {platform.python_version()} | "
             f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} -->"]
    for n in names:
        try:
            module = importlib.import_module(SUITES[n])
        except ModuleNotFoundError as e:
            parts.append(f"## {n}\n\nNot measured: suite not built yet ({e.name}).")
            continue
        section: str = module.run(args.scenes, args.seed, res)
        parts.append(section)
        print(section + "\n", flush=True)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write("\n\n".join(parts) + "\n")
    return 0
