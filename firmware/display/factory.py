"""open_display(spec): pick and build a display backend from a spec string.

Order of choice: the `spec` argument (--display) > $TABLEREF_DISPLAY > the config's
display.spec > "auto". "auto" = an SSD1306 at the configured address when the I2C bus
exists and the panel answers; else the terminal when stdout is a terminal; else null.
Several displays at once: join specs with "+", e.g. "terminal+png:out/demo".
"""

from __future__ import annotations

import os
import sys
from typing import Mapping, TextIO

from firmware.config import DeviceConfig, resolve_spec
from firmware.display.base import Display, DisplayError
from firmware.display.oled import OledDisplay
from firmware.display.virtual import NullDisplay, PngDisplay, TeeDisplay, TerminalDisplay

SPEC_HELP = "ssd1306[:ADDR], sh1106[:ADDR], png:DIR, terminal or null (join with +)"


def _address(text: str, spec: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        value = -1
    if not 0x03 <= value <= 0x77:
        raise DisplayError(f"display spec {spec!r}: {text!r} is not an I2C address; "
                           "e.g. ssd1306:0x3C")
    return value


def _one(spec: str, cfg: DeviceConfig, stream: TextIO | None,
         environ: Mapping[str, str]) -> Display:
    kind, _, rest = spec.strip().partition(":")
    kind = kind.lower()
    d = cfg.display
    if kind in ("ssd1306", "sh1106"):
        address = _address(rest, spec) if rest else d.i2c_address
        return OledDisplay(kind, address, d.i2c_port, d.rotation)
    if kind == "png":
        if not rest:
            raise DisplayError(f"display spec {spec!r}: missing the folder; e.g. png:out/screens")
        return PngDisplay(os.path.expanduser(rest))
    if kind == "terminal":
        return TerminalDisplay(stream)
    if kind == "null":
        return NullDisplay()
    if kind == "auto":
        return _auto(cfg, stream)
    raise DisplayError(f"display spec {spec!r}: unknown display; use {SPEC_HELP}")


def _auto(cfg: DeviceConfig, stream: TextIO | None) -> Display:
    if os.path.exists(f"/dev/i2c-{cfg.display.i2c_port}"):
        try:
            return OledDisplay("ssd1306", cfg.display.i2c_address, cfg.display.i2c_port,
                               cfg.display.rotation)
        except DisplayError:
            pass
    out = stream if stream is not None else sys.stdout
    if getattr(out, "isatty", lambda: False)():
        return TerminalDisplay(out)
    return NullDisplay()


def open_display(spec: str | None = None, config: DeviceConfig | None = None, *,
                 stream: TextIO | None = None,
                 environ: Mapping[str, str] | None = None) -> Display:
    """The display for `spec` (see the module docstring). Raises DisplayError, one line."""
    cfg = config or DeviceConfig()
    env = os.environ if environ is None else environ
    chosen = resolve_spec("display", spec, cfg, env)
    parts = [p for p in chosen.split("+") if p.strip()]
    if not parts:
        raise DisplayError(f"display spec {chosen!r}: empty; use {SPEC_HELP}")
    displays = [_one(p, cfg, stream, env) for p in parts]
    return displays[0] if len(displays) == 1 else TeeDisplay(displays)
