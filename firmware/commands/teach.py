"""`tableref teach`: learn what a game's pieces look like from reference pieces, and
write the palette `tableref analyze --palette` names things with.

Each game teaches itself: vision.<game>.teach.teach(image, fit, labels, options) -> dict.
"""

from __future__ import annotations

import argparse
import importlib
from typing import Any

from calibration.palette import save_palette
from firmware.cli import UserError

TEACHERS: dict[str, str] = {
    "town77": "vision.town77.teach",
    "tiles": "vision.tiles.teach",
    "railways": "vision.railways.teach",
}


def main(args: argparse.Namespace) -> int:
    from firmware.commands.analyze import read_image, resolve_fit, resolve_profile
    from vision.api import AnalyzeOptions

    game = args.game
    if game not in TEACHERS:
        raise UserError(f"unknown game '{game}'; choose one of: {', '.join(sorted(TEACHERS))}")
    try:
        module = importlib.import_module(TEACHERS[game])
    except ModuleNotFoundError as e:
        raise UserError(f"teaching for '{game}' is not built yet ({e.name})") from None
    cards = getattr(args, "cards", None)
    if not args.image and not cards:
        raise UserError(f"teach --game {game} needs IMAGE: a photo of the reference pieces "
                        "laid in one row")
    if args.image and not args.labels and game != "railways":
        raise UserError("--labels is required: name the tiles left to right, "
                        "e.g. --labels circle:red,star:blue")
    labels = [s for s in (args.labels or "").split(",") if s.strip()]
    check = getattr(module, "check_labels", None)
    if check is not None and labels:
        check(labels)
    profile = resolve_profile(game, getattr(args, "profile", None))
    extra: dict[str, Any] = {"cards": cards} if cards else {}
    options = AnalyzeOptions(profile=profile, extra=extra)
    image = read_image(args.image) if args.image else None
    fit = resolve_fit(image, profile, None, None) if image is not None else None
    palette: dict[str, Any] = module.teach(image, fit, labels, options)
    palette.setdefault("game", game)
    save_palette(palette, args.out)
    n_s, n_c = len(palette.get("shapes", {})), len(palette.get("colours", {}))
    print(f"{args.out}: taught {game}" + (f" ({n_s} shapes, {n_c} colours)" if n_s or n_c else ""))
    return 0
