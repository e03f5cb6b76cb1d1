"""Button seams: gpiozero buttons on MockFactory pins (short and long presses), replay
scripts and their errors, the keyboard through a pseudo-terminal, spec choice."""

from __future__ import annotations

import os
import termios
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from firmware.buttons import ButtonEvent, ButtonsError, open_buttons
from firmware.buttons.gpio import GpioButtons
from firmware.buttons.keyboard import KeyboardButtons
from firmware.buttons.script import NoButtons, ScriptButtons, parse_script
from firmware.config import ButtonsConfig, DeviceConfig

E = ButtonEvent


def _press(factory: MockFactory, pin: int, seconds: float) -> None:
    factory.pin(pin).drive_low()      # pull-up: pressed = low
    time.sleep(seconds)
    factory.pin(pin).drive_high()


def test_gpio_short_presses(mock_pins: MockFactory) -> None:
    """A short press on each pin gives its event on release, in order."""
    buttons = GpioButtons(long_press=0.3, bounce=None)
    try:
        assert buttons.poll() is None
        for pin in (5, 6, 13, 6):
            _press(mock_pins, pin, 0.02)
        assert [buttons.poll(0.5) for _ in range(4)] == [E.PREV, E.SELECT, E.NEXT, E.SELECT]
        assert buttons.poll(0.05) is None
    finally:
        buttons.close()


def test_gpio_long_presses_replace_short(mock_pins: MockFactory) -> None:
    """Holding past long_press gives UNDO/MENU/BACK while held, and no short event after."""
    buttons = GpioButtons(long_press=0.2, bounce=None)
    try:
        mock_pins.pin(6).drive_low()
        assert buttons.poll(1.0) == E.MENU        # delivered before release
        mock_pins.pin(6).drive_high()
        for pin, long in ((5, E.UNDO), (13, E.BACK)):
            _press(mock_pins, pin, 0.45)
            assert buttons.poll(0.5) == long
        assert buttons.poll(0.1) is None
        _press(mock_pins, 5, 0.02)                 # a short one after still works
        assert buttons.poll(0.5) == E.PREV
    finally:
        buttons.close()


def test_gpio_custom_pins_from_config(mock_pins: MockFactory) -> None:
    """Pins and hold time come from the config's [buttons] section."""
    cfg = DeviceConfig(buttons=ButtonsConfig(spec="gpio", prev=17, select=27, next=22,
                                             long_press=0.2))
    buttons = open_buttons(None, cfg, environ={})
    try:
        _press(mock_pins, 22, 0.02)
        _press(mock_pins, 17, 0.4)
        assert [buttons.poll(0.5), buttons.poll(0.5)] == [E.NEXT, E.UNDO]
    finally:
        buttons.close()


def test_gpio_pin_spec(mock_pins: MockFactory) -> None:
    """gpio:PREV,SELECT,NEXT overrides the configured pins."""
    buttons = open_buttons("gpio:16,20,21", environ={})
    try:
        assert isinstance(buttons, GpioButtons)
        assert buttons.pins == {E.PREV: 16, E.SELECT: 20, E.NEXT: 21}
    finally:
        buttons.close()


def test_script_events_waits_and_comments(tmp_path: Path) -> None:
    """Events come in order; 'wait' holds back the ones after it until their time."""
    path = tmp_path / "moves.txt"
    path.write_text("# start a game\nselect\nNEXT   # case does not matter\n\nwait 2\nmenu\n")
    now = [100.0]
    slept: list[float] = []

    def sleep(s: float) -> None:
        slept.append(s)
        now[0] += s

    buttons = ScriptButtons(path, clock=lambda: now[0], sleep=sleep)
    assert buttons.poll() == E.SELECT and buttons.poll() == E.NEXT
    assert buttons.poll(0.5) is None and slept == [0.5]
    assert buttons.poll(5.0) == E.MENU and slept == [0.5, 1.5]
    assert buttons.finished and buttons.poll() is None


@pytest.mark.parametrize("text, message", [
    ("select\nselct\n", "moves.txt: line 2: 'selct' is not a button event; use prev, select, "
                        "next, menu, undo, back or wait SECONDS"),
    ("\n\nwait soon\n", "moves.txt: line 3: 'wait soon': write wait SECONDS, e.g. wait 1.5"),
    ("next next\n", "moves.txt: line 1: 'next next' is not a button event; use prev, select, "
                    "next, menu, undo, back or wait SECONDS"),
])
def test_script_errors_name_file_and_line(text: str, message: str) -> None:
    """A bad script line is reported when the script is opened, with its line number."""
    with pytest.raises(ButtonsError) as info:
        parse_script(text, "moves.txt")
    assert str(info.value) == message


