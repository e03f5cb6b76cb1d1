"""Three push buttons on GPIO through gpiozero.

Each button connects a GPIO to ground (internal pull-up, so pressed = low). A short press
gives PREV / SELECT / NEXT when the button is RELEASED; holding it for `long_press`
seconds gives UNDO / MENU / BACK at once (while still held, so the player feels it
worked) and no short event on release. gpiozero runs the callbacks in its own threads,
so events go through a thread-safe queue that poll() reads.

The pin factory is gpiozero's choice: lgpio on a Pi 5 (and on Bookworm generally; the
installer adds python3-lgpio), RPi.GPIO or pigpio on older setups, and MockFactory when
GPIOZERO_PIN_FACTORY=mock or `Device.pin_factory = MockFactory()` (the tests).
"""

from __future__ import annotations

import queue
import threading
import warnings
from typing import Any, Mapping

from firmware.buttons.base import LONG_OF, ButtonEvent, ButtonsError

DEFAULT_PINS = {ButtonEvent.PREV: 5, ButtonEvent.SELECT: 6, ButtonEvent.NEXT: 13}


class GpioButtons:
    def __init__(self, pins: Mapping[ButtonEvent, int] | None = None, long_press: float = 0.8,
                 bounce: float | None = 0.05, pin_factory: Any = None) -> None:
        self.pins = dict(DEFAULT_PINS if pins is None else pins)
        self.events: queue.Queue[ButtonEvent] = queue.Queue()
        self._held: dict[ButtonEvent, bool] = {e: False for e in self.pins}
        self._lock = threading.Lock()
        self.buttons: list[Any] = []
        try:
            from gpiozero import Button  # noqa: PLC0415
            with warnings.catch_warnings():   # PinFactoryFallback chatter before our one line
                warnings.simplefilter("ignore")
                self._make(Button, long_press, bounce, pin_factory)
        except Exception as e:  # noqa: BLE001  (gpiozero raises many kinds here)
            self.close()
            raise ButtonsError(f"gpio buttons on BCM {_pin_list(self.pins)}: "
                               f"{explain_gpio_error(e)}; or use --buttons keyboard") from None

    def _make(self, button_class: Any, long_press: float, bounce: float | None,
              pin_factory: Any) -> None:
        for event, pin in self.pins.items():
            button = button_class(pin, pull_up=True, bounce_time=bounce or None,
                                  hold_time=long_press, pin_factory=pin_factory)
            button.when_pressed = self._pressed(event)
            button.when_held = self._long(event)
            button.when_released = self._released(event)
            self.buttons.append(button)

    def _pressed(self, event: ButtonEvent) -> Any:
        def handler() -> None:
            with self._lock:
                self._held[event] = False
        return handler

    def _long(self, event: ButtonEvent) -> Any:
        def handler() -> None:
            with self._lock:
                self._held[event] = True
            self.events.put(LONG_OF[event])
        return handler

    def _released(self, event: ButtonEvent) -> Any:
        def handler() -> None:
            with self._lock:
                was_long = self._held[event]
                self._held[event] = False
            if not was_long:
                self.events.put(event)
        return handler

    def poll(self, timeout: float = 0.0) -> ButtonEvent | None:
        try:
            if timeout <= 0:
                return self.events.get_nowait()
            return self.events.get(timeout=timeout)
        except queue.Empty:
            return None

    def close(self) -> None:
        for button in self.buttons:
            try:
                button.close()
            except Exception:  # noqa: BLE001
                pass
        self.buttons = []


def _pin_list(pins: Mapping[ButtonEvent, int]) -> str:
    return ",".join(str(pins[e]) for e in (ButtonEvent.PREV, ButtonEvent.SELECT,
                                            ButtonEvent.NEXT) if e in pins)


def explain_gpio_error(e: Exception) -> str:
    """What a gpiozero failure means for the person at the Pi, and what to do."""
    name = type(e).__name__
    if name in ("BadPinFactory", "PinFactoryFallback") or "pin factory" in str(e).lower():
        return ("no GPIO here (not a Raspberry Pi, or python3-lgpio missing: sudo apt install "
                "python3-lgpio)")
    if name == "GPIOPinInUse":
        return f"a pin is already in use ({e}); give each its own pin"
    if isinstance(e, PermissionError) or "permission" in str(e).lower():
        return "permission denied; add the user to the gpio group (sudo usermod -aG gpio $USER)"
    return f"{name}: {e}"
