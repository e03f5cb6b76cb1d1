"""Display seams: PNG files, terminal half blocks, null, tee, the luma OLED driver on a
recording bus (only the I2C wire is faked), and spec choice and errors."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops

from firmware.config import DeviceConfig, DisplayConfig
from firmware.display import DisplayError, open_display
from firmware.display.oled import OledDisplay
from firmware.display.virtual import (NullDisplay, PngDisplay, TeeDisplay, TerminalDisplay,
                                      half_blocks)
from firmware.screens.base import camera_lost_screen, text_screen


def _same(a: Image.Image, b: Image.Image) -> bool:
    return ImageChops.difference(a.convert("L"), b.convert("L")).getbbox() is None


def _dots() -> Image.Image:
    """Pixels (0,0) top only, (1,1) bottom only, column 2 both, (127,63) bottom-right."""
    image = Image.new("1", (128, 64), 0)
    for xy in ((0, 0), (1, 1), (2, 0), (2, 1), (127, 63)):
        image.putpixel(xy, 255)
    return image


def test_png_display_writes_numbered_frames_equal_to_shown(tmp_path: Path) -> None:
    """png:DIR writes 000000.png, 000001.png... each equal to the image shown, and resumes numbering."""
    a, b = text_screen("A", ["1"]), camera_lost_screen(4)
    display = open_display(f"png:{tmp_path / 'shots'}", environ={})
    assert isinstance(display, PngDisplay)
    display.show(a)
    display.show(a)          # unchanged: no new file
    display.show(b)
    files = sorted(p.name for p in (tmp_path / "shots").iterdir())
    assert files == ["000000.png", "000001.png"]
    for name, shown in zip(files, (a, b)):
        with Image.open(tmp_path / "shots" / name) as f:
            assert f.size == (128, 64) and _same(f, shown)
    assert display.last is not None and _same(display.last, b)
    again = PngDisplay(tmp_path / "shots")
    again.show(a)
    assert again.written == [tmp_path / "shots" / "000002.png"]


def test_half_blocks_map_pixel_pairs() -> None:
    """Each text cell is two pixel rows: top, bottom, both, none."""
    rows = half_blocks(_dots())
    assert len(rows) == 32 and all(len(r) == 128 for r in rows)
    assert rows[0][:4] == "\u2580\u2584\u2588 "
    assert rows[31][-1] == "\u2584"
    assert set("".join(rows[1:31])) == {" "}


def test_terminal_appends_frames_when_not_a_tty() -> None:
    """Off a tty each changed frame is 32 lines then a blank line, appended; repeats are skipped."""
    out = io.StringIO()
    display = open_display("terminal", stream=out, environ={})
    assert isinstance(display, TerminalDisplay) and not display.in_place
    blank = Image.new("1", (128, 64), 0)
    display.show(_dots())
    display.show(_dots())
    display.show(blank)
    expected = "\n".join(half_blocks(_dots()) + [""]) + "\n"
    assert out.getvalue() == expected + "\n".join(half_blocks(blank) + [""]) + "\n"


def test_terminal_redraws_in_place_on_a_tty() -> None:
    """On a tty the frame is boxed and the second frame first moves the cursor up 34 lines."""
    out = io.StringIO()
    display = TerminalDisplay(out, in_place=True)
    display.show(_dots())
    first = out.getvalue()
    lines = first.split("\r\n")
    assert len(lines) == 35 and lines[-1] == ""
    assert lines[0] == "\u250c" + "\u2500" * 128 + "\u2510"
    assert lines[1] == "\u2502" + half_blocks(_dots())[0] + "\u2502"
    display.show(text_screen("A", ["1"]))
    assert out.getvalue()[len(first):].startswith("\x1b[34A\r\u250c")
    display.close()   # a blank frame is drawn over the last one
    assert out.getvalue().rstrip("\r\n").endswith("\u2502" + " " * 128 + "\u2502\r\n\u2514"
                                                  + "\u2500" * 128 + "\u2518")


def test_null_keeps_last_and_clear_forgets() -> None:
    """null keeps a copy of the last frame only."""
    display = open_display("null", environ={})
    assert isinstance(display, NullDisplay) and display.last is None
    image = _dots()
    display.show(image)
    image.putpixel((5, 5), 255)
    assert display.last is not None and not display.last.getpixel((5, 5))
    display.clear()
    assert display.last is None


def test_tee_shows_on_all(tmp_path: Path) -> None:
    """"terminal+png:DIR" shows every frame on both."""
    out = io.StringIO()
    display = open_display(f"terminal+png:{tmp_path}", stream=out, environ={})
    assert isinstance(display, TeeDisplay)
    display.show(_dots())
    assert (tmp_path / "000000.png").exists() and out.getvalue().count("\n") == 33


def test_wrong_image_size_is_rejected() -> None:
    """A screen that is not 128x64 is a bug and is reported with both sizes."""
    with pytest.raises(ValueError, match="screen image is 64x32; displays take 128x64"):
        NullDisplay().show(Image.new("1", (64, 32)))


class RecordingBus:
    """Stands in for the I2C wire: records what luma sends."""

    def __init__(self) -> None:
        self.commands: list[int] = []
        self.bytes: list[int] = []
        self.cleaned = False

    def command(self, *cmd: int) -> None:
        self.commands.extend(cmd)

    def data(self, data: Any) -> None:
        self.bytes.extend(data)

    def cleanup(self) -> None:
        self.cleaned = True


@pytest.mark.parametrize("chip", ["ssd1306", "sh1106"])
def test_oled_sends_the_frame_and_blanks_on_close(chip: str) -> None:
    """show() sends 1024 bytes (8 pages x 128) of the image; close() blanks and turns it off."""
    bus = RecordingBus()
    display = OledDisplay(chip, serial=bus)
    bus.bytes.clear()
    display.show(Image.new("1", (128, 64), 255))
    assert len(bus.bytes) == 1024 and set(bus.bytes) == {0xFF}
    assert display.last is not None and display.last.getbbox() == (0, 0, 128, 64)
    bus.bytes.clear()
    display.close()
    assert 0xAE in bus.commands and bus.cleaned          # 0xAE = DISPLAYOFF
    assert len(bus.bytes) >= 1024 and set(bus.bytes) == {0}


def test_oled_rotation_180_flips_the_frame() -> None:
    """rotation = 180 sends exactly what an upright panel gets for the image turned round."""
    upright, flipped = RecordingBus(), RecordingBus()
    OledDisplay("ssd1306", serial=upright).show(_dots().rotate(180))
    OledDisplay("ssd1306", rotation=180, serial=flipped).show(_dots())
    assert flipped.bytes[-1024:] == upright.bytes[-1024:]
    plain = RecordingBus()
    OledDisplay("ssd1306", serial=plain).show(_dots())
    assert plain.bytes[-1024:] != flipped.bytes[-1024:]


def test_oled_without_i2c_is_one_line_error() -> None:
    """An OLED on a machine without the I2C bus says how to enable it."""
    if Path("/dev/i2c-7").exists():
        pytest.skip("this machine has /dev/i2c-7")
    cfg = DeviceConfig(display=DisplayConfig(i2c_port=7))
    with pytest.raises(DisplayError) as info:
        open_display("ssd1306", cfg, environ={})
    assert str(info.value) == ("ssd1306 at I2C 7/0x3C: no I2C bus or no display answering; "
                               "enable I2C (sudo raspi-config nonint do_i2c 0) and check the "
                               "wiring with i2cdetect -y 1")


@pytest.mark.parametrize("spec, message", [
    ("hdmi", "display spec 'hdmi': unknown display; use ssd1306[:ADDR], sh1106[:ADDR], "
             "png:DIR, terminal or null (join with +)"),
    ("png:", "display spec 'png:': missing the folder; e.g. png:out/screens"),
    ("ssd1306:0x99", "display spec 'ssd1306:0x99': '0x99' is not an I2C address; "
                     "e.g. ssd1306:0x3C"),
])
def test_bad_specs(spec: str, message: str) -> None:
    """A malformed display spec is one line saying what to write."""
    with pytest.raises(DisplayError) as info:
        open_display(spec, environ={})
    assert str(info.value) == message


def test_spec_order_and_auto(tmp_path: Path) -> None:
    """explicit > $TABLEREF_DISPLAY > config; auto off a tty without I2C is null."""
    cfg = DeviceConfig(display=DisplayConfig(spec="null", i2c_port=7))
    assert isinstance(open_display(None, cfg, environ={}), NullDisplay)
    env = {"TABLEREF_DISPLAY": f"png:{tmp_path}"}
    assert isinstance(open_display(None, cfg, environ=env), PngDisplay)
    assert isinstance(open_display("terminal", cfg, stream=io.StringIO(), environ=env),
                      TerminalDisplay)
    auto = DeviceConfig(display=DisplayConfig(i2c_port=7))
    if not Path("/dev/i2c-7").exists():
        assert isinstance(open_display(None, auto, stream=io.StringIO(), environ={}),
                          NullDisplay)


def test_oled_park_survives_exit_cleanup() -> None:
    """park() leaves the image on the panel: luma's exit cleanup then sends nothing more."""
    bus = RecordingBus()
    display = OledDisplay("ssd1306", serial=bus)
    display.park(_dots())
    sent = list(bus.bytes)
    commands = list(bus.commands)
    display.device.cleanup()          # what luma's atexit hook does
    assert bus.bytes == sent and 0xAE not in bus.commands[len(commands):]


def _args(**kw: Any) -> Any:
    import argparse
    return argparse.Namespace(**kw)


def test_display_clear_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After a clean stop it leaves the screen; after a failure it parks 'Stopped'; plain clears."""
    from firmware.commands import display_clear
    from firmware.screens.base import splash_screen
    spec = f"png:{tmp_path}"
    config = tmp_path / "none.toml"
    monkeypatch.setenv("SERVICE_RESULT", "success")
    assert display_clear.main(_args(config=None, display=spec, after_service=True)) == 0
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setenv("SERVICE_RESULT", "exit-code")
    config.write_text("")
    assert display_clear.main(_args(config=str(config), display=spec, after_service=True)) == 0
    with Image.open(tmp_path / "000000.png") as f:
        assert _same(f, splash_screen("Stopped", "journalctl -u tableref"))
    monkeypatch.delenv("SERVICE_RESULT")
    assert display_clear.main(_args(config=str(config), display=spec)) == 0
    with Image.open(tmp_path / "000001.png") as f:
        assert f.getbbox() is None
