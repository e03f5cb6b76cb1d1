"""SSD1306 / SH1106 128x64 OLEDs over I2C through luma.oled.

Wiring and enabling I2C: docs/hardware.md. The address is usually 0x3C (0x3D when the
module's address jumper is moved); `i2cdetect -y 1` shows it. luma registers an atexit
hook that blanks the panel; close() does the same explicitly so SIGTERM leaves it dark.
"""

from __future__ import annotations

from typing import Any

from PIL import Image

from firmware.display.base import HEIGHT, WIDTH, DisplayError, as_frame

CHIPS = ("ssd1306", "sh1106")


class OledDisplay:
    def __init__(self, chip: str = "ssd1306", address: int = 0x3C, port: int = 1,
                 rotation: int = 0, serial: Any = None) -> None:
        """`serial` replaces the I2C interface (tests pass luma's noop()); normally None."""
        if chip not in CHIPS:
            raise DisplayError(f"display {chip!r}: unknown OLED chip; use ssd1306 or sh1106")
        self.chip = chip
        self._last: Image.Image | None = None
        try:
            from luma.core.interface.serial import i2c  # noqa: PLC0415
            from luma.oled import device as oled  # noqa: PLC0415

            if serial is None:
                serial = i2c(port=port, address=address)
            self.device = getattr(oled, chip)(serial, width=WIDTH, height=HEIGHT,
                                              rotate=2 if rotation == 180 else 0)
        except DisplayError:
            raise
        except Exception as e:  # noqa: BLE001  (luma raises its own errors and OSError)
            raise DisplayError(f"{chip} at I2C {port}/0x{address:02X}: {_why(e)}") from None

    def show(self, image: Image.Image) -> None:
        frame = as_frame(image)
        try:
            self.device.display(frame)
        except Exception as e:  # noqa: BLE001
            raise DisplayError(f"{self.chip}: write failed ({e}); check the wiring") from None
        self._last = frame.copy()

    def clear(self) -> None:
        self.device.clear()
        self._last = None

    def close(self) -> None:
        try:
            self.device.persist = False
            self.device.clear()
            self.device.cleanup()
        except Exception:  # noqa: BLE001  (closing must not raise on the way out)
            pass

    def park(self, image: Image.Image) -> None:
        self.show(image)
        self.device.persist = True      # luma's cleanup (and its atexit hook) then keeps it
        try:
            self.device.cleanup()
        except Exception:  # noqa: BLE001
            pass

    @property
    def last(self) -> Image.Image | None:
        return self._last


def _why(e: Exception) -> str:
    name = type(e).__name__
    if name == "DeviceNotFoundError" or isinstance(e, FileNotFoundError):
        return ("no I2C bus or no display answering; enable I2C (sudo raspi-config nonint "
                "do_i2c 0) and check the wiring with i2cdetect -y 1")
    if name == "DevicePermissionError" or isinstance(e, PermissionError):
        return "permission denied; add the user to the i2c group (sudo usermod -aG i2c $USER)"
    if name == "DeviceAddressError":
        return "invalid I2C address; use 0x3C or 0x3D"
    return f"{name}: {e}"
