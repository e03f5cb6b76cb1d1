"""The `tableref` command. Each subcommand lives in firmware/commands/<name>.py as
`main(args) -> int`; this module only parses arguments and turns the errors a user
can fix into one line and exit code 2."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from typing import Callable, Sequence

EXIT_USAGE = 2


class UserError(Exception):
    """Bad input the user can fix; the message is one line naming the thing and the fix."""


def _user_error_types() -> tuple[type[BaseException], ...]:
    """Every error type that means "your input is wrong", not "tableref is broken"."""
    from calibration.geometry import TableNotFound
    from calibration.profile import ProfileError
    from rules.errors import RulesError
    from vision.api import ReadError

    types: list[type[BaseException]] = [UserError, ProfileError, TableNotFound, ReadError,
                                         RulesError, FileNotFoundError, IsADirectoryError,
                                         PermissionError]
    try:
        from firmware.camera.base import CameraError
        types.append(CameraError)
    except ImportError:  # pragma: no cover
        pass
    from firmware.alerts import AlertsError
    from firmware.buttons.base import ButtonsError
    from firmware.config import ConfigError
    from firmware.display.base import DisplayError

    types += [ConfigError, DisplayError, ButtonsError, AlertsError]
    return tuple(types)


def _add_game(p: argparse.ArgumentParser, required: bool = True) -> None:
    p.add_argument("--game", required=required,
                   help="town77, tiles, railways (more as readers land)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tableref", description="A camera referee for tabletop games.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("analyze", help="read images and print the observed game state")
    _add_game(p)
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.add_argument("--profile", help="table profile TOML (default: the game's shipped profile)")
    p.add_argument("--palette", help="taught palette TOML from 'tableref teach'")
    p.add_argument("--corners", help="X1,Y1,X2,Y2,X3,Y3,X4,Y4: image corners of a known rectangle "
                                     "(TL, TR, BR, BL) when no marker is usable")
    p.add_argument("--area", help="W,H: the size in mm of the --corners rectangle")
    p.add_argument("--shapes", type=int, help="number of distinct shapes (generic tile reader)")
    p.add_argument("--colours", type=int, help="number of distinct colours (generic tile reader)")
    p.add_argument("--copies", type=int, help="tiles of each shape and colour in the box (generic tile "
                                              "reader; Town 77: 1): no more are read alike")
    p.add_argument("--previous", help="image of the same table just before (isolates a new piece)")
    p.add_argument("--json", action="store_true", help="one JSON object per image, one per line")

    p = sub.add_parser("teach", help="learn piece appearance from reference pieces")
    _add_game(p)
    p.add_argument("image", nargs="?", metavar="IMAGE")
    p.add_argument("--labels", help="L1,L2,...: the pieces in the image, left to right")
    p.add_argument("--cards", help="folder of reference card images (railways)")
    p.add_argument("--profile")
    p.add_argument("--out", required=True, help="palette TOML to write")

    p = sub.add_parser("render", help="render a synthetic table frame and its ground truth")
    _add_game(p)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--count", type=int, default=1)
    p.add_argument("--scene", help="a scene JSON to render instead of a random one")
    p.add_argument("--resolution", default="2304x1296", help="WxH")
    p.add_argument("--out", required=True, help="folder for NNNN.jpg + NNNN.json")

    p = sub.add_parser("markers", help="write a printable marker sheet at true scale")
    p.add_argument("--profile", help="profile (or game name) whose markers to print")
    p.add_argument("--game")
    p.add_argument("--charuco", action="store_true", help="print the ChArUco lens board instead")
    p.add_argument("--dpi", type=int, default=300)
    p.add_argument("--paper", default="A4", help="A4, A3 or Letter")
    p.add_argument("--out", required=True, help="PDF or PNG file (PNG carries its DPI)")

    p = sub.add_parser("calibrate", help="lens, table and colour calibration")
    p.add_argument("what", choices=["lens", "table", "check"])
    p.add_argument("images", nargs="*", metavar="IMAGE")
    p.add_argument("--profile", help="profile TOML to read and update")
    p.add_argument("--game")
    p.add_argument("--camera", help="camera spec (default: $TABLEREF_CAMERA or picamera)")
    p.add_argument("--display", help="display spec")
    p.add_argument("--views", type=int, default=15)
    p.add_argument("--corners")
    p.add_argument("--area")
    p.add_argument("--out", help="where to write the check picture or the profile")
    p.add_argument("--palette", help="taught palette TOML: check prints its colour margins")
    p.add_argument("--model", choices=["auto", "standard", "rational"], default="auto",
                   help="lens distortion model (rational for very wide lenses)")

    for name, helptext in (("run", "run the referee loop"),
                           ("demo", "the referee loop on the synthetic table, display in the terminal")):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("--game", help="start straight into this game")
        p.add_argument("--camera", help="camera spec, e.g. picamera, usb:0, frames:DIR, synthetic:town77")
        p.add_argument("--display", help="display spec, e.g. ssd1306, sh1106, png:DIR, terminal")
        p.add_argument("--buttons", help="buttons spec, e.g. gpio, keyboard, script:FILE")
        p.add_argument("--config", help="device config TOML (default /etc/tableref/config.toml)")
        p.add_argument("--state-dir", help="journal folder (default $STATE_DIRECTORY or ~/.local/state/tableref)")
        p.add_argument("--profile")
        p.add_argument("--seed", type=int, default=1)
        p.add_argument("--max-frames", type=int, help="stop after this many analysed frames")
        p.add_argument("--players", type=int, help="number of players (skips that setup question)")

    p = sub.add_parser("bench", help="measure accuracy, speed and memory on synthetic scenes")
    p.add_argument("--game", help="one suite (geometry, town77, railways, calibration, loop); default all")
    p.add_argument("--scenes", type=int, help="scenes per suite (default: each suite's own)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--resolution", help="WxH (default: each suite's own)")
    p.add_argument("--out", help="also write the Markdown to this file")

    p = sub.add_parser("camera-present", help="exit 0 when a real camera is attached")

    p = sub.add_parser("display-clear", help="blank the display (the service's stop hook)")
    p.add_argument("--config", help="device config TOML")
    p.add_argument("--display", help="display spec")
    p.add_argument("--after-service", action="store_true",
                   help="run as systemd's ExecStopPost: say 'Stopped' on the panel after a failure")
    return parser


def _run(command: str) -> Callable[[argparse.Namespace], int]:
    module = importlib.import_module(f"firmware.commands.{command.replace('-', '_')}")
    return module.main  # type: ignore[no-any-return]


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help()
        return EXIT_USAGE
    try:
        return _run(args.command)(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except _user_error_types() as e:
        msg = str(e) or e.__class__.__name__
        if isinstance(e, FileNotFoundError) and e.filename:
            msg = f"{e.filename}: no such file; check the path"
        print(f"tableref: {msg.splitlines()[0]}", file=sys.stderr)
        return EXIT_USAGE
    except Exception as e:  # a bug, not bad input: still one line unless debugging
        if os.environ.get("TABLEREF_DEBUG"):
            raise
        print(f"tableref: internal error: {e.__class__.__name__}: {e} "
              "(run again with TABLEREF_DEBUG=1 for details and report it)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