def test_script_missing_file(tmp_path: Path) -> None:
    """A missing script file is a one-line error."""
    with pytest.raises(ButtonsError) as info:
        open_buttons(f"script:{tmp_path / 'none.txt'}", environ={})
    assert str(info.value) == f"{tmp_path / 'none.txt'}: no such button script; check the path"


def test_keyboard_through_a_pty() -> None:
    """Keys and arrow sequences become events; q raises KeyboardInterrupt; close restores the tty."""
    master, slave = os.openpty()
    try:
        before = termios.tcgetattr(slave)
        keys = KeyboardButtons(slave)
        assert not termios.tcgetattr(slave)[3] & termios.ICANON
        assert keys.poll(0.01) is None
        os.write(master, b"as\x1b[Cd\x1b[A ADS\n")
        got = [keys.poll(0.2) for _ in range(8)]
        assert got == [E.PREV, E.SELECT, E.NEXT, E.NEXT, E.SELECT, E.UNDO, E.BACK, E.MENU]
        assert keys.poll(0.2) == E.SELECT        # Enter
        os.write(master, b"q")
        with pytest.raises(KeyboardInterrupt):
            keys.poll(0.2)
        keys.close()
        assert termios.tcgetattr(slave) == before
    finally:
        os.close(master)
        os.close(slave)


def test_keyboard_needs_a_terminal(tmp_path: Path) -> None:
    """Keyboard buttons on a non-terminal say what to use instead."""
    with open(tmp_path / "f", "w") as f:
        with pytest.raises(ButtonsError, match="keyboard buttons need a terminal on stdin"):
            KeyboardButtons(f.fileno())


@pytest.mark.parametrize("spec, message", [
    ("joystick", "buttons spec 'joystick': unknown buttons; use gpio[:PREV,SELECT,NEXT], "
                 "keyboard, script:FILE or none"),
    ("gpio:5,5,6", "buttons spec 'gpio:5,5,6': expected three different BCM pins 0-27, "
                   "e.g. gpio:5,6,13"),
    ("script:", "buttons spec 'script:': missing the file; e.g. script:moves.txt"),
])
def test_bad_specs(spec: str, message: str) -> None:
    """A malformed buttons spec is one line saying what to write."""
    with pytest.raises(ButtonsError) as info:
        open_buttons(spec, environ={})
    assert str(info.value) == message


def test_spec_order(tmp_path: Path) -> None:
    """explicit > $TABLEREF_BUTTONS > config."""
    script = tmp_path / "s.txt"
    script.write_text("select\n")
    cfg = DeviceConfig(buttons=ButtonsConfig(spec="none"))
    assert isinstance(open_buttons(None, cfg, environ={}), NoButtons)
    env = {"TABLEREF_BUTTONS": f"script:{script}"}
    assert isinstance(open_buttons(None, cfg, environ=env), ScriptButtons)
    assert isinstance(open_buttons("none", cfg, environ=env), NoButtons)


def test_none_waits_out_the_timeout() -> None:
    """none never gives an event and waits the timeout it is given."""
    slept: list[float] = []
    assert NoButtons(sleep=slept.append).poll(0.25) is None and slept == [0.25]


def test_gpio_without_pins_is_one_line_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Off the Pi (no pin factory loads) gpio buttons say why and what to use instead."""
    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no_such_factory")
    with pytest.raises(ButtonsError) as info:
        GpioButtons()
    assert str(info.value).startswith("gpio buttons on BCM 5,6,13: ")
    assert str(info.value).endswith("; or use --buttons keyboard")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(["prev", "SELECT", "next", "menu", "undo", "back",
                                           "wait 0.5", "wait", "wait -1", "# note", "",
                                           "nextt", "wait 1e9", "wait nan"]),
                          st.text(max_size=10)), max_size=12))
def test_generated_scripts_parse_or_fail_in_one_line(lines: list[str]) -> None:
    """Any script parses to events in non-decreasing time, or fails naming one line."""
    try:
        events = parse_script("\n".join(lines), "s.txt")
    except ButtonsError as e:
        assert str(e).startswith("s.txt: line ") and "\n" not in str(e)
    else:
        times = [t for t, _ in events]
        assert times == sorted(times) and all(isinstance(ev, ButtonEvent) for _, ev in events)
