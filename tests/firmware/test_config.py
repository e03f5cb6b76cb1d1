"""Device config: defaults, the example file, every error's exact one-line text, spec order."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware.config import (ConfigError, DeviceConfig, ButtonsConfig, _field_names, _SCHEMA,
                             _SECTIONS, load_config, resolve_spec)

EXAMPLE = Path(__file__).resolve().parents[2] / "firmware" / "config.example.toml"


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "config.toml"
    p.write_text(text, encoding="utf-8")
    return p


def _error(tmp_path: Path, text: str) -> str:
    path = _write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "\n" not in message
    return message.replace(str(path), "config.toml")


def test_example_config_equals_defaults() -> None:
    """The shipped example documents exactly the built-in defaults."""
    assert load_config(EXAMPLE) == DeviceConfig(source=str(EXAMPLE))


def test_schema_covers_every_field() -> None:
    """Every dataclass field can be set from the file, and nothing else can."""
    for table, cls in _SECTIONS.items():
        assert sorted(_SCHEMA[table]) == sorted(_field_names(cls))


def test_values_are_read(tmp_path: Path) -> None:
    """Set values override defaults; hex addresses, sizes as text and "none" pins convert."""
    cfg = load_config(_write(tmp_path, """
[camera]
spec = "usb:1"
resolution = "1280x720"
[display]
spec = "sh1106"
i2c_address = 0x3D
rotation = 180
[buttons]
prev = 17
select = 27
next = 22
long_press = 1.2
[alerts]
buzzer = 18
led = "none"
[device]
game = "railways"
"""))
    assert cfg.camera.spec == "usb:1" and cfg.camera.resolution == (1280, 720)
    assert (cfg.display.spec, cfg.display.i2c_address, cfg.display.rotation) == ("sh1106", 0x3D, 180)
    assert cfg.buttons == ButtonsConfig(prev=17, select=27, next=22, long_press=1.2)
    assert (cfg.alerts.buzzer, cfg.alerts.led) == (18, None)
    assert cfg.game == "railways"
    assert cfg.motion.still_seconds == 1.5


def test_missing_default_file_gives_defaults(tmp_path: Path) -> None:
    """No config at the default path is normal (a laptop); a named missing file is an error."""
    assert load_config(tmp_path / "absent.toml", missing_ok=True) == DeviceConfig()
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path / "absent.toml")
    assert str(info.value) == (f"{tmp_path / 'absent.toml'}: no such config file; check the "
                               "path or copy firmware/config.example.toml there")


@pytest.mark.parametrize("text, message", [
    ("[buttons]\nprev = 5\nselect = 'x'\n",
     "config.toml: line 3: buttons.select = 'x': expected a GPIO number 0-27 (BCM numbering)"),
    ("\n[buttons]\n\nnext = 40\n",
     "config.toml: line 4: buttons.next = 40: expected a GPIO number 0-27 (BCM numbering)"),
    ("[camera]\nspec = usb:0\n",
     "config.toml: line 2, column 8: invalid value; fix the TOML syntax "
     "(strings need quotes, e.g. spec = \"usb:0\")"),
    ('[device]\ngame = "chess',
     "config.toml: end of file: unterminated string; fix the TOML syntax "
     "(strings need quotes, e.g. spec = \"usb:0\")"),
    ("[camra]\nspec = 'usb:0'\n",
     "config.toml: line 1: unknown section [camra]; expected one of [camera], [display], "
     "[buttons], [alerts], [motion], [device]"),
    ("[display]\nadress = 0x3C\n",
     "config.toml: line 2: unknown key display.adress; expected one of spec, i2c_address, "
     "i2c_port, rotation"),
    ("[display]\nrotation = 90\n",
     "config.toml: line 2: display.rotation = 90: expected 0 or 180"),
    ("[display]\ni2c_address = 'sixty'\n",
     "config.toml: line 2: display.i2c_address = 'sixty': expected an I2C address such as "
     "0x3C or 0x3D"),
    ("[display]\nspec = 'hdmi'\n",
     "config.toml: line 2: display.spec = 'hdmi': expected a display spec: auto, ssd1306, "
     "sh1106, png, terminal, null"),
    ("[camera]\nresolution = '2304 by 1296'\n",
     "config.toml: line 2: camera.resolution = '2304 by 1296': expected a size such as "
     "\"2304x1296\" or [2304, 1296]"),
    ("[motion]\nstill_seconds = 0\n",
     "config.toml: line 2: motion.still_seconds = 0: expected a number from 0.2 to 60 s"),
    ("[camera]\nlock_exposure = 'yes'\n",
     "config.toml: line 2: camera.lock_exposure = 'yes': expected true or false"),
    ("[device]\ngame = 'chess'\n",
     "config.toml: line 2: device.game = 'chess': expected one of town77, tiles, railways, "
     "papertown, papertales or \"\" (choose on the screen)"),
    ("[buttons]\nprev = 5\n[alerts]\nled = 5\n",
     "config.toml: line 4: alerts.led = 5: GPIO 5 is already buttons.prev; give each its own pin"),
    ("camera = 'usb:0'\n",
     "config.toml: line 1: camera must be a section [camera], not a value"),
    ("buttons.select = true\n",
     "config.toml: line 1: buttons.select = True: expected a GPIO number 0-27 (BCM numbering)"),
])
def test_error_messages(tmp_path: Path, text: str, message: str) -> None:
    """Each mistake gives one line naming the file, the line, the value and the fix."""
    assert _error(tmp_path, text) == message


def test_not_utf8(tmp_path: Path) -> None:
    """A file saved in another encoding names the line of the first bad byte."""
    p = tmp_path / "config.toml"
    p.write_bytes(b"[device]\nstate_dir = '/home/j\xe9r\xf4me'\n")
    with pytest.raises(ConfigError) as info:
        load_config(p)
    assert str(info.value) == f"{p}: line 2: not UTF-8 text; save the file as UTF-8"


def test_folder_instead_of_file(tmp_path: Path) -> None:
    """Naming a folder says so."""
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path)
    assert str(info.value) == f"{tmp_path}: is a folder, not a config file; name the .toml file"


def test_spec_order_explicit_env_config_auto() -> None:
    """explicit > $TABLEREF_<KIND> > config file > auto, like gpiozero's pin factory choice."""
    cfg = DeviceConfig(camera=DeviceConfig().camera.__class__(spec="usb:0"))
    env = {"TABLEREF_CAMERA": "frames:/rec"}
    assert resolve_spec("camera", "file:x.jpg", cfg, env) == "file:x.jpg"
    assert resolve_spec("camera", None, cfg, env) == "frames:/rec"
    assert resolve_spec("camera", None, cfg, {}) == "usb:0"
    assert resolve_spec("camera", None, DeviceConfig(), {}) == "auto"
    assert resolve_spec("camera", None, None, {}) == "auto"
    assert resolve_spec("display", None, None, {"TABLEREF_DISPLAY": "null"}) == "null"
    assert resolve_spec("buttons", None, None, {"TABLEREF_BUTTONS": " "}) == "auto"


