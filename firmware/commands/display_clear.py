"""`tableref display-clear`: blank the OLED, or after a crash say so on it.

systemd runs it as ExecStopPost with --after-service: systemd then sets $SERVICE_RESULT.
After a clean stop ("success") the screen is left as the loop left it (its "parked"
message); after a failure the panel shows "Stopped" and where to look, so a stale verdict
never stays on the table. Without --after-service it simply clears the display.
Arguments (all optional): --config FILE, --display SPEC, --after-service.
"""

from __future__ import annotations

import argparse
import os

from firmware.config import load_config


def main(args: argparse.Namespace) -> int:
    from firmware.display import open_display
    from firmware.screens.base import splash_screen

    after_service = bool(getattr(args, "after_service", False))
    result = os.environ.get("SERVICE_RESULT", "")
    if after_service and result in ("", "success"):
        return 0
    config = load_config(getattr(args, "config", None))
    display = open_display(getattr(args, "display", None), config)
    if after_service:
        display.park(splash_screen("Stopped", "journalctl -u tableref"))
        return 0
    display.clear()
    display.close()
    return 0
