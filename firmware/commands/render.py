"""`tableref render`: synthetic table frames with their ground truth, for tests,
benchmarks, demos and anyone who wants to see what the readers are measured on."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2

from firmware.cli import UserError


def main(args: argparse.Namespace) -> int:
    from vision.synth import SceneError, random_scene, render_scene

    try:
        w, h = (int(v) for v in args.resolution.lower().split("x"))
    except ValueError:
        raise UserError(f"--resolution '{args.resolution}': expected WxH like 2304x1296") from None
    if args.count < 1:
        raise UserError(f"--count {args.count}: must be at least 1")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    scenes = []
    if args.scene:
        try:
            scenes.append(json.loads(Path(args.scene).read_text(encoding="utf-8")))
        except FileNotFoundError:
            raise UserError(f"{args.scene}: no such scene file; check the path") from None
        except json.JSONDecodeError as e:
            raise UserError(f"{args.scene}: line {e.lineno}: not valid JSON ({e.msg}); fix the scene file") from None
    else:
        for i in range(args.count):
            try:
                scenes.append(random_scene(args.game, args.seed + i, resolution=(w, h)))
            except SceneError as e:
                raise UserError(str(e)) from None
    for i, scene in enumerate(scenes):
        try:
            r = render_scene(scene)
        except SceneError as e:
            where = args.scene or f"the {args.game} scene"
            raise UserError(f"{where}: {e}") from None
        stem = out / f"{args.seed + i:04d}"
        cv2.imwrite(str(stem.with_suffix(".jpg")), r.image, [cv2.IMWRITE_JPEG_QUALITY, 95])
        stem.with_suffix(".json").write_text(
            json.dumps({"scene": scene, "truth": r.truth, "camera": r.camera}, indent=1) + "\n",
            encoding="utf-8")
        print(f"{stem}.jpg")
    return 0
