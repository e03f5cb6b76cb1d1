"""128x64 displays behind one interface; `open_display(spec)` picks the backend.

Specs (also from $TABLEREF_DISPLAY, then the config file, then "auto"):
  auto             ssd1306 if I2C answers, else terminal on a tty, else null
  ssd1306[:ADDR]   luma.oled SSD1306 over I2C (default address 0x3C, port 1)
  sh1106[:ADDR]    luma.oled SH1106 over I2C
  png:DIR          luma.core dummy device; every changed frame written as DIR/NNNNNN.png
  terminal         luma.core dummy device drawn in the terminal with block characters
  null             keeps the last frame only (tests)
  A+B              several at once, e.g. terminal+png:out/demo
"""
from firmware.display.base import HEIGHT, WIDTH, Display, DisplayError
from firmware.display.factory import open_display

__all__ = ["Display", "DisplayError", "WIDTH", "HEIGHT", "open_display"]
