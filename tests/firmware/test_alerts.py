"""Alerts: buzzer and LED patterns on MockFactory pins, non-blocking; null when unconfigured."""

from __future__ import annotations

import time

import pytest
from gpiozero.pins.mock import MockFactory

from firmware.alerts import GpioAlerts, NullAlerts, open_alerts
from firmware.config import AlertsConfig, DeviceConfig


def _levels(factory: MockFactory, pin: int) -> list[bool]:
    return [s.state for s in factory.pin(pin).states]


def _wait_idle(factory: MockFactory, pin: int, timeout: float = 2.0) -> None:
    """Until the pin has stopped changing (the background pattern finished)."""
    end = time.monotonic() + timeout
    last = -1
    while time.monotonic() < end:
        n = len(factory.pin(pin).states)
        if n == last and not factory.pin(pin).state:
            return
        last = n
        time.sleep(0.25)


def test_illegal_beeps_three_times_and_blinks_without_blocking(mock_pins: MockFactory) -> None:
    """alert_illegal returns at once; the buzzer pin goes on/off 3 times, the LED 4 times."""
    alerts = open_alerts(DeviceConfig(alerts=AlertsConfig(buzzer=18, led=23)))
    assert isinstance(alerts, GpioAlerts)
    start = time.monotonic()
    alerts.alert_illegal()
    assert time.monotonic() - start < 0.05
    _wait_idle(mock_pins, 18)
    _wait_idle(mock_pins, 23)
    assert _levels(mock_pins, 18) == [False] + [True, False] * 3
    assert _levels(mock_pins, 23) == [False] + [True, False] * 4
    alerts.close()


def test_ok_is_one_blip(mock_pins: MockFactory) -> None:
    """alert_ok switches the buzzer on once and off again."""
    alerts = GpioAlerts(buzzer=18)
    alerts.alert_ok()
    _wait_idle(mock_pins, 18)
    assert _levels(mock_pins, 18) == [False, True, False]
    alerts.close()


def test_no_pins_is_null() -> None:
    """Without [alerts] pins nothing touches GPIO; the calls are recorded."""
    alerts = open_alerts(DeviceConfig())
    assert isinstance(alerts, NullAlerts)
    alerts.alert_illegal()
    alerts.alert_ok()
    assert alerts.history == ["illegal", "ok"]


def test_unusable_pin_is_one_line_error(mock_pins: MockFactory) -> None:
    """An LED on the buzzer's pin is refused with the pin and the fix named."""
    from firmware.alerts import AlertsError
    with pytest.raises(AlertsError) as info:
        GpioAlerts(buzzer=18, led=18)
    message = str(info.value)
    assert message.startswith("alerts: LED on GPIO 18: a pin is already in use (")
    assert message.endswith('); give each its own pin; or set it to "none" in [alerts]')
    assert "\n" not in message
