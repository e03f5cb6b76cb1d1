"""`tableref markers`: a printable sheet at true scale, the table's corner markers or
(--charuco) the lens board, each page with a 100 mm ruler to check the print scale."""

from __future__ import annotations

import argparse
from pathlib import Path

from calibration.charuco import DEFAULT_BOARD
from calibration.profile import PROFILE_DIR, TableProfile, default_profile, load_profile
from calibration.sheets import SheetError, charuco_page, marker_pages, save_pages
from firmware.cli import UserError


def resolve_profile(profile: str | None, game: str | None) -> TableProfile:
    """--profile is a TOML file or a shipped profile's name; else --game's; else default."""
    if profile:
        p = Path(profile)
        if p.suffix == ".toml" or p.exists():
            return load_profile(p)
        if (PROFILE_DIR / f"{profile}.toml").exists():
            return default_profile(profile)
        shipped = ", ".join(sorted(q.stem for q in PROFILE_DIR.glob("*.toml")))
        raise UserError(f"--profile '{profile}': no such file or shipped profile; give a .toml file "
                        f"or one of: {shipped}")
    return default_profile(game or "default")


def main(args: argparse.Namespace) -> int:
    try:
        if args.charuco:
            page, board = charuco_page(DEFAULT_BOARD, args.dpi, args.paper)
            pages = [page]
            what = (f"ChArUco lens board ({board.squares_x}x{board.squares_y} squares of "
                    f"{board.square_mm:g} mm)")
        else:
            prof = resolve_profile(args.profile, args.game)
            pages = marker_pages(prof, args.dpi, args.paper)
            what = f"{len(prof.markers)} markers of profile '{prof.name}'"
        written = save_pages(pages, args.out)
    except SheetError as e:
        raise UserError(str(e)) from None
    files = ", ".join(str(p) for p in written)
    print(f"wrote {what} to {files} ({len(pages)} page{'s' if len(pages) != 1 else ''}, "
          f"{args.paper} at {args.dpi} dpi); print at 100% / actual size and check the 100 mm ruler")
    return 0
