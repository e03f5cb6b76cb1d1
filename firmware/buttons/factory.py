"""open_buttons(spec): pick and build a button backend from a spec string.

Order of choice: the `spec` argument (--buttons) > $TABLEREF_BUTTONS > the config's
buttons.spec > "auto". "auto" = gpio on a Raspberry Pi, else the keyboard when stdin is
a terminal, else none.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Mapping

from firmware.buttons.base import ButtonEvent, Buttons, ButtonsError
from firmware.config import DeviceConfig, resolve_spec

SPEC_HELP = "gpio[:PREV,SELECT,NEXT], keyboard, script:FILE or none"


def is_raspberry_pi() -> bool:
    try:
        return "Raspberry Pi" in Path("/proc/device-tree/model").read_text(errors="ignore")
    except OSError:
        return False


def _gpio_pins(text: str, spec: str) -> dict[ButtonEvent, int]:
    try:
        numbers = [int(n) for n in text.split(",")]
    except ValueError:
        numbers = []
    if len(numbers) != 3 or not all(0 <= n <= 27 for n in numbers) or len(set(numbers)) != 3:
        raise ButtonsError(f"buttons spec {spec!r}: expected three different BCM pins "
                           "0-27, e.g. gpio:5,6,13")
    return dict(zip((ButtonEvent.PREV, ButtonEvent.SELECT, ButtonEvent.NEXT), numbers))


def open_buttons(spec: str | None = None, config: DeviceConfig | None = None, *,
                 environ: Mapping[str, str] | None = None) -> Buttons:
    """The buttons for `spec` (see the module docstring). Raises ButtonsError, one line."""
    cfg = config or DeviceConfig()
    chosen = resolve_spec("buttons", spec, cfg, environ).strip()
    kind, _, rest = chosen.partition(":")
    kind = kind.lower()
    if kind == "auto":
        if is_raspberry_pi():
            kind = "gpio"
        elif sys.stdin is not None and sys.stdin.isatty():
            kind = "keyboard"
        else:
            kind = "none"
    if kind == "gpio":
        from firmware.buttons.gpio import GpioButtons  # noqa: PLC0415
        b = cfg.buttons
        pins = _gpio_pins(rest, chosen) if rest else {
            ButtonEvent.PREV: b.prev, ButtonEvent.SELECT: b.select, ButtonEvent.NEXT: b.next}
        return GpioButtons(pins, b.long_press, b.bounce)
    if kind == "keyboard":
        from firmware.buttons.keyboard import KeyboardButtons  # noqa: PLC0415
        return KeyboardButtons()
    if kind == "script":
        from firmware.buttons.script import ScriptButtons  # noqa: PLC0415
        if not rest:
            raise ButtonsError(f"buttons spec {chosen!r}: missing the file; e.g. script:moves.txt")
        return ScriptButtons(os.path.expanduser(rest))
    if kind == "none":
        from firmware.buttons.script import NoButtons  # noqa: PLC0415
        return NoButtons()
    raise ButtonsError(f"buttons spec {chosen!r}: unknown buttons; use {SPEC_HELP}")
