"""`tableref run`: the referee loop on real or recorded hardware (systemd runs this).

    tableref run --camera frames:DIR --buttons script:FILE --display png:DIR --state-dir TMP

plays a recorded or synthetic game through the very same loop the Pi runs. A recorded
camera (file:, frames:, video:) runs on a virtual clock, so a replay takes only as long
as the analysis, and the button script is consumed only where an answer is needed.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from firmware.cli import UserError
from firmware.config import DeviceConfig, load_config, resolve_spec
from firmware.journal import Journal, JournalError, load
from firmware.loop import Clock, LoopConfig, RealClock, Referee, VirtualClock, summary_from_journal
from firmware.motion import MotionConfig

RECORDED = ("file", "frames", "video")


def state_dir(args: argparse.Namespace, cfg: DeviceConfig) -> Path:
    """--state-dir > config [device] state_dir > $STATE_DIRECTORY (systemd) > ~/.local/state."""
    chosen = args.state_dir or cfg.state_dir or os.environ.get("STATE_DIRECTORY", "").split(":")[0]
    return Path(os.path.expanduser(chosen or "~/.local/state/tableref"))


def motion_config(cfg: DeviceConfig) -> MotionConfig:
    m = cfg.motion
    return MotionConfig(pixel_threshold=m.pixel_delta, min_fraction=m.threshold,
                        still_seconds=m.still_seconds)


def _user(e: Exception) -> UserError:
    return UserError(str(e).splitlines()[0] if str(e) else e.__class__.__name__)


def build(args: argparse.Namespace, *, demo_scenes: Any = None, clock: Clock | None = None,
          replay: bool | None = None, loop_config: LoopConfig | None = None) -> Referee:
    """The Referee for these arguments: config, camera, display, buttons, alerts, journal."""
    from firmware.alerts import AlertsError, open_alerts
    from firmware.buttons.base import ButtonsError
    from firmware.buttons.factory import open_buttons
    from firmware.camera import open_camera
    from firmware.display import DisplayError, open_display

    cfg = load_config(args.config) if args.config else load_config()
    spec = resolve_spec("camera", args.camera, cfg)
    kind = spec.partition(":")[0].strip().lower()
    recorded = kind in RECORDED if replay is None else replay
    clk: Clock = clock or (VirtualClock() if recorded else RealClock())
    try:
        if demo_scenes is not None:
            from firmware.camera.synthetic import SyntheticCamera
            camera: Any = SyntheticCamera("town77", args.seed, scenes=demo_scenes,
                                          preview_size=cfg.camera.preview)
        else:
            camera = open_camera(args.camera, cfg, clock=clk.now)
        display = open_display(args.display, cfg)
        buttons = open_buttons(args.buttons, cfg)
        alerts = open_alerts(cfg)
        journal = Journal(state_dir(args, cfg))
    except (ButtonsError, DisplayError, AlertsError, JournalError) as e:
        raise _user(e) from None
    profile = None
    if args.profile:
        from calibration.profile import load_profile
        profile = load_profile(args.profile)
    elif cfg.profile:
        from calibration.profile import load_profile
        profile = load_profile(cfg.profile)
    lc = loop_config or LoopConfig()
    lc.motion = motion_config(cfg) if loop_config is None else lc.motion
    lc.replay = recorded
    lc.max_frames = args.max_frames
    preset: dict[str, Any] = {}
    if getattr(args, "players", None) is not None:
        preset["players"] = args.players
    reopen = None
    if not recorded and demo_scenes is None:
        def reopen() -> Any:
            return open_camera(args.camera, cfg, clock=clk.now)
    return Referee(camera, display, buttons, journal, clock=clk, config=lc,
                   game=args.game or cfg.game or None, profile=profile, alerts=alerts,
                   reopen_camera=reopen, preset=preset, source=spec)


def report(ref: Referee) -> None:
    """One line on stdout: where the game stands (tests and scripts read it)."""
    summary = summary_from_journal(load(ref.journal.path).records)
    if summary is None:
        print("tableref: no game played", file=sys.stderr)
        return
    print(f"game {summary['game']}: {summary['moves']} moves, "
          f"{'finished' if summary.get('finished') else 'unfinished'}; {summary['notation']}")
    if summary.get("ranking"):
        print("ranking: " + ", ".join(f"{rank}. P{player + 1} ({left} left)"
                                      for player, rank, left in summary["ranking"]))


def main(args: argparse.Namespace) -> int:
    ref = build(args)
    ref.install_signal_handlers()
    rc = ref.run()
    for line in ref.events:
        if line.startswith(("journal", "skipped", "camera lost", "this recording")):
            print(f"tableref: {line}", file=sys.stderr)
    report(ref)
    return rc