def test_cli_treats_config_error_as_user_error() -> None:
    """cli.py turns ConfigError into 'tableref: <message>' and exit 2, not an internal error."""
    from firmware import cli

    assert ConfigError in cli._user_error_types()


KEYS = [f"{t}.{k}" for t, checks in _SCHEMA.items() for k in checks]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(KEYS + ["camera.x", "nope.y"]),
                          st.one_of(st.integers(-5, 300), st.floats(allow_nan=True),
                                    st.text(max_size=12), st.booleans(),
                                    st.lists(st.integers(0, 5000), max_size=3))),
                max_size=6))
def test_generated_configs_load_or_fail_in_one_line(pairs: list[tuple[str, object]]) -> None:
    """Any mix of known and unknown keys with any values loads or gives a one-line ConfigError."""
    import json
    tables: dict[str, dict[str, str]] = {}
    for key, value in pairs:
        table, name = key.split(".")
        if isinstance(value, float) and value != value:
            text = "nan"
        elif isinstance(value, bool):
            text = "true" if value else "false"
        else:
            text = json.dumps(value)
        tables.setdefault(table, {})[name] = text
    body = "\n".join(f"[{t}]\n" + "\n".join(f"{k} = {v}" for k, v in kv.items())
                     for t, kv in tables.items())
    try:
        cfg = _parse_text(body)
    except ConfigError as e:
        assert "\n" not in str(e) and str(e).startswith("config.toml")
    else:
        assert isinstance(cfg, DeviceConfig)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_garbage_bytes_never_crash(data: bytes) -> None:
    """Random bytes as a config file: defaults or a one-line ConfigError, never another error."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "config.toml"
        p.write_bytes(data)
        try:
            load_config(p)
        except ConfigError as e:
            assert "\n" not in str(e)


def _parse_text(text: str) -> DeviceConfig:
    from firmware.config import _parse
    return _parse("config.toml", text)
