"""`tableref analyze`: read images and print the observed game state.

This is the contract tests and benchmarks use: one JSON object per image, one per
line, in input order, each naming its image. Many images are read in one process so
the imports and the reader's setup are paid once.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.geometry import TableFit, TableNotFound, fit_from_corners, locate_table
from calibration.profile import TableProfile, default_profile, load_profile
from firmware.cli import UserError
from vision.api import READERS, AnalyzeOptions, ReadError, get_reader


def read_image(path: str) -> NDArray[np.uint8]:
    """A BGR frame, or a one-line UserError that names the file."""
    p = Path(path)
    if not p.exists():
        raise UserError(f"{path}: no such image; check the path")
    if p.is_dir():
        raise UserError(f"{path}: is a folder, not an image; give the image files")
    data = np.fromfile(str(p), dtype=np.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise UserError(f"{path}: not a readable image (corrupt or not JPEG/PNG); re-capture or re-export it")
    return np.asarray(image, dtype=np.uint8)


def parse_numbers(text: str, count: int, option: str, example: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        values = []
    if len(values) != count:
        raise UserError(f"{option} '{text}': expected {count} comma-separated numbers like {example}")
    return values


def resolve_profile(game: str, path: str | None) -> TableProfile:
    return load_profile(path) if path else default_profile(game)


def resolve_fit(image: NDArray[np.uint8], profile: TableProfile,
                corners: str | None, area: str | None) -> TableFit:
    """Manual corners win (the user asked for them); else markers, else a fixed homography."""
    if corners or area:
        if not (corners and area):
            raise UserError("--corners and --area go together: give the rectangle's image corners and its size in mm")
        c = parse_numbers(corners, 8, "--corners", "100,80,1900,90,1880,1400,120,1390")
        a = parse_numbers(area, 2, "--area", "400,400")
        if a[0] <= 0 or a[1] <= 0:
            raise UserError(f"--area '{area}': width and height must be positive millimetres")
        return fit_from_corners([c[i:i + 2] for i in range(0, 8, 2)], (a[0], a[1]), profile.lens)
    return locate_table(image, profile)


def load_palette(path: str | None) -> dict[str, Any] | None:
    if not path:
        return None
    import tomllib

    p = Path(path)
    try:
        return tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"{path}: palette not found; make one with 'tableref teach'") from None
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"{path}: TOML syntax error: {e}; fix that line or teach again") from None
    except (OSError, UnicodeDecodeError) as e:
        raise UserError(f"{path}: cannot read palette ({e.__class__.__name__}); check the file") from None


def analyze_one(path: str, game: str, profile: TableProfile, options: AnalyzeOptions,
                corners: str | None, area: str | None) -> dict[str, Any]:
    image = read_image(path)
    fit = resolve_fit(image, profile, corners, area)
    result = get_reader(game).analyze(image, fit, options)
    out: dict[str, Any] = {"image": path, "game": game}
    out.update(result)
    out["image"] = path
    out["table"] = {"source": fit.source, "markers_seen": list(fit.markers_seen),
                    "rms_mm": round(fit.rms_mm, 3)}
    return out


def _text(obs: dict[str, Any]) -> str:
    """A short human summary; --json gives everything."""
    lines = [f"{obs['image']}: {obs['game']}  (table from {obs['table']['source']}, "
             f"markers {obs['table']['markers_seen']}, rms {obs['table']['rms_mm']} mm)"]
    for key, value in obs.items():
        if key in ("image", "game", "table"):
            continue
        if isinstance(value, list):
            lines.append(f"  {key}: {len(value)}")
            for item in value[:60]:
                lines.append(f"    {json.dumps(item, separators=(',', ':'))}")
        else:
            lines.append(f"  {key}: {json.dumps(value)}")
    return "\n".join(lines)


def main(args: argparse.Namespace) -> int:
    if args.game not in READERS:
        raise UserError(f"unknown game '{args.game}'; choose one of: {', '.join(sorted(READERS))}")
    profile = resolve_profile(args.game, args.profile)
    extra: dict[str, Any] = {}
    for key in ("shapes", "colours", "copies"):
        value = getattr(args, key, None)
        if value is not None:
            if value < 1:
                raise UserError(f"--{key} {value}: must be a positive count")
            extra[key] = value
    if args.corners and args.area:
        # The --corners rectangle is the play area the readers should look in.
        extra["area_mm"] = tuple(parse_numbers(args.area, 2, "--area", "400,400"))
    previous = read_image(args.previous) if args.previous else None
    options = AnalyzeOptions(profile=profile, palette=load_palette(args.palette), extra=extra,
                             previous=previous)
    get_reader(args.game)  # fail before reading images when the game has no reader
    failed = 0
    for path in args.images:
        try:
            obs = analyze_one(path, args.game, profile, options, args.corners, args.area)
        except (UserError, ReadError, TableNotFound) as e:
            # One bad image must not cost the others their readings: report it, go on,
            # and exit 2 at the end.
            failed += 1
            msg = str(e).splitlines()[0]
            print(f"tableref: {msg}" if msg.startswith(path) else f"tableref: {path}: {msg}",
                  file=sys.stderr)
            if args.json:
                sys.stdout.write(json.dumps({"image": path, "game": args.game, "error": msg}) + "\n")
            continue
        if args.json:
            sys.stdout.write(json.dumps(obs, separators=(",", ":")) + "\n")
        else:
            sys.stdout.write(_text(obs) + "\n")
        sys.stdout.flush()
    return 2 if failed else 0
