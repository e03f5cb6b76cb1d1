"""Sound and light for verdicts: an optional active buzzer and LED on GPIO.

An illegal move must be noticed by players looking at the table, not at the screen:
three short beeps and a blinking LED. A legal move gets one short blip so players know
the referee saw it. Both are non-blocking (gpiozero's beep/blink with background=True),
so the loop never waits for a sound. With no pins configured everything is a no-op
(NullAlerts), which is also what tests and the demo use.

    alerts = open_alerts(config)      # pins from [alerts] buzzer / led, default none
    alerts.alert_illegal(); alerts.alert_ok(); alerts.close()
"""

from __future__ import annotations

import warnings
from typing import Any, Protocol

from firmware.buttons.gpio import explain_gpio_error
from firmware.config import DeviceConfig

# (on seconds, off seconds, repetitions)
ILLEGAL_BEEP = (0.08, 0.08, 3)
ILLEGAL_BLINK = (0.15, 0.15, 4)
OK_BEEP = (0.03, 0.0, 1)
OK_BLINK = (0.12, 0.0, 1)


class AlertsError(RuntimeError):
    """A configured buzzer or LED pin cannot be used; one line naming the pin and the fix."""


class Alerts(Protocol):
    def alert_illegal(self) -> None: ...

    def alert_ok(self) -> None: ...

    def close(self) -> None: ...


class NullAlerts:
    """No buzzer, no LED; remembers what was asked (tests, the demo)."""

    def __init__(self) -> None:
        self.history: list[str] = []

    def alert_illegal(self) -> None:
        self.history.append("illegal")

    def alert_ok(self) -> None:
        self.history.append("ok")

    def close(self) -> None:
        pass


class GpioAlerts:
    def __init__(self, buzzer: int | None = None, led: int | None = None,
                 pin_factory: Any = None) -> None:
        self.buzzer: Any = None
        self.led: Any = None
        self.history: list[str] = []
        try:
            from gpiozero import LED, Buzzer  # noqa: PLC0415
            with warnings.catch_warnings():   # PinFactoryFallback chatter before our one line
                warnings.simplefilter("ignore")
                if buzzer is not None:
                    self.buzzer = Buzzer(buzzer, pin_factory=pin_factory)
                if led is not None:
                    self.led = LED(led, pin_factory=pin_factory)
        except Exception as e:  # noqa: BLE001  (gpiozero raises many kinds here)
            which = f"buzzer on GPIO {buzzer}" if self.buzzer is None and buzzer is not None \
                else f"LED on GPIO {led}"
            self.close()
            raise AlertsError(f"alerts: {which}: {explain_gpio_error(e)}; or set it to "
                              "\"none\" in [alerts]") from None

    def _play(self, beep: tuple[float, float, int], blink: tuple[float, float, int]) -> None:
        if self.buzzer is not None:
            self.buzzer.beep(on_time=beep[0], off_time=beep[1], n=beep[2], background=True)
        if self.led is not None:
            self.led.blink(on_time=blink[0], off_time=blink[1], n=blink[2], background=True)

    def alert_illegal(self) -> None:
        self.history.append("illegal")
        self._play(ILLEGAL_BEEP, ILLEGAL_BLINK)

    def alert_ok(self) -> None:
        self.history.append("ok")
        self._play(OK_BEEP, OK_BLINK)

    def close(self) -> None:
        for device in (self.buzzer, self.led):
            if device is not None:
                try:
                    device.off()
                    device.close()
                except Exception:  # noqa: BLE001
                    pass
        self.buzzer = self.led = None


def open_alerts(config: DeviceConfig | None = None, pin_factory: Any = None) -> Alerts:
    """GpioAlerts when [alerts] names a buzzer or LED pin, else NullAlerts."""
    cfg = (config or DeviceConfig()).alerts
    if cfg.buzzer is None and cfg.led is None:
        return NullAlerts()
    return GpioAlerts(cfg.buzzer, cfg.led, pin_factory)
