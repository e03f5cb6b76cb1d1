"""The device config (/etc/tableref/config.toml): which camera, display, buttons, pins and
thresholds this particular box uses. Everything has a default, so an absent file is fine.

Every problem is a ConfigError whose one-line message names the file, the line and the
fix, because the person reading it is at a table with a Pi, not at a debugger:
    config.toml: line 4: buttons.select = 'x': expected a GPIO number 0-27

Backend choice follows gpiozero's pin-factory order (see `resolve_spec`):
explicit --camera/--display/--buttons > $TABLEREF_CAMERA/... > this file > "auto"
(real hardware when present, else the hardware-free backend).
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Callable, Mapping

__all__ = ["ConfigError", "DeviceConfig", "CameraConfig", "DisplayConfig", "ButtonsConfig",
           "AlertsConfig", "MotionConfig", "DEFAULT_PATH", "load_config", "default_config",
           "resolve_spec", "ENV_VARS"]

DEFAULT_PATH = Path("/etc/tableref/config.toml")
ENV_VARS = {"camera": "TABLEREF_CAMERA", "display": "TABLEREF_DISPLAY",
            "buttons": "TABLEREF_BUTTONS"}
GAMES = ("town77", "tiles", "railways", "papertown", "papertales")


class ConfigError(ValueError):
    """A config file the user must fix; the message is one line: file, line, what, fix."""


@dataclass(frozen=True)
class CameraConfig:
    spec: str = "auto"                          # picamera, usb:0, frames:DIR, synthetic:town77 ...
    resolution: tuple[int, int] = (2304, 1296)  # still size (Camera Module 3 2x2-binned mode)
    preview: tuple[int, int] = (320, 180)       # low-res stream for the motion check
    lock_exposure: bool = True                  # freeze AE/AWB once settled: steadier colours
    settle_seconds: float = 2.0                 # let AE/AWB converge before locking
    rotation: int = 0                           # 0 or 180: camera mounted upside down


@dataclass(frozen=True)
class DisplayConfig:
    spec: str = "auto"                          # ssd1306, sh1106, png:DIR, terminal, null
    i2c_address: int = 0x3C
    i2c_port: int = 1
    rotation: int = 0                           # 0 or 180 degrees


@dataclass(frozen=True)
class ButtonsConfig:
    spec: str = "auto"                          # gpio, keyboard, script:FILE, none
    prev: int = 5                               # BCM numbers, see docs/hardware.md
    select: int = 6
    next: int = 13
    long_press: float = 0.8                     # seconds held -> MENU / UNDO / BACK
    bounce: float = 0.05


@dataclass(frozen=True)
class AlertsConfig:
    buzzer: int | None = None                   # BCM pin of an active buzzer, or none
    led: int | None = None                      # BCM pin of an LED (with resistor), or none


@dataclass(frozen=True)
class MotionConfig:
    still_seconds: float = 1.5                  # table still this long -> analyse a still
    threshold: float = 0.01                     # fraction of preview pixels changed = motion
    pixel_delta: int = 18                       # grey-level change that counts as changed


@dataclass(frozen=True)
class DeviceConfig:
    camera: CameraConfig = field(default_factory=CameraConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    buttons: ButtonsConfig = field(default_factory=ButtonsConfig)
    alerts: AlertsConfig = field(default_factory=AlertsConfig)
    motion: MotionConfig = field(default_factory=MotionConfig)
    state_dir: str = ""          # "" -> $STATE_DIRECTORY or ~/.local/state/tableref
    game: str = ""               # "" -> ask on the screen
    profile: str = ""            # "" -> the game's shipped table profile
    source: str = ""             # the file this came from ("" = built-in defaults)


def default_config() -> DeviceConfig:
    return DeviceConfig()


# --- validation ---------------------------------------------------------------------

Check = Callable[[Any], Any]   # returns the converted value or raises _Bad(expected)


class _Bad(Exception):
    def __init__(self, expected: str) -> None:
        super().__init__(expected)
        self.expected = expected


def _gpio(v: Any) -> int:
    if isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 27:
        return v
    raise _Bad("expected a GPIO number 0-27 (BCM numbering)")


def _gpio_or_none(v: Any) -> int | None:
    if isinstance(v, str) and v.strip().lower() in ("", "none", "off"):
        return None
    try:
        return _gpio(v)
    except _Bad:
        raise _Bad("expected a GPIO number 0-27 (BCM numbering) or \"none\"") from None


def _number(lo: float, hi: float, unit: str = "") -> Check:
    def check(v: Any) -> float:
        if isinstance(v, (int, float)) and not isinstance(v, bool) and lo <= v <= hi:
            return float(v)
        raise _Bad(f"expected a number from {lo:g} to {hi:g}{unit}")
    return check


def _integer(lo: int, hi: int) -> Check:
    def check(v: Any) -> int:
        if isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi:
            return v
        raise _Bad(f"expected a whole number from {lo} to {hi}")
    return check


def _i2c_address(v: Any) -> int:
    if isinstance(v, str):
        try:
            v = int(v, 0)
        except ValueError:
            raise _Bad("expected an I2C address such as 0x3C or 0x3D") from None
    if isinstance(v, int) and not isinstance(v, bool) and 0x03 <= v <= 0x77:
        return v
    raise _Bad("expected an I2C address such as 0x3C or 0x3D")


def _rotation(v: Any) -> int:
    if v in (0, 180) and not isinstance(v, bool):
        return int(v)
    raise _Bad("expected 0 or 180")


def _boolean(v: Any) -> bool:
    if isinstance(v, bool):
        return v
    raise _Bad("expected true or false")


def _size(v: Any) -> tuple[int, int]:
    if isinstance(v, str):
        m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*", v)
        if m:
            v = [int(m.group(1)), int(m.group(2))]
    if (isinstance(v, list) and len(v) == 2
            and all(isinstance(n, int) and not isinstance(n, bool) and 16 <= n <= 10000
                    for n in v)):
        return (v[0], v[1])
    raise _Bad('expected a size such as "2304x1296" or [2304, 1296]')


def _spec(kind: str, prefixes: tuple[str, ...]) -> Check:
    def check(v: Any) -> str:
        if isinstance(v, str) and v.strip():
            parts = v.strip().split("+")   # "terminal+png:out" = several displays at once
            if v.strip() == "auto" or all(
                    re.split(r"[:?]", part.strip(), maxsplit=1)[0] in prefixes for part in parts):
                return v.strip()
        raise _Bad(f"expected a {kind} spec: auto, " + ", ".join(prefixes))
    return check


def _text(v: Any) -> str:
    if isinstance(v, str):
        return v
    raise _Bad("expected a quoted string")


def _game(v: Any) -> str:
    if isinstance(v, str) and (v == "" or v in GAMES):
        return v
    raise _Bad("expected one of " + ", ".join(GAMES) + ' or "" (choose on the screen)')


CAMERA_SPECS = ("picamera", "usb", "file", "frames", "video", "synthetic")
DISPLAY_SPECS = ("ssd1306", "sh1106", "png", "terminal", "null")
BUTTON_SPECS = ("gpio", "keyboard", "script", "none")

_SCHEMA: dict[str, dict[str, Check]] = {
    "camera": {"spec": _spec("camera", CAMERA_SPECS), "resolution": _size, "preview": _size,
               "lock_exposure": _boolean, "settle_seconds": _number(0, 30, " s"),
               "rotation": _rotation},
    "display": {"spec": _spec("display", DISPLAY_SPECS), "i2c_address": _i2c_address,
                "i2c_port": _integer(0, 30), "rotation": _rotation},
    "buttons": {"spec": _spec("buttons", BUTTON_SPECS), "prev": _gpio, "select": _gpio,
                "next": _gpio, "long_press": _number(0.2, 5, " s"),
                "bounce": _number(0, 0.5, " s")},
    "alerts": {"buzzer": _gpio_or_none, "led": _gpio_or_none},
    "motion": {"still_seconds": _number(0.2, 60, " s"), "threshold": _number(0.0001, 1),
               "pixel_delta": _integer(1, 255)},
    "device": {"state_dir": _text, "game": _game, "profile": _text},
}
_SECTIONS: dict[str, type] = {"camera": CameraConfig, "display": DisplayConfig,
                              "buttons": ButtonsConfig, "alerts": AlertsConfig,
                              "motion": MotionConfig}


def _find_line(text: str, table: str, key: str | None) -> int | None:
    """The 1-based line of `key` inside `[table]` (or of the header when key is None).

    tomllib reports no positions for valid TOML, so this scans the text; it understands
    plain `[table]` headers and `key = value` lines, which is what a config holds.
    """
    current = ""
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        header = re.fullmatch(r"\[\s*([A-Za-z0-9_.\-\"' ]+?)\s*\](\s*#.*)?", line)
        if header:
            current = header.group(1).strip().strip("\"'")
            if key is None and current == table:
                return number
            continue
        if key is not None and current == table:
            m = re.match(r"([A-Za-z0-9_\-\"']+)\s*=", line)
            if m and m.group(1).strip("\"'") == key:
                return number
        if key is not None and current == "" and table:
            m = re.match(rf"{re.escape(table)}\s*\.\s*{re.escape(key)}\s*=", line)
            if m:
                return number
    return None


def _where(name: str, text: str, table: str, key: str | None) -> str:
    line = _find_line(text, table, key)
    return f"{name}: line {line}" if line else name


def _parse(name: str, text: str) -> DeviceConfig:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
        what = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "",
                      str(e)) or "invalid TOML"
        where = (f"{name}: line {m.group(1)}, column {m.group(2)}" if m
                 else f"{name}: end of file" if "end of document" in str(e) else name)
        raise ConfigError(f"{where}: {what[0].lower() + what[1:]}; fix the TOML syntax "
                          "(strings need quotes, e.g. spec = \"usb:0\")") from None
    values: dict[str, dict[str, Any]] = {}
    for table, content in data.items():
        if table not in _SCHEMA:
            raise ConfigError(f"{_where(name, text, table, None)}: unknown section [{table}]; "
                              f"expected one of " + ", ".join(f"[{t}]" for t in _SCHEMA))
        if not isinstance(content, dict):
            raise ConfigError(f"{_where(name, text, '', table)}: {table} must be a section "
                              f"[{table}], not a value")
        for key, raw in content.items():
            checks = _SCHEMA[table]
            if key not in checks:
                raise ConfigError(f"{_where(name, text, table, key)}: unknown key {table}.{key}; "
                                  f"expected one of " + ", ".join(checks))
            try:
                values.setdefault(table, {})[key] = checks[key](raw)
            except _Bad as bad:
                raise ConfigError(f"{_where(name, text, table, key)}: {table}.{key} = {raw!r}: "
                                  f"{bad.expected}") from None
    sections: dict[str, Any] = {t: cls(**values.get(t, {})) for t, cls in _SECTIONS.items()}
    _check_pins_distinct(name, text, sections)
    device = values.get("device", {})
    return DeviceConfig(**sections, state_dir=device.get("state_dir", ""),
                        game=device.get("game", ""), profile=device.get("profile", ""),
                        source=name)


def _check_pins_distinct(name: str, text: str, sections: Mapping[str, Any]) -> None:
    """Two functions on one GPIO would make a button beep or an LED press itself."""
    used: dict[int, str] = {}
    for table, key in (("buttons", "prev"), ("buttons", "select"), ("buttons", "next"),
                       ("alerts", "buzzer"), ("alerts", "led")):
        pin = getattr(sections[table], key)
        if pin is None:
            continue
        if pin in used:
            raise ConfigError(f"{_where(name, text, table, key)}: {table}.{key} = {pin}: "
                              f"GPIO {pin} is already {used[pin]}; give each its own pin")
        used[pin] = f"{table}.{key}"


def load_config(path: str | os.PathLike[str] | None = None, *,
                missing_ok: bool | None = None) -> DeviceConfig:
    """Read a device config. No path -> /etc/tableref/config.toml if present, else defaults.

    An explicitly named file must exist (missing_ok defaults to False then); the default
    path may be absent (a laptop running the demo has none).
    """
    if path is None:
        path = DEFAULT_PATH
        if missing_ok is None:
            missing_ok = True
    p = Path(path)
    name = str(p)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        if missing_ok:
            return DeviceConfig()
        raise ConfigError(f"{name}: no such config file; check the path or copy "
                          "firmware/config.example.toml there") from None
    except IsADirectoryError:
        raise ConfigError(f"{name}: is a folder, not a config file; name the .toml file") from None
    except PermissionError:
        raise ConfigError(f"{name}: permission denied; make it readable by the tableref "
                          "user (chmod 644)") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        raise ConfigError(f"{name}: line {line}: not UTF-8 text; save the file as UTF-8") from None
    return _parse(name, text)


def resolve_spec(kind: str, explicit: str | None, config: DeviceConfig | None = None,
                 environ: Mapping[str, str] | None = None) -> str:
    """The backend spec to use for `kind` ("camera", "display" or "buttons").

    explicit (a command-line option) > $TABLEREF_<KIND> > the config file > "auto".
    "auto" is returned as is; each open_* function turns it into real hardware when
    present, else the hardware-free backend.
    """
    env = os.environ if environ is None else environ
    if explicit:
        return explicit
    from_env = env.get(ENV_VARS[kind], "").strip()
    if from_env:
        return from_env
    if config is not None:
        section = getattr(config, kind)
        if section.spec:
            return str(section.spec)
    return "auto"


def _field_names(cls: type) -> list[str]:  # used by tests to keep schema and dataclasses in step
    return [f.name for f in fields(cls)]
